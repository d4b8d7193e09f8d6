package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPresentationMode toggles presentation mode with the P key and the button: the type is
// larger, the first headline chart is much larger and the others are hidden, the URL does not
// change, and P typed into a field is a letter, not a toggle.
func TestPresentationMode(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)

	type look struct {
		Area, Font float64
		Href       string
		Header     bool
		Pressed    string
	}
	const read = `(() => { const c = document.querySelector(".pinned .chart .plots canvas").getBoundingClientRect();
		return { area: c.width * c.height, font: parseFloat(getComputedStyle(document.documentElement).fontSize),
			href: location.href, header: document.querySelector("header.top").offsetParent !== null,
			pressed: document.getElementById("present-button").getAttribute("aria-pressed") }; })()`
	before := eval[look](t, ctx, read)
	if before.Pressed != "false" || !before.Header {
		t.Fatalf("before: %+v, want the usual page", before)
	}
	bigger := `document.querySelector(".pinned .chart .plots canvas").getBoundingClientRect().height > 400`

	// P on the page (focus on the body) turns it on.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement.blur()`), chromedp.KeyEvent("p")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.documentElement.classList.contains("presenting")`)
	waitFor(t, ctx, bigger)
	on := eval[look](t, ctx, read)
	if on.Area < 2*before.Area || on.Font <= before.Font || on.Header || on.Pressed != "true" || on.Href != before.Href {
		t.Errorf("presenting: %+v; before: %+v; want a chart at least twice the area, larger type, no header, the button pressed, the same URL", on, before)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll(".chart")].filter((c) => c.offsetParent !== null).length`); n != 1 {
		t.Errorf("presenting: %d charts visible, want 1", n)
	}
	if n := eval[int](t, ctx, `[...document.querySelectorAll("#controls .control")].filter((c) => c.offsetParent !== null).length`); n < 2 || n > 3 {
		t.Errorf("presenting: %d controls visible, want two or three", n)
	}

	// P typed into a text field is a letter.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector("input.value").focus()`), chromedp.KeyEvent("p")); err != nil {
		t.Fatal(err)
	}
	if !eval[bool](t, ctx, `document.documentElement.classList.contains("presenting")`) {
		t.Error("P typed into a field left presentation mode")
	}
	// The button turns it off; the chart returns to its size.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("present-button").click()`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!document.documentElement.classList.contains("presenting") && !(`+bigger+`)`)
	if off := eval[look](t, ctx, read); off.Pressed != "false" || !off.Header || off.Href != before.Href {
		t.Errorf("after: %+v, want the usual page and URL", off)
	}
}

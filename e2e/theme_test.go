package e2e

import (
	"context"
	"regexp"
	"strconv"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// emulateScheme makes the tab's pages see prefers-color-scheme as scheme ("dark" or "light").
func emulateScheme(tb testing.TB, ctx context.Context, scheme string) {
	tb.Helper()
	if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
		Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}}}); err != nil {
		tb.Fatalf("emulate prefers-color-scheme: %s: %v", scheme, err)
	}
}

// lum is the relative luminance of a CSS rgb()/rgba() colour, or -1.
func lum(css string) float64 {
	m := regexp.MustCompile(`rgba?\((\d+), (\d+), (\d+)`).FindStringSubmatch(css)
	if m == nil {
		return -1
	}
	var l float64
	for i, w := range []float64{0.2126, 0.7152, 0.0722} {
		v, _ := strconv.ParseFloat(m[i+1], 64)
		l += w * v / 255
	}
	return l
}

// TestDarkTheme opens a lab with the system in dark mode: the page is dark with light text and
// the series take the dark palette; switching the system to light turns the page and the
// charts light again.
func TestDarkTheme(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	emulateScheme(t, ctx, "dark")
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)

	bg := eval[string](t, ctx, `getComputedStyle(document.body).backgroundColor`)
	fg := eval[string](t, ctx, `getComputedStyle(document.body).color`)
	h1 := eval[string](t, ctx, `getComputedStyle(document.querySelector("h1")).color`)
	if l := lum(bg); l < 0 || l > 0.15 {
		t.Errorf("dark: body background %s, want dark", bg)
	}
	for _, c := range []string{fg, h1} {
		if l := lum(c); l < 0.75 {
			t.Errorf("dark: text colour %s, want light", c)
		}
	}
	// The first series (strategy "none") takes the dark palette's first colour.
	stroke := `document.querySelector("#chart-work .legend line, .legend line").getAttribute("stroke")`
	if s := eval[string](t, ctx, stroke); s != "#56B4E9" {
		t.Errorf("dark: first series is drawn in %s, want the dark palette's #56B4E9", s)
	}

	// So does its row's swatch in the summary table, and it follows the switch to light (the
	// table's cells are updated in place: the rows are the same).
	swatch := `getComputedStyle(document.querySelector("#lab .table tbody th .swatch")).borderTopColor`
	if s := eval[string](t, ctx, swatch); s != "rgb(86, 180, 233)" {
		t.Errorf("dark: the first row's swatch is %s, want the dark palette's rgb(86, 180, 233)", s)
	}

	emulateScheme(t, ctx, "light")
	waitFor(t, ctx, `getComputedStyle(document.body).backgroundColor === "rgb(255, 255, 255)"`)
	waitFor(t, ctx, stroke+` === "#0072B2"`)
	waitFor(t, ctx, swatch+` === "rgb(0, 114, 178)"`)
	if l := lum(eval[string](t, ctx, `getComputedStyle(document.body).color`)); l > 0.2 {
		t.Errorf("light: text is not dark")
	}
}

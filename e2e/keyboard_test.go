package e2e

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestKeyboardReachesEveryControl presses Tab through the page: every focusable control of the
// form must be reached, and with them every declared parameter, in declaration order.
func TestKeyboardReachesEveryControl(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+startURL)
	l := lookupLab(t, "backoff")
	// Folded groups (Advanced) are reached by Tab once opened; their summary is reached either way.
	openGroups(t, ctx)

	// The form's focusable controls, as the DOM has them.
	focusable := eval[[]string](t, ctx, `[...document.querySelectorAll(
		"#controls input, #controls select, #controls button, #controls a[href], #controls summary, #controls [tabindex]")]
		.filter((e) => !e.disabled && e.tabIndex >= 0 && e.checkVisibility())
		.map((e) => e.outerHTML.slice(0, 80))`)

	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.focus()`)); err != nil {
		t.Fatal(err)
	}
	type focused struct {
		Tag, HTML, Param string
		InForm           bool
	}
	var reached []focused
	seen := map[string]bool{}
	for range 200 {
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
		f := eval[focused](t, ctx, `(() => { const e = document.activeElement;
			const c = e && e.closest(".control");
			return { Tag: e ? e.tagName : "", HTML: e ? e.outerHTML.slice(0, 80) : "", Param: c ? c.dataset.param : "",
				InForm: !!(e && e.closest("#controls")) }; })()`)
		if f.Tag == "BODY" || seen[f.HTML] {
			break // wrapped around
		}
		seen[f.HTML] = true
		reached = append(reached, f)
	}

	var inForm []string
	var params []string
	for _, f := range reached {
		if f.InForm {
			inForm = append(inForm, f.HTML)
		}
		if f.Param != "" && (len(params) == 0 || params[len(params)-1] != f.Param) {
			params = append(params, f.Param)
		}
	}
	var declared []string
	for _, sp := range l.Params {
		declared = append(declared, sp.Name)
	}
	t.Logf("Tab reaches %d of %d focusable form controls, for %d of %d declared params", len(inForm), len(focusable), len(params), len(declared))
	if !slices.Equal(params, declared) {
		t.Errorf("params in Tab order = %q, want the declared %q", params, declared)
	}
	if !slices.Equal(inForm, focusable) {
		t.Errorf("Tab reaches form controls\n%q\nwant\n%q", inForm, focusable)
	}
	if len(inForm) < len(declared) {
		t.Errorf("%d focusable controls for %d params", len(inForm), len(declared))
	}
}

// TestLogSliderEveryPressChanges checks every arrow press on a logarithmic slider changes the
// value shown, so keyboard users are never left pressing a key that seems to do nothing.
func TestLogSliderEveryPressChanges(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=2&sweep=off")
	for _, sp := range lookupLab(t, "backoff").Params {
		if !sp.Log {
			continue
		}
		prev := textValue(t, ctx, sp.Name)
		for i := range 12 {
			sendKeys(t, ctx, rangeSel(sp.Name), kb.ArrowRight)
			got := textValue(t, ctx, sp.Name)
			if got == prev {
				t.Errorf("%s: press %d left the value at %s", sp.Name, i+1, got)
			}
			prev = got
		}
	}
}

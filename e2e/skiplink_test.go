package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestSkipLink: on a lab page in a tour, the first Tab reaches a "Skip to the scenario's
// controls" link; Enter on it puts the keyboard on the first control, and the address keeps
// its fragment (the tour's step).
func TestSkipLink(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?strategies=none,exponential#tour=jitter/1")
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.activeElement && document.activeElement.blur(); window.focus()`)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if got := eval[string](t, ctx, `document.activeElement.textContent`); got != "Skip to the scenario’s controls" {
		t.Fatalf("the first Tab reaches %q, want the skip link", got)
	}
	if !eval[bool](t, ctx, `document.activeElement.checkVisibility() && document.activeElement.getBoundingClientRect().top >= 0`) {
		t.Errorf("the focused skip link is not in view")
	}
	if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Enter)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!document.activeElement.closest("#controls")`)
	if hash := eval[string](t, ctx, `location.hash`); hash != "#tour=jitter/1" {
		t.Errorf("the skip link changed the fragment to %q", hash)
	}
	t.Logf("focus after the skip link: %s", eval[string](t, ctx, `document.activeElement.outerHTML.slice(0, 80)`))
}

package e2e

import (
	"slices"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// TestDragFlag: the page marks a slider's drag steps and key steps as such ("drag": true),
// which the server lets show a picture before the next value, and every other change — a
// typed value, a strategy ticked — without, so that it supersedes the run in flight at once
// (api.TestSupersededUntilPicture).
func TestDragFlag(t *testing.T) {
	raceToo(t)
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	// sent returns the drag flags of the requests sent since the first n.
	sent := func(n int) []bool { return eval[[]bool](t, ctx, `window.__e2e.drags`)[n:] }
	for _, c := range []struct {
		name string
		do   func()
		want bool
	}{
		{"a slider dragged", func() { moveSlider(t, ctx, "clients", 150, false) }, true},
		{"a slider released", func() { moveSlider(t, ctx, "clients", 170, true) }, true},
		{"a slider stepped by a key", func() { sendKeys(t, ctx, rangeSel("clients"), kb.ArrowRight) }, true},
		{"a typed value", func() { typeValue(t, ctx, textSel("clients"), "60") }, false},
		{"a strategy ticked", func() {
			click(t, ctx, `#controls input[type=checkbox][name="strategies"][value="equal"]`)
		}, false},
	} {
		n := len(eval[[]bool](t, ctx, `window.__e2e.drags`))
		prev := lastSent(t, ctx)
		c.do()
		waitSettled(t, ctx, prev)
		got := sent(n)
		if len(got) == 0 || slices.ContainsFunc(got, func(d bool) bool { return d != c.want }) {
			t.Errorf("%s: the requests sent were drag steps %v, want all %v", c.name, got, c.want)
		}
	}
}

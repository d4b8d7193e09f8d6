package e2e

import (
	"fmt"
	"testing"
)

// TestUnchangedPanelNotRedrawn moves base step by step on the backoff lab with each small
// multiple on its own axes: the writes-over-time panel of "none", whose numbers and axes do not
// depend on base, keeps its plot without a redraw while the jittered strategies' panels are
// redrawn at every step; and every plot then shows exactly what a fresh draw of the results
// shows (the charts drawn afresh, as a theme switch does). (On shared axes a panel is redrawn
// whenever the others move the axes it shares.)
func TestUnchangedPanelNotRedrawn(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=10&trials=5&sweep=off")
	waitDrawn(t, ctx)
	eval[any](t, ctx, `document.querySelector("#chart-timeline input.shared-axes").click()`)
	waitFor(t, ctx, `!window.__playground.state.view.sharedAxes`)
	waitDrawn(t, ctx)
	// Count each plot's setData from here on.
	eval[any](t, ctx, `(() => { const c = (window.__setData = {});
		for (const [key, p] of window.__playground.charts.renderer.plots) {
			const name = key.replace("\u0000", "/"), set = p.u.setData.bind(p.u);
			c[name] = 0;
			p.u.setData = (...a) => { c[name]++; return set(...a); };
		} })()`)
	const steps = 4
	for i := 1; i <= steps; i++ {
		prev := eval[int](t, ctx, `window.__e2e.lastSent`)
		eval[any](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = Number(s.value) + 3;
			s.dispatchEvent(new Event("input", { bubbles: true })); s.dispatchEvent(new Event("change", { bubbles: true })); })()`, rangeSel("base")))
		waitSettled(t, ctx, prev)
		waitDrawn(t, ctx)
	}
	counts := eval[map[string]int](t, ctx, `window.__setData`)
	if n, ok := counts["timeline/none"]; !ok || n != 0 {
		t.Errorf("the panel of none was redrawn %d times (present: %v) in %d moves of base; its numbers do not depend on base", n, ok, steps)
	}
	if n := counts["timeline/full"]; n < steps {
		t.Errorf("the panel of full jitter was redrawn %d times in %d moves of base, want at least %d", n, steps, steps)
	}
	shown := `JSON.stringify([...window.__playground.charts.renderer.plots].map(([k, p]) => [k, p.u.data]).sort())`
	before := eval[string](t, ctx, shown)
	eval[any](t, ctx, `window.__playground.charts.restyle()`)
	if after := eval[string](t, ctx, shown); after != before {
		t.Errorf("the plots show other numbers than a fresh draw of the same results:\n shown %.300s\n fresh %.300s", before, after)
	}
}

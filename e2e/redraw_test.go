package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestUnchangedPanelNotRedrawn checks that a chart drawn again with the numbers, axes, mark and
// size its plots show leaves them as they are (every chart redrawn at once, nothing changed:
// no plot's data is set), that a move of base sets the data of the panels whose numbers it
// changes, and that every plot then shows exactly what a fresh draw of the results shows (the
// charts drawn afresh, as a theme switch does). Which panels a move leaves unchanged on the way
// depends on which of its run's frames the page draws, so none is asked for by name.
func TestUnchangedPanelNotRedrawn(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=10&trials=5&sweep=off")
	waitDrawn(t, ctx)
	// Count each plot's setData from here on.
	eval[any](t, ctx, `(() => { const c = (window.__setData = {});
		for (const [key, p] of window.__playground.charts.renderer.plots) {
			const name = key.replace("\u0000", "/"), set = p.u.setData.bind(p.u);
			c[name] = 0;
			p.u.setData = (...a) => { c[name]++; return set(...a); };
		} })()`)
	eval[any](t, ctx, `window.__playground.charts.drawAll()`)
	for name, n := range eval[map[string]int](t, ctx, `window.__setData`) {
		if n != 0 {
			t.Errorf("%s: its data was set %d times by a redraw of the same numbers", name, n)
		}
	}
	prev := eval[int](t, ctx, `window.__e2e.lastSent`)
	eval[any](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = Number(s.value) + 20;
		s.dispatchEvent(new Event("input", { bubbles: true })); s.dispatchEvent(new Event("change", { bubbles: true })); })()`, rangeSel("base")))
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	if n := eval[map[string]int](t, ctx, `window.__setData`)["timeline/full"]; n == 0 {
		t.Errorf("the panel of full jitter was not redrawn after a move of base")
	}
	shown := `JSON.stringify([...window.__playground.charts.renderer.plots].map(([k, p]) => [k, p.u.data]).sort())`
	before := eval[string](t, ctx, shown)
	eval[any](t, ctx, `window.__playground.charts.restyle()`)
	if after := eval[string](t, ctx, shown); after != before {
		t.Errorf("the plots show other numbers than a fresh draw of the same results:\n shown %.300s\n fresh %.300s", before, after)
	}
}

// TestAlignSeries checks the renderer's putting of series on one x (unionX, align: a typed
// sort and one walk per series) against the plain way (a Set, a sort, a Map per series) over
// random series: in and out of order, with repeated x, −0 and null (the one value other than a
// finite number a JSON array of numbers can hold), for which it keeps the plain way.
func TestAlignSeries(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	js := `import("/static/js/render.js").then((R) => {
		let seed = 7; // mulberry32
		const rnd = () => { seed = (seed + 0x6d2b79f5) | 0; let z = Math.imul(seed ^ (seed >>> 15), 1 | seed);
			z = (z + Math.imul(z ^ (z >>> 7), 61 | z)) ^ z; return ((z ^ (z >>> 14)) >>> 0) / 4294967296; };
		const plainX = (series) => [...new Set(series.flatMap((s) => s.x))].sort((a, b) => a - b);
		const plainAlign = (xs, s) => { const m = new Map(s.x.map((x, i) => [x, s.y[i]])); return xs.map((x) => (m.has(x) ? m.get(x) : null)); };
		const odd = [null, -0];
		let cases = 0, points = 0; const bad = [];
		for (let t = 0; t < 20000 && bad.length < 5; t++) {
			const series = [];
			for (let q = 1 + Math.floor(rnd() * 4); q > 0; q--) {
				const x = [];
				for (let n = Math.floor(rnd() * 9); n > 0; n--) x.push(Math.floor(rnd() * 12) / (rnd() < 0.2 ? 4 : 1));
				if (rnd() < 0.7) x.sort((a, b) => a - b);
				if (rnd() < 0.05) x.splice(Math.floor(rnd() * (x.length + 1)), 0, odd[Math.floor(rnd() * odd.length)]);
				series.push({ x, y: x.map(() => rnd()) });
			}
			const want = plainX(series), got = R.unionX(series);
			points += want.length;
			const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]) || (v === 0 && b[i] === 0));
			cases++;
			if (!same(want, got)) { bad.push({ series: JSON.stringify(series.map((s) => s.x)), want: String(want), got: String(got) }); continue; }
			for (const s of series) {
				cases++;
				const w = plainAlign(want, s), g = R.align(want, s);
				if (!same(w, g)) bad.push({ series: JSON.stringify(s), want: String(w), got: String(g) });
			}
		}
		window.__align = { cases, bad, points };
	})`
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__align`)
	type mismatch struct{ Series, Want, Got string }
	res := eval[struct {
		Cases, Points int
		Bad           []mismatch
	}](t, ctx, `window.__align`)
	for _, b := range res.Bad { // the first five
		t.Errorf("series %s: got %s, want %s", b.Series, b.Got, b.Want)
	}
	if len(res.Bad) == 0 && (res.Cases < 20000 || res.Points < res.Cases) { // a generator stuck on empty series checks nothing
		t.Errorf("only %d cases of %d points checked", res.Cases, res.Points)
	}
}

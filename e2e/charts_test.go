package e2e

import (
	"context"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/labs"
)

// rawTitle matches a title's placeholder: a name in braces.
var rawTitle = regexp.MustCompile(`\{\w+\}`)

// Light scenarios of the labs, for tests of how charts are drawn.
var chartPages = map[string]string{
	"backoff":     "/backoff?trials=5&sweep=10:50:20",
	"ratelimit":   "/ratelimit?duration=5s&sweep=1:31:10&latency_sweep=0:10:5",
	"loadbalance": "/loadbalance?clients=60&backends=40&subset=6&duration=5s&sweep=4:40:12&load_sweep=50:100:25",
	"retrystorm":  "/retrystorm?rate=50&capacity=100&duration=5s&trigger_start=2s&trigger_length=1s&sweep=0:100:50&client_sweep=10:100:90",
}

// TestPanelsEqualHeight: every panel of every small multiple on the three labs has the same
// plot height (within a pixel), whether or not the panels share axes, and a panel carries the
// x axis, below its plot, when no panel below it shares that axis: on shared axes the last one
// (and any drawn on an axis of its own, render.js axisGroups), on separate axes each.
func TestPanelsEqualHeight(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	type panel struct {
		Chart string    `json:"chart"`
		H     float64   `json:"h"`
		Axis  bool      `json:"axis"`
		Top   float64   `json:"top"`
		Left  float64   `json:"left"`
		X     []float64 `json:"x"` // the x axis's range
	}
	const read = `[...window.__playground.charts.plots].filter(([k]) => document.getElementById("chart-" + k.split("\u0000")[0]).classList.contains("split"))
		.map(([k, p]) => ({ chart: k.split("\u0000")[0], h: p.u.bbox.height / devicePixelRatio, axis: p.u.axes[0].ticks?.show !== false, top: p.holder.getBoundingClientRect().top,
			left: p.holder.getBoundingClientRect().left, x: [p.u.scales.x.min, p.u.scales.x.max] }))`
	for name, page := range chartPages {
		openLab(t, ctx, srv.URL+page)
		waitDrawn(t, ctx)
		for _, shared := range []bool{true, false} {
			if !shared {
				for _, c := range eval[[]string](t, ctx, `[...document.querySelectorAll("input.shared-axes")].map((i) => i.closest(".chart").id)`) {
					click(t, ctx, "#"+c+" input.shared-axes")
					break // one toggle sets them all
				}
				waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => r(true)))`)
			}
			byChart := map[string][]panel{}
			for _, p := range eval[[]panel](t, ctx, read) {
				byChart[p.Chart] = append(byChart[p.Chart], p)
			}
			if len(byChart) == 0 {
				t.Fatalf("%s: no small multiples", name)
			}
			for chart, ps := range byChart {
				var hs []float64
				for _, p := range ps {
					hs = append(hs, p.H)
				}
				for i, p := range ps {
					if d := p.H - ps[0].H; d > 1 || d < -1 {
						t.Errorf("%s %s (shared axes %v): panel plot heights %v px: panel %d is %.0f px, panel 0 %.0f px", name, chart, shared, hs, i, p.H, ps[0].H)
						break
					}
				}
				for i, p := range ps {
					// The panel below it (one column: the next one down).
					below := -1
					for j, q := range ps {
						if q.Top > p.Top+1 && math.Abs(q.Left-p.Left) < 1 && (below < 0 || q.Top < ps[below].Top) {
							below = j
						}
					}
					want := below < 0 || !shared || !slices.Equal(ps[below].X, p.X)
					if p.Axis != want {
						t.Errorf("%s %s (shared axes %v): panel %d (of %d) has an x axis: %v, want %v (x %v, the panel below %v)", name, chart, shared, i, len(ps), p.Axis, want, p.X, ps[max(below, 0)].X)
					}
				}
			}
		}
	}
}

// TestCompareBinsEqual compares two backoff scenarios whose histograms have different bin
// widths: A's and B's panels are drawn at one bin width, named in their titles as on the lab
// page ("A: none (writes per 256 ms)"), so that equal bars mean equal counts (issue 15,
// item 13).
func TestCompareBinsEqual(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	a, b := "/backoff?clients=50&trials=20&sweep=off", "/backoff?clients=100&trials=20&sweep=off"
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape(a)+"&b="+url.QueryEscape(b))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__compare && (window.__compare.ready || window.__compare.error !== "")`)
	if e := eval[string](t, ctx, `window.__compare.error`); e != "" {
		t.Fatalf("compare page error: %s", e)
	}
	// The API's own bin widths differ (between strategies, and between A and B), or the test
	// shows nothing.
	sent := eval[[]float64](t, ctx, `[window.__compare.a, window.__compare.b].flatMap((r) => r.series.filter((s) => s.chart === "timeline").map((s) => s.x[1] - s.x[0]))`)
	if slices.Min(sent) == slices.Max(sent) {
		t.Fatalf("every histogram has bins of %v: pick scenarios whose widths differ", sent[0])
	}
	type plot struct {
		Key    string  `json:"key"`
		Width  float64 `json:"width"`
		YLabel string  `json:"ylabel"`
	}
	plots := eval[[]plot](t, ctx, `(() => { const r = window.__compare.renderer; if (!r) return [];
		return [...r.plots].filter(([k]) => k.startsWith("timeline\u0000")).map(([k, p]) => ({ key: k.slice(9), width: p.u.data[0][1] - p.u.data[0][0], ylabel: p.holder.querySelector(".panel-title")?.textContent || p.u.axes[1].label || "" })); })()`)
	if len(plots) < 4 {
		t.Fatalf("%d timeline panels drawn through the page's renderer, want A and B for each strategy", len(plots))
	}
	for _, p := range plots {
		if p.Width != plots[0].Width {
			t.Errorf("panel %q has bins of %v ms, panel %q of %v ms: one chart, two bin widths", p.Key, p.Width, plots[0].Key, plots[0].Width)
		}
		if !strings.Contains(p.YLabel, "per ") {
			t.Errorf("panel %q: its title and y axis %q do not name the bin width", p.Key, p.YLabel)
		}
	}
	t.Logf("API bin widths %v ms; drawn at %v ms (%q)", sent, plots[0].Width, plots[0].YLabel)
}

// TestRefineShowsOnlyNewRun changes a scenario whose series the server refines: while the new
// run refines, no chart shows points past the span the new run has computed — never its first
// steps joined to the old run's tail (issue 15, item 14). The lab is a gated one, made
// progressive, whose runs advance one update per step the test lets through, so the page is
// certain to draw the new run while it refines, however fast the machine: the old run showed
// steps 0–9, the new one has sent step 0 and holds.
func TestRefineShowsOnlyNewRun(t *testing.T) {
	g := labtest.NewGated("refine", true)
	g.Lab.Progressive = true
	srv := mustOpenServerWith(t, g.Lab)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	const old = "steps=10&picture=1"
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/refine?"+old)); err != nil {
		t.Fatal(err)
	}
	stepCtx, cancel := context.WithTimeout(context.Background(), waitLimit)
	defer cancel()
	if err := g.Step(stepCtx, old, 10); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, ctx, 0)
	waitDrawn(t, ctx)
	if n := eval[int](t, ctx, `(() => { const d = [...window.__playground.charts.plots.values()][0].u.data; return d[0].length; })()`); n != 10 {
		t.Fatalf("the old run shows %d points, want 10", n)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const p = window.__playground, ch = p.charts, draw = ch.draw;
		p.refineLog = [];
		ch.draw = function (id) {
			const r = draw.apply(this, arguments);
			const run = p.state.run;
			if (run.refine && run.phase === "running") {
				let maxX = -Infinity;
				for (const [k, pl] of ch.plots) {
					if (!k.startsWith(id + "\u0000")) continue;
					const d = pl.u.data;
					d[0].forEach((x, i) => { if (d.slice(1).some((col) => col[i] != null)) maxX = Math.max(maxX, x); });
				}
				p.refineLog.push({ chart: id, run: run.startedId, maxX, done: run.refine.done, total: run.refine.total });
			}
			return r;
		}; })()`)); err != nil {
		t.Fatal(err)
	}
	const next = "n=2&steps=10&picture=1"
	typeValue(t, ctx, textSel("n"), "2")
	if err := g.Step(stepCtx, next, 1); err != nil {
		t.Fatal(err)
	}
	// The new run's first picture (step 0 of 10) drawn while the run holds.
	waitFor(t, ctx, `window.__playground.refineLog.some((e) => e.run === window.__playground.state.run.startedId)`)
	type entry struct {
		Chart             string
		Run               int
		MaxX, Done, Total float64
	}
	log := eval[[]entry](t, ctx, `window.__playground.refineLog.map((e) => ({ Chart: e.chart, Run: e.run, MaxX: e.maxX, Done: e.done, Total: e.total }))`)
	newRun := eval[int](t, ctx, `window.__playground.state.run.startedId`)
	checked := 0
	for _, e := range log {
		if e.Run != newRun {
			continue
		}
		checked++
		// Step i is at x = i; after Done steps the new run has computed x < Done.
		if e.MaxX >= e.Done {
			t.Errorf("%s: while the new run had computed %v of %v steps, the chart showed points up to x=%v (the old run's tail)", e.Chart, e.Done, e.Total, e.MaxX)
		}
	}
	if checked == 0 {
		t.Fatalf("no redraw of the new run while it refined: %v", log)
	}
	if err := g.Step(stepCtx, next, 9); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, ctx)
	t.Logf("%d redraws checked while the new run refined", checked)
}

// TestLegendMatchesSeries switches the load-balancing lab's subsetting: in every chart the
// legend's swatch of each series has the colour the series is drawn in (issue 15, item 15).
func TestLegendMatchesSeries(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+chartPages["loadbalance"])
	waitDrawn(t, ctx)
	type mismatch struct {
		Chart, Label, Legend, Drawn string
	}
	const read = `(() => {
		const out = [];
		for (const sec of document.querySelectorAll("section.chart")) {
			const id = sec.dataset.chart, drawn = new Map();
			for (const [k, p] of window.__playground.charts.plots) {
				if (!k.startsWith(id + "\u0000")) continue;
				p.u.series.forEach((s, i) => { if (i > 0 && s.label && s.width) drawn.set(s.label, typeof s.stroke === "function" ? s.stroke(p.u, i) : s.stroke); });
			}
			for (const li of sec.querySelectorAll(".legend li")) {
				const mark = li.querySelector("line, rect"), label = li.textContent.trim();
				if (!mark) continue;
				const c = mark.getAttribute("stroke"), d = drawn.has(label) ? String(drawn.get(label)) : "no series of this label";
				if (c.toLowerCase() !== d.toLowerCase()) out.push({ Chart: id, Label: label, Legend: c, Drawn: d });
			}
		}
		return out; })()`
	if m := eval[[]mismatch](t, ctx, read); len(m) > 0 {
		t.Errorf("before the switch, legend and series differ: %+v", m)
	}
	prev := lastSent(t, ctx)
	selectOption(t, ctx, `select[name="subsetting"]`, "deterministic")
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	if m := eval[[]mismatch](t, ctx, read); len(m) > 0 {
		t.Errorf("after switching random → deterministic, legend and series differ: %+v", m)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#chart-connections .legend li").length`); n != 1 {
		t.Errorf("connections legend has %d entries, want 1", n)
	}
}

// TestNoRawTitlesInNames: no accessible name on the three labs, their embed view and the
// compare view carries a raw title template such as "{clients}" (issue 15, item 16).
func TestNoRawTitlesInNames(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	pages := []string{chartPages["backoff"], chartPages["ratelimit"], chartPages["loadbalance"], "/embed" + chartPages["backoff"]}
	for _, page := range pages {
		openLab(t, ctx, srv.URL+page)
		waitDrawn(t, ctx)
		checkNames(t, ctx, page)
	}
	a, b := "/backoff?clients=30&trials=5&sweep=off", "/backoff?clients=80&trials=5&sweep=off"
	cmp := "/compare?a=" + url.QueryEscape(a) + "&b=" + url.QueryEscape(b)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+cmp)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__compare && window.__compare.ready`)
	checkNames(t, ctx, cmp)
}

// checkNames fails the test for every node of the page's accessibility tree whose name holds
// a parameter of a lab in braces ("{clients}"), and for a page with too few named nodes to
// mean anything.
func checkNames(t *testing.T, ctx context.Context, page string) {
	t.Helper()
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]bool{}
	for _, l := range labs.Registry().All() {
		for _, sp := range l.Params {
			params[sp.Name] = true
		}
	}
	named, images := 0, 0
	for _, n := range tree.Nodes {
		if n.Ignored || n.Name == nil {
			continue
		}
		name := string(n.Name.Value)
		if name == "" || name == `""` {
			continue
		}
		named++
		if n.Role != nil && strings.Contains(string(n.Role.Value), "image") {
			images++
		}
		for _, m := range rawTitle.FindAllString(name, -1) {
			if params[m[1:len(m)-1]] {
				t.Errorf("%s: accessible name %s holds a raw title template", page, name)
				break
			}
		}
	}
	if named < 10 || images == 0 {
		t.Errorf("%s: %d named nodes, %d named images: the tree was not read", page, named, images)
	}
}

package e2e

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The browser test of issue 17's "Drags keep every chart moving": while one viewer drags a
// slider, every chart on the page — each panel of small multiples on its own — is redrawn
// with newer values several times (a count, not a gap), and "busy" never shows. The figures
// (the largest gap between two redraws of each panel with newer values) are logged; they are
// printed as one table with PLAYGROUND_MEASURE=1 (docs/speed.md, "How to measure").

// panelLogJS records, at each redraw of the page's charts, a fingerprint of the numbers each
// panel shows (every series' points, and the bands'), so that a test can tell a redraw with
// newer values from one that repeats what was drawn: window.__panels, {t, panel, id, sum}.
const panelLogJS = `(() => {
  const p = window.__playground, ch = p.charts, log = (window.__panels = []);
  const view = p.state.spec.view;
  const fp = (s) => { let h = s.x.length; for (let i = 0; i < s.x.length; i++) h = (h * 31 + s.x[i] * 7 + s.y[i] * 13) % 1e9; return h; };
  const sum = (panel) => {
    let h = 0;
    for (const s of panel.series) {
      h = (h * 17 + fp(s)) % 1e9;
      const b = ch.results.bandsOf(s.name);
      if (b.lo) h = (h * 17 + fp(b.lo)) % 1e9;
      if (b.hi) h = (h * 17 + fp(b.hi)) % 1e9;
    }
    return h;
  };
  // window.__panelSums: every panel's fingerprint now, by panel.
  window.__panelSums = () => Object.fromEntries(view.charts.flatMap((c) => ch.panels(c).map((panel) => [c.id + (panel.key ? "/" + panel.key : ""), sum(panel)])));
  ch.results.addEventListener("draw", (e) => {
    const now = performance.now();
    for (const id of e.detail.charts) {
      const chart = view.charts.find((c) => c.id === id);
      if (!chart) continue;
      for (const panel of ch.panels(chart)) log.push({ t: now, panel: id + (panel.key ? "/" + panel.key : ""), sum: sum(panel) });
    }
  });
})()`

type panelDraw struct {
	T     float64 `json:"t"`
	Panel string  `json:"panel"`
	Sum   float64 `json:"sum"`
}

// dragCase is a drag of one slider: from the page at path, an input every 30 ms, each
// setting the slider to to(i) (its position, i counting inputs from 0).
type dragCase struct {
	name, path, slider string
	to                 func(start float64, i int) float64
}

var dragCases = []dragCase{
	{"base at clients=500", "/backoff?clients=500", "base", func(s float64, i int) float64 { return s + float64(i) }},
	{"subset size 5→150", "/loadbalance?subset=5", "subset", subsetDrag},
	{"limit", "/ratelimit", "limit", func(s float64, i int) float64 { return s + float64(i) }},
}

// subsetDrag moves subset size from 5 to 150 in 99 inputs, then back and forth between 150 and
// 6 for as long as the drag lasts: every input a new value (a drag that stayed at 150 would ask
// for nothing more, and how many pictures arrive before it gets there depends on the
// machine), never the starting one (a panel whose numbers at the last value are those at the
// first is taken not to depend on the slider).
func subsetDrag(_ float64, i int) float64 {
	if i <= 99 {
		return 5 + float64(i)*145/99
	}
	j := (i - 99) % 198
	if j <= 99 {
		return 150 - float64(j)*144/99
	}
	return 6 + float64(j-99)*144/99
}

// TestDragEveryChart drags base (backoff, clients=500), subset size 5→150 (load balancing) and
// limit (rate limiter), an input every 30 ms for at least 3 s and on until every panel of
// every chart has been redrawn with newer values at least `several` times during the drag, or
// up to 300 inputs. A panel whose numbers moved fewer times (a coarse picture can be the same
// numbers at many slider values) must have been redrawn with newer runs' numbers as often.
func TestDragEveryChart(t *testing.T) {
	srv := MustOpenServer(t)
	var table []string
	for _, dc := range dragCases {
		t.Run(strings.Fields(dc.name)[0], func(t *testing.T) {
			table = append(table, dragEvery(t, srv.URL, dc))
		})
	}
	t.Logf("largest redraw gap of each panel with newer values during 3-s drags (input every 30 ms):\n%s", strings.Join(table, "\n"))
}

func dragEvery(t *testing.T, url string, dc dragCase) string {
	const (
		every     = 30 * time.Millisecond
		minInputs = 100
		maxInputs = 300
		several   = 3
	)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, url+dc.path)
	waitDrawn(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](panelLogJS)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](calibrateJS)); err != nil {
		t.Fatal(err)
	}
	start := eval[float64](t, ctx, fmt.Sprintf(`Number(document.querySelector(%q).value)`, rangeSel(dc.slider)))
	// Every panel the scenario draws: a chart with nothing to show at the start (a sweep
	// switched off) depends on no slider.
	all := eval[[]string](t, ctx, `(() => { const p = window.__playground;
		return p.state.spec.view.charts.flatMap((c) => p.charts.panels(c).filter((x) => x.series.some((s) => s.x.length > 0)).map((x) => c.id + (x.key ? "/" + x.key : ""))); })()`)
	if len(all) == 0 {
		t.Fatalf("%s: no panel drawn before the drag", dc.name)
	}
	// changes returns, per panel, the times of its redraws with numbers other than it showed
	// before, from page time from on.
	changes := func(from float64) map[string][]float64 {
		out := map[string][]float64{}
		last := map[string]float64{}
		for _, d := range eval[[]panelDraw](t, ctx, `window.__panels`) {
			if prev, ok := last[d.Panel]; ok && prev == d.Sum {
				continue
			}
			last[d.Panel] = d.Sum
			if d.T >= from {
				out[d.Panel] = append(out[d.Panel], d.T)
			}
		}
		return out
	}
	enough := func(ch map[string][]float64) bool {
		for _, p := range all {
			if len(ch[p]) < several {
				return false
			}
		}
		return true
	}
	before := eval[map[string]float64](t, ctx, `window.__panelSums()`)
	var at []float64
	tick := time.NewTicker(every)
	for i := 1; i <= maxInputs; i++ {
		<-tick.C
		at = append(at, eval[float64](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector(%q); const t = performance.now();
			s.value = %v; s.dispatchEvent(new Event("input", { bubbles: true })); return t; })()`, rangeSel(dc.slider), dc.to(start, i))))
		if i >= minInputs && i%10 == 0 && enough(changes(at[0])) {
			break
		}
	}
	tick.Stop()
	begin, end := at[0], at[len(at)-1]
	calib := readCalibration(t, ctx)
	ch := changes(begin)
	// A panel whose final numbers at the drag's last value are those it showed before the drag
	// does not depend on the slider (the writes of "none" do not depend on base): it is not
	// asked to move.
	waitSettled(t, ctx, 0)
	after := eval[map[string]float64](t, ctx, `window.__panelSums()`)
	var figs []string
	for _, p := range all {
		if before[p] == after[p] {
			figs = append(figs, p+" does not depend on "+dc.slider)
			continue
		}
		var during []float64
		for _, x := range ch[p] {
			if x <= end {
				during = append(during, x)
			}
		}
		gap := maxGap(during, begin, end)
		chart, _, _ := strings.Cut(p, "/")
		runs := newerRuns(t, ctx, chart, begin, end)
		if len(during) >= several {
			// Beside the gaps between new numbers, those between newer runs' pictures: where the
			// first is the longer, the run was drawn in time but its numbers were those shown.
			figs = append(figs, fmt.Sprintf("%s %d×, max gap %.0fms (newer runs %d×, max gap %.0fms)", p, len(during), gap, len(runs), maxGap(runs, begin, end)))
			continue
		}
		// Its numbers moved fewer times: a coarse picture can be the same numbers at many
		// values of the slider (errors, where no request of the first picture failed). The
		// chart must then still have been redrawn with newer runs' numbers.
		if len(runs) < several {
			t.Errorf("%s: %s was redrawn with newer values %d times, and with newer runs' numbers %d times, in a drag of %d inputs (%.1fs), want at least %d",
				dc.name, p, len(during), len(runs), len(at), (end-begin)/1000, several)
		} else {
			figs = append(figs, fmt.Sprintf("%s %d× (same numbers for %d newer runs, max gap %.0fms), max gap %.0fms", p, len(during), len(runs), maxGap(runs, begin, end), gap))
		}
	}
	for _, s := range eval[[]statusAt](t, ctx, `window.__playground.statusTimes`) {
		if s.T >= begin && strings.Contains(strings.ToLower(s.Text), "busy") {
			t.Errorf("%s: the status said %q %.0f ms into the drag", dc.name, s.Text, s.T-begin)
		}
	}
	if errs := eval[[]string](t, ctx, `window.__playground.errors`); len(errs) > 0 {
		t.Errorf("%s: errors during the drag: %q", dc.name, errs)
	}
	slices.Sort(figs)
	return fmt.Sprintf("  %s (%d inputs, %.1fs): %s; page: %s", dc.name, len(at), (end-begin)/1000, strings.Join(figs, "; "), calib)
}

// newerRuns returns the page times of the redraws of a chart, between page times from and to,
// that showed the numbers of a newer run than it showed before (window.__playground.redraws).
func newerRuns(tb testing.TB, ctx context.Context, chart string, from, to float64) []float64 {
	tb.Helper()
	return eval[[]float64](tb, ctx, fmt.Sprintf(`(() => { let last = -1; const at = [];
		for (const r of window.__playground.redraws) {
			if (r.panel !== "chart:" + %q) continue;
			if (r.id > last && r.t >= %v && r.t <= %v) at.push(r.t);
			last = Math.max(last, r.id);
		}
		return at; })()`, chart, from, to))
}

// maxGap returns the longest time between begin, the times at (in order, within the span)
// and end.
func maxGap(at []float64, begin, end float64) float64 {
	gap, prev := 0.0, begin
	for _, x := range append(slices.Clone(at), end) {
		gap, prev = max(gap, x-prev), x
	}
	return gap
}

package e2e

import (
	"slices"
	"testing"
)

// drawnPanel is one uPlot panel as the page drew it.
type drawnPanel struct {
	Chart   string      `json:"chart"`
	Key     string      `json:"key"`
	X       []float64   `json:"x"`      // the x axis's range
	Widths  []float64   `json:"widths"` // each series' bar width (histograms), x's unit
	Data    [][]float64 `json:"data"`   // x, then each series' y (null as 0)
	XLabels []string    `json:"xLabels"`
	YLabels []string    `json:"yLabels"`
	XAxis   bool        `json:"xAxis"` // carries the x axis's ticks and label
	Kind    string      `json:"kind"`
}

const readPanels = `[...window.__playground.charts.plots].map(([k, p]) => {
	const [chart, key] = k.split("\u0000");
	const c = window.__playground.state.spec.view.charts.find((c) => c.id === chart);
	const labels = (a) => (a._values || []).filter((v) => v !== "" && v != null).map(String);
	// Without declared widths, bars are as wide as their points' spacing (one point: the axis).
	const xs = p.u.data[0], step = xs.length > 1 ? xs[1] - xs[0] : p.u.scales.x.max - p.u.scales.x.min;
	const widths = p.u.data.slice(1).map((c, i) => p.ctx.widths?.[i] || step);
	return { chart, key, x: [p.u.scales.x.min, p.u.scales.x.max], widths,
		data: p.u.data.map((col) => Array.from(col, (v) => v ?? 0)), xLabels: labels(p.u.axes[0]), yLabels: labels(p.u.axes[1]),
		xAxis: !!p.u.axes[0].label, kind: c.kind || "lines" };
})`

// TestWritesOverTimeFollowsData opens the backoff lab at caps from 100 ms to 24 h and a few
// client counts (issue 30, item 4: at cap=1h the histograms were blocks across a 22-hour axis,
// no bin narrower than 8.74 min, No backoff done in 2 s). In every panel of "Writes over time":
// no bin is wider than a tenth of the visible time axis, the data fill at least a quarter of it
// (the axis follows the data: a strategy done in seconds is not drawn on an axis of hours), and
// the bars are drawn as wide as their bins. Every axis of every chart on the page that carries
// labels carries at least two different ones (at cap=24h the time axes had none).
func TestWritesOverTimeFollowsData(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, q := range []string{"cap=100ms", "cap=2s", "cap=2s&clients=500", "cap=1m", "cap=1h", "cap=1h&clients=20", "cap=24h",
		"cap=24h&base=1m&retries=200"} {
		page := "/backoff?strategies=none,exponential,full,equal,decorrelated,constant,linear&trials=5&sweep=10:50:20&" + q
		t.Run(q, func(t *testing.T) {
			openLab(t, ctx, srv.URL+page)
			waitDrawn(t, ctx)
			panels := eval[[]drawnPanel](t, ctx, readPanels)
			timeline := 0
			for _, p := range panels {
				if p.XAxis && len(p.XLabels) > 0 && len(distinct(p.XLabels)) < 2 {
					t.Errorf("%s %s: x tick labels %q, want at least two different ones", p.Chart, p.Key, p.XLabels)
				}
				if len(p.YLabels) > 0 && len(distinct(p.YLabels)) < 2 {
					t.Errorf("%s %s: y tick labels %q, want at least two different ones", p.Chart, p.Key, p.YLabels)
				}
				if p.XAxis && len(p.XLabels) == 0 {
					t.Errorf("%s %s: an x axis without tick labels", p.Chart, p.Key)
				}
				if p.Chart != "timeline" {
					continue
				}
				timeline++
				span := p.X[1] - p.X[0]
				if len(p.Widths) == 0 || slices.Max(p.Widths) <= 0 {
					t.Fatalf("%s: no bar widths %v", p.Key, p.Widths)
				}
				if w := slices.Max(p.Widths); w > span/10 {
					t.Errorf("%s: bins of %g ms on a time axis of %g ms: wider than a tenth of it", p.Key, w, span)
				}
				// The data's end: the end of the last bin with writes.
				end := 0.0
				for _, ys := range p.Data[1:] {
					for i, y := range ys {
						if y > 0 {
							end = max(end, p.Data[0][i]+slices.Max(p.Widths))
						}
					}
				}
				if end-p.X[0] < span/4 {
					t.Errorf("%s: writes end at %g ms on a time axis from %g to %g ms: the axis does not follow the data", p.Key, end, p.X[0], p.X[1])
				}
			}
			if timeline < 7 {
				t.Errorf("%d panels of writes over time, want one per strategy (7)", timeline)
			}
		})
	}
}

// distinct returns the different strings of list.
func distinct(list []string) []string {
	out := slices.Clone(list)
	slices.Sort(out)
	return slices.Compact(out)
}

package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadBalanceLatencyChart: the load-balancing lab draws its latency distribution, one line
// per policy in the lab's styles, on a logarithmic latency axis written in durations, and the
// policies table shows the queueing share.
func TestLoadBalanceLatencyChart(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/loadbalance?clients=40&backends=40&subset=8&duration=5s&rate=5&policy=round_robin,least_loaded")
	type plot struct {
		Distr  int      `json:"distr"`
		Labels []string `json:"labels"`
		Min    float64  `json:"min"`
		Max    float64  `json:"max"`
		Ticks  []string `json:"ticks"`
	}
	got := eval[plot](t, ctx, `(() => {
		const p = window.__playground.charts.plots.get("latency\u0000");
		if (!p) return {};
		const u = p.u;
		return { distr: u.scales.x.distr, labels: u.series.slice(1).map((s) => s.label), min: u.scales.x.min, max: u.scales.x.max,
			ticks: [...p.holder.querySelectorAll(".u-axis")].length ? (u.axes[0]._values || []).filter((v) => v) : [] };
	})()`)
	if got.Distr != 3 {
		t.Errorf("latency chart's x scale: distr %d, want 3 (logarithmic)", got.Distr)
	}
	var want []string // the policies' labels, as the page names them
	for _, sp := range lookupLab(t, "loadbalance").Params {
		if sp.Name == "policy" {
			want = []string{sp.OptionLabel("round_robin"), sp.OptionLabel("least_loaded")}
		}
	}
	if fmt.Sprint(got.Labels) != fmt.Sprint(want) {
		t.Errorf("latency chart's lines %v, want one per policy: %v", got.Labels, want)
	}
	if !(got.Min > 0 && got.Max/got.Min > 10) {
		t.Errorf("latency axis from %v to %v ms: want more than a decade of latencies", got.Min, got.Max)
	}
	t.Logf("latency axis %.3g to %.3g ms, ticks %q", got.Min, got.Max, got.Ticks)
	for _, tick := range got.Ticks {
		if !strings.HasSuffix(tick, " ms") && !strings.HasSuffix(tick, " s") {
			t.Errorf("latency axis tick %q is no duration (ticks %q)", tick, got.Ticks)
		}
	}
	if len(got.Ticks) < 2 {
		t.Errorf("latency axis ticks %q: want a tick per decade", got.Ticks)
	}
	head := eval[string](t, ctx, `[...document.querySelectorAll("#table-policies th")].map((th) => th.textContent).join("|")`)
	if want := "of it queueing"; !strings.Contains(head, want) {
		t.Errorf("policies table headings %q lack %q", head, want)
	}
}

// TestSweepOffNote: on the plain load-balancing and rate-limiter pages, whose sweeps are off by
// default, every sweep chart shows a note saying so instead of an empty frame; its button turns
// the sweep on (into the URL) and the charts draw at the sweep's points.
func TestSweepOffNote(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct {
		page   string
		charts []string
		on     string
		points int
	}{
		{"/loadbalance", []string{"sweep_conn", "sweep_cpu", "sweep_p99"}, "sweep=20:300:40", 8},
		{"/loadbalance", []string{"load_p99", "load_queue"}, "load_sweep=50:100:10", 6},
		{"/ratelimit", []string{"sweep_error", "sweep_worst"}, "sweep=1:31:6", 6},
	} {
		t.Run(tc.page[1:]+"_"+tc.charts[0], func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			openLab(t, ctx, srv.URL+tc.page)
			type box struct {
				Note    string `json:"note"`
				Shown   bool   `json:"shown"`
				Hidden  bool   `json:"hidden"`
				Points  int    `json:"points"`
				Enabled bool   `json:"enabled"`
			}
			read := func(chart string) box {
				return eval[box](t, ctx, fmt.Sprintf(`(() => {
					const s = document.getElementById("chart-" + %q), n = s.querySelector(".off-note");
					const p = window.__playground.charts.plots.get(%q + "\u0000");
					return { note: n ? n.textContent : "", shown: !!n && !n.hidden && n.offsetHeight > 0,
						hidden: s.querySelector(".plots").hidden, points: p ? p.u.data[0].length : 0,
						enabled: !!n && !n.querySelector("button").disabled };
				})()`, chart, chart))
			}
			for _, c := range tc.charts {
				b := read(c)
				if !b.Shown || !strings.HasPrefix(b.Note, "Sweep off — turn on") || !b.Enabled {
					t.Errorf("%s: note %q (shown %v, button enabled %v), want a visible note with a button that turns the sweep on", c, b.Note, b.Shown, b.Enabled)
				}
				if !b.Hidden || b.Points != 0 {
					t.Errorf("%s with the sweep off: plots hidden %v, %d points; want no frame", c, b.Hidden, b.Points)
				}
			}
			t.Logf("%s: %q", tc.charts[0], read(tc.charts[0]).Note)
			prev := lastSent(t, ctx)
			click(t, ctx, "#chart-"+tc.charts[0]+" .off-note button")
			if waitSettled(t, ctx, prev) {
				t.Fatalf("turning the sweep on: the server refused the run: %v", eval[any](t, ctx, `window.__playground.errors`))
			}
			for _, c := range tc.charts { // drawn at the next frame after the run's last update
				waitFor(t, ctx, fmt.Sprintf(`window.__playground.charts.plots.get(%q + "\u0000")?.u.data[0].length === %d`, c, tc.points))
			}
			if url := eval[string](t, ctx, `location.search`); !strings.Contains(url, tc.on) {
				t.Errorf("after the click the URL is %q, want %s in it", url, tc.on)
			}
			for _, c := range tc.charts {
				if b := read(c); b.Shown || b.Hidden || b.Points != tc.points {
					t.Errorf("%s after the click: note shown %v, plots hidden %v, %d points; want the chart at %d points", c, b.Shown, b.Hidden, b.Points, tc.points)
				}
			}
		})
	}
}

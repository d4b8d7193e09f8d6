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
	if fmt.Sprint(got.Labels) != "[round_robin least_loaded]" {
		t.Errorf("latency chart's lines %v, want one per policy: [round_robin least_loaded]", got.Labels)
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

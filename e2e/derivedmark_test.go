package e2e

import (
	"fmt"
	"strings"
	"testing"
)

// TestLoadSweepMarksTheLoad: the latency-vs-load charts mark the scenario's own offered load
// (a value derived from rate, clients and backends, not a slider: the chart's mark_value),
// written as the summary's load_pct is, and the mark follows a move of the rate. The
// rate limiter's latency sweep has a logarithmic y axis, so that the stores admitting all
// that is offered do not flatten the others.
func TestLoadSweepMarksTheLoad(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/loadbalance?clients=20&backends=10&subset=5&duration=10s&load_sweep=40:100:20")
	mark := func(chart string) string {
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector("#chart-%s .plot")?.dataset.mark ?? "no plot"`, chart))
	}
	load := func() string {
		return eval[string](t, ctx, `(() => { const x = window.__playground.summary.load_pct; return typeof x === "number" ? String(x) : "none"; })()`)
	}
	first := load()
	for _, c := range []string{"load_p99", "load_queue"} {
		if got := mark(c); !strings.HasPrefix(got, "this scenario's load = ") || !strings.HasSuffix(got, "%") {
			t.Errorf("%s marks %q, want this scenario's load (load_pct %s)", c, got, first)
		}
	}
	before := mark("load_p99")
	value := stepRight(t, ctx, "rate")
	if load() == first {
		t.Fatalf("moving the rate to %s left load_pct at %s", value, first)
	}
	if got := mark("load_p99"); got == before || !strings.HasPrefix(got, "this scenario's load = ") {
		t.Errorf("after moving the rate to %s (load_pct %s → %s), load_p99 marks %q (was %q)", value, first, load(), got, before)
	}
	t.Logf("load_pct %s → %s: marks %q → %q", first, load(), before, mark("load_p99"))

	openLab(t, ctx, srv.URL+rlLatencySweep)
	if d := eval[int](t, ctx, `window.__playground.charts.plots.get("latency_admitted\u0000")?.u.scales.y.distr ?? 0`); d != 3 {
		t.Errorf("latency_admitted y scale distr %d, want 3 (logarithmic)", d)
	}
}

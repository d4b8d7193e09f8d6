package e2e

import "testing"

// TestRateLimitBoundaryPreset opens the rate-limiter lab on the Criteo post's boundary case:
// the page shows the fixed window's 2× spike (its exact count reaches twice the limit) while
// the sliding log stays at the limit, with the numbers of the JSON API; then a control
// changes the URL and the charts.
func TestRateLimitBoundaryPreset(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/ratelimit?algorithms=fixed_window,sliding_log&traffic=boundary&load=1&duration=4s")
	matchesAPI(t, ctx, srv.URL, "ratelimit", "boundary preset")

	most := eval[map[string]float64](t, ctx, `(() => {
		const a = window.__playground.summary.algorithms;
		const exact = Object.values(window.__playground.series).find((s) => s.name === "exact fixed_window");
		return { fixed: a.fixed_window.max_in_window, log: a.sliding_log.max_in_window, spike: Math.max(...exact.y) };
	})()`)
	if most["fixed"] != 2000 || most["log"] != 1000 {
		t.Errorf("most in a window: fixed window %v, sliding log %v; want 2000 and 1000", most["fixed"], most["log"])
	}
	if most["spike"] < 1900 {
		t.Errorf("the fixed window's exact count peaks at %v on the page, want the 2× spike near 2000", most["spike"])
	}
	rows := eval[int](t, ctx, `document.querySelectorAll("#table-algorithms tbody tr").length`)
	if rows != 2 {
		t.Errorf("table rows = %d, want 2", rows)
	}

	before := readState(t, ctx)
	prev := lastSent(t, ctx)
	selectOption(t, ctx, `#controls select[name="traffic"]`, "bursty")
	if waitSettled(t, ctx, prev) {
		t.Fatalf("run after the change failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
	}
	after := readState(t, ctx)
	if got, ok := queryParam(t, ctx, "traffic"); !ok || got != "bursty" {
		t.Errorf("traffic in URL = %q (present %v), want bursty", got, ok)
	}
	if after.Charts["count"] == before.Charts["count"] || after.Charts["rate"] == before.Charts["rate"] {
		t.Errorf("the charts did not change with the traffic")
	}
	matchesAPI(t, ctx, srv.URL, "ratelimit", "bursty")
}

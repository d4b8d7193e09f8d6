package e2e

import (
	"context"
	"fmt"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// lbSweep is a small load-balancing scenario with a sweep of subset sizes.
const lbSweep = "/loadbalance?clients=40&backends=40&subset=8&duration=3s&rate=2&policy=round_robin&sweep=4:40:12"

// TestLoadBalanceSweep: the subset-size sweep draws its lines (connections for every
// subsetting, CPU for random and deterministic) at the sweep's sizes, marks the chosen subset
// size, and after the subset slider moves marks the new size and shows what the API computes.
func TestLoadBalanceSweep(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+lbSweep)
	xs := func(chart, label string) string {
		return eval[string](t, ctx, fmt.Sprintf(`(() => {
			const s = Object.values(window.__playground.series).find((s) => s.chart === %q && s.label === %q);
			return s ? s.x.join(",") : "";
		})()`, chart, label))
	}
	for _, c := range []struct{ chart, label string }{
		{"sweep_conn", "random"}, {"sweep_conn", "deterministic"}, {"sweep_conn", "rendezvous"}, {"sweep_conn", "aperture"},
		{"sweep_cpu", "random"}, {"sweep_cpu", "deterministic"}, {"sweep_p99", "random"},
	} {
		if got := xs(c.chart, c.label); got != "4,16,28,40" {
			t.Errorf("%s %s drawn at subset sizes %q, want 4,16,28,40", c.chart, c.label, got)
		}
	}
	mark := func(chart string) string {
		return eval[string](t, ctx, fmt.Sprintf(`document.querySelector("#chart-%s .plot")?.dataset.mark ?? "no plot"`, chart))
	}
	for _, chart := range []string{"sweep_conn", "sweep_cpu", "sweep_p99"} {
		if got := mark(chart); got != "Subset size = 8" {
			t.Errorf("%s marks %q, want Subset size = 8", chart, got)
		}
	}
	before := readState(t, ctx)
	value := stepRight(t, ctx, "subset")
	for _, chart := range []string{"sweep_conn", "sweep_cpu"} {
		if got, want := mark(chart), "Subset size = "+value; got != want {
			t.Errorf("after the move %s marks %q, want %q", chart, got, want)
		}
	}
	after := readState(t, ctx)
	if after.Charts["sweep_conn"] != before.Charts["sweep_conn"] {
		t.Errorf("moving subset changed the connection sweep, which does not depend on it")
	}
	if after.Charts["connections"] == before.Charts["connections"] {
		t.Errorf("moving subset left the connections histogram as it was")
	}
	matchesAPI(t, ctx, srv.URL, "loadbalance", "subset="+value)
}

// TestRateLimitSweep: the rate limiter's sub-window sweep draws at the sweep's k, marks the
// chosen sub-windows and follows a move of the slider.
func TestRateLimitSweep(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/ratelimit?algorithms=sliding_window,subwindows&limit=100&duration=10s&sweep=1:9:4")
	for _, chart := range []string{"sweep_error", "sweep_worst"} {
		got := eval[string](t, ctx, fmt.Sprintf(`(() => {
			const s = Object.values(window.__playground.series).find((s) => s.chart === %q && s.label === "subwindows");
			return s ? s.x.join(",") : "";
		})()`, chart))
		if got != "1,5,9" {
			t.Errorf("%s drawn at k = %q, want 1,5,9", chart, got)
		}
	}
	mark := func() string {
		return eval[string](t, ctx, `document.querySelector("#chart-sweep_error .plot")?.dataset.mark ?? "no plot"`)
	}
	if got := mark(); got != "Sub-windows k = 4" {
		t.Errorf("sweep_error marks %q, want Sub-windows k = 4", got)
	}
	openGroups(t, ctx) // sub-windows k is in the Algorithms group
	value := stepRight(t, ctx, "subwindows")
	if got, want := mark(), "Sub-windows k = "+value; got != want {
		t.Errorf("after the move sweep_error marks %q, want %q", got, want)
	}
	matchesAPI(t, ctx, srv.URL, "ratelimit", "subwindows="+value)
}

// stepRight moves the slider of parameter name one step right, waits for the run it starts to
// settle and returns the new value.
func stepRight(t *testing.T, ctx context.Context, name string) string {
	t.Helper()
	orig, prev := textValue(t, ctx, name), lastSent(t, ctx)
	sendKeys(t, ctx, rangeSel(name), kb.ArrowRight)
	if waitSettled(t, ctx, prev) {
		t.Fatalf("run after moving %s failed: %v", name, eval[[]string](t, ctx, `window.__playground.errors`))
	}
	value := textValue(t, ctx, name)
	if value == orig {
		t.Fatalf("the arrow key left %s at %s", name, orig)
	}
	return value
}

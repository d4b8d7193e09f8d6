package e2e

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// rlLatencySweep is a small rate-limiter scenario with a sweep of store latencies.
const rlLatencySweep = "/ratelimit?algorithms=sliding_log&limit=100&load=2&duration=10s&instances=4&store=async&store_latency=20ms&latency_sweep=0:40:20&instances_sweep=8:8:1"

// TestRateLimitLatencySweep: the store-latency sweep draws a line per store at the sweep's
// latencies (the sliding log runs on increments only as GET then SET), and one for
// asynchronous propagation on 8 instances (instances_sweep), with the limit, the
// offered rate and the compare-and-swap ceiling; it marks the chosen store latency, and after
// the store latency slider moves it marks the new latency, draws a point there (the chosen
// latency joins the sweep) and shows what the API computes.
func TestRateLimitLatencySweep(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+rlLatencySweep)
	xs := func(label string) string {
		return eval[string](t, ctx, fmt.Sprintf(`(() => {
			const s = Object.values(window.__playground.series).find((s) => s.chart === "latency_admitted" && s.label === %q);
			return s ? s.x.join(",") : "";
		})()`, label))
	}
	for _, label := range []string{"get_set", "racy", "cas", "async", "async, 8 instances"} {
		if got := xs(label); got != "0,20,40" {
			t.Errorf("latency_admitted %s drawn at %q ms, want 0,20,40", label, got)
		}
	}
	for _, label := range []string{"limit", "offered", "cas ceiling"} {
		if xs(label) == "" {
			t.Errorf("latency_admitted has no %s line", label)
		}
	}
	// What people read names the stores by their labels, also a store on other instances than
	// the scenario's (issue 30: "async, 8 instances" was shown as such).
	shown := eval[[]string](t, ctx, `[...window.__playground.charts.plots].filter(([k]) => k.startsWith("latency_admitted")).flatMap(([k, p]) => p.u.series.slice(1).map((s) => String(s.label)))`)
	for _, want := range []string{"Async propagation (Kafka), 8 instances", "Compare-and-swap ceiling", "GET then SET (no atomic update)"} {
		if !slices.Contains(shown, want) {
			t.Errorf("latency_admitted shows %q, want %q among them", shown, want)
		}
	}
	for _, l := range shown {
		if raw := regexp.MustCompile(`^(async|cas|racy|incr|atomic|local|get_set)\b`); raw.MatchString(l) {
			t.Errorf("latency_admitted shows the raw store name in %q", l)
		}
	}
	mark := func() string {
		return eval[string](t, ctx, `document.querySelector("#chart-latency_admitted .plot")?.dataset.mark ?? "no plot"`)
	}
	if got := mark(); got != "Store latency = 20 ms" {
		t.Errorf("latency_admitted marks %q, want Store latency = 20 ms", got)
	}
	openGroups(t, ctx) // store latency is in the Distributed group
	value := stepRight(t, ctx, "store_latency")
	if got := mark(); !strings.HasPrefix(got, "Store latency = ") || got == "Store latency = 20 ms" {
		t.Errorf("after moving store latency to %s latency_admitted marks %q", value, got)
	}
	// The chosen latency is a point of the sweep: the async line now has four.
	if got := xs("async"); strings.Count(got, ",") != 3 || !strings.HasPrefix(got, "0,20,") || !strings.HasSuffix(got, ",40") {
		t.Errorf("after moving store latency to %s the async line is drawn at %q ms, want 0, 20, the new latency and 40", value, got)
	}
	matchesAPI(t, ctx, srv.URL, "ratelimit", "store_latency="+value)
}

package backoff

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
)

// costSettings span the parameter space beside clients, strategies, trials and sweep: every
// slider's extremes and the combinations that change how much work a client does — sleeps far
// shorter and far longer than the network, steep and flat growth, and networks that keep the
// clients in lockstep (no variance, or a microsecond of it on a second's hop), which the
// estimate once under-counted 10–25×.
var costSettings = []string{
	"", // the post's setting
	"multiplier=1&base=100us&cap=1ms&latency_mean=1s&latency_sd=1us", // every client collides every round
	"base=100us&cap=1ms",                 // sleeps far shorter than the network
	"base=1m&cap=24h",                    // sleeps far longer
	"latency_sd=0s",                      // lockstep network
	"latency_mean=0s&latency_sd=0s",      // no network at all
	"multiplier=10&cap=24h",              // steep growth
	"latency_sd=1s",                      // network noise far above its mean
	"base=10ms&cap=100ms&multiplier=1.5", // sleeps about the network's
	"latency_mean=1s&latency_sd=1s&base=1ms",
	"latency_mean=1s&latency_sd=0s&base=100us&cap=1ms", // lockstep on the longest hop
	"latency_mean=1s&latency_sd=1us",                   // nearly lockstep
	"base=60s&cap=24h&multiplier=10&latency_mean=0s&latency_sd=1s",
	"base=60s&cap=1ms", // the cap below the base
	"multiplier=1&base=100us&cap=1ms&latency_mean=0s&latency_sd=1ms",
	"multiplier=1.05&base=100us&cap=24h&latency_mean=100us&latency_sd=0s",
}

// TestCostWithinTwice compares the cost estimate with the work runs really do (World.Work,
// counted as they run), over a grid of settings that includes the extremes of every slider:
// the estimate must be within 2× either way, so that the budget refuses only what is really
// too big and admits nothing much bigger, and CostBound must bound the work.
func TestCostWithinTwice(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t) // the estimate's arithmetic: nothing for the race detector
	sizes := []int{1, 2, 7, 60, 250, 1000}
	settings := costSettings
	var queries []string
	for _, set := range settings {
		for _, n := range sizes {
			queries = append(queries, fmt.Sprintf("strategies=none,constant,linear,exponential,full,equal,decorrelated&trials=2&sweep=off&clients=%d&%s", n, set))
		}
		queries = append(queries, "clients=5&trials=2&sweep=10:250:80&"+set)
	}
	queries = append(queries,
		"clients=1&trials=1000&sweep=off",                               // the most trials
		"clients=10&trials=1000&sweep=off&latency_sd=0s",                // the most trials, in lockstep
		"strategies=full&clients=1000&latency_sd=0s&sweep=off&trials=3", // the blind spot of issue 18
		"strategies=exponential&multiplier=1&base=100us&cap=1ms&clients=1000&trials=3&sweep=off&latency_mean=1s&latency_sd=1us",
	)
	queries = append(queries, "strategies=none,full&trials=1&sweep=1:1000:10") // the longest sweep
	var worst float64 = 1
	for _, q := range queries {
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner()
		l := r.lab()
		est, bound := l.Cost(v), l.CostBound(v)
		if _, err := l.Execute(context.Background(), v, nil); err != nil {
			t.Fatal(err)
		}
		real := r.work.Load()
		ratio := float64(max(est, 1000)) / float64(max(real, 1000)) // a thousand units are nothing
		worst = math.Max(worst, math.Max(ratio, 1/ratio))
		if ratio > 2 || ratio < 0.5 {
			t.Errorf("%s: estimate %d units, real %d (×%.2f)", q, est, real, ratio)
		}
		if bound < real {
			t.Errorf("%s: bound %d below the real work %d", q, bound, real)
		}
	}
	t.Logf("worst estimate off by ×%.2f", worst)
}

package backoff

import (
	"context"
	"fmt"
	"math"
	"testing"
)

// TestCostWithinTwice compares the cost estimate with the events runs really simulate, over a
// grid of settings that includes the extremes of every slider: the estimate must be within 2×
// either way, so that the budget refuses only what is really too big.
func TestCostWithinTwice(t *testing.T) {
	settings := []string{
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
	}
	sizes := []int{1, 2, 7, 60, 250, 1000}
	if raceEnabled || testing.Short() {
		sizes = []int{1, 7, 60, 250}
	}
	var worst float64 = 1
	for _, set := range settings {
		queries := []string{}
		for _, n := range sizes {
			queries = append(queries, fmt.Sprintf("strategies=none,constant,linear,exponential,full,equal,decorrelated&trials=2&sweep=off&clients=%d", n))
		}
		queries = append(queries, "clients=5&trials=2&sweep=10:250:80")
		for _, q := range queries {
			if set != "" {
				q += "&" + set
			}
			v, err := Params.ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			r := newRunner()
			l := r.lab()
			est := l.Cost(v)
			before := r.events.Load()
			if _, err := l.Execute(context.Background(), v, nil); err != nil {
				t.Fatal(err)
			}
			real := r.events.Load() - before
			ratio := float64(est) / float64(real)
			worst = math.Max(worst, math.Max(ratio, 1/ratio))
			if ratio > 2 || ratio < 0.5 {
				t.Errorf("%s: estimate %d events, real %d (×%.2f)", q, est, real, ratio)
			}
		}
	}
	t.Logf("worst estimate off by ×%.2f", worst)
}

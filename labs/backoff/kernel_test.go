package backoff

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/engine"
)

// opaque hides a policy's type from the world, which then calls its Sleep through the
// interface, as the world did before it prepared policies.
type opaque struct{ p backoff.Policy }

func (o opaque) Sleep(attempt int, prev time.Duration, r backoff.Rand) time.Duration {
	return o.p.Sleep(attempt, prev, r)
}

// TestPreparedPolicySameSimulation checks that the world's prepared policies (a table of each
// attempt's growth, the jitter drawn by the world) give every strategy exactly the simulation
// its policy's own Sleep gives: the same writes, completion, histogram of write times and work,
// at multipliers that take Ldexp and Pow, at 1 and many clients, and with retries beyond the
// prepared attempts.
func TestPreparedPolicySameSimulation(t *testing.T) {
	for _, name := range []string{"none", "constant", "linear", "exponential", "full", "equal", "decorrelated"} {
		for _, m := range []float64{2, 1.5} {
			for _, n := range []int{1, 37, 300} {
				p := Policy(name, time.Millisecond, time.Second, m)
				cfg := Config{Clients: n, Policy: p, LatencyMean: 10 * time.Millisecond, LatencySD: 2 * time.Millisecond, Seed: 3, Trial: 5}
				var w, ref World
				h, hr := engine.NewHistogram(time.Millisecond, 64), engine.NewHistogram(time.Millisecond, 64)
				got, err := w.Simulate(context.Background(), cfg, h)
				if err != nil {
					t.Fatal(err)
				}
				cfg.Policy = opaque{p}
				want, err := ref.Simulate(context.Background(), cfg, hr)
				if err != nil {
					t.Fatal(err)
				}
				if got != want || !reflect.DeepEqual(h, hr) || w.Work() != ref.Work() && !usesPow(p) {
					t.Errorf("%s, r=%v, %d clients: prepared %+v (work %d), through Sleep %+v (work %d)", name, m, n, got, w.Work(), want, ref.Work())
				}
			}
		}
	}
}

// BenchmarkAttemptDraws measures the part of a failed attempt no faster kernel with the same
// results can skip: the four normal draws of its hops (SplitMix64 and the ziggurat) and the
// hops' arithmetic, exactly as Simulate computes them, alone on one client's stream — a floor
// under BenchmarkReferenceSweep's ns/attempt (docs/operating.md, "The kernel against the reference").
func BenchmarkAttemptDraws(b *testing.B) {
	var s engine.Source
	engine.Seed(&s, 1, engine.Network, 0, 0)
	mean, sd := float64(10*time.Millisecond), float64(2*time.Millisecond)
	hop := func(x float64) time.Duration { return time.Duration(math.Abs(mean + sd*x)) }
	var x [4]float64
	var at time.Duration
	for b.Loop() {
		s.Normals(x[:])
		at += hop(x[0]) + hop(x[1]) + hop(x[2]) + hop(x[3])
	}
	if at < 0 {
		b.Fatal(at)
	}
}

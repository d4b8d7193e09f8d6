package backoff_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

const draws = 100_000

// sample returns min, max and mean of draws sleeps of p at attempt after prev.
func sample(p backoff.Policy, attempt int, prev time.Duration, seed uint64) (lo, hi time.Duration, mean float64) {
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	lo, hi = maxDur, 0
	var sum float64
	for range draws {
		d := p.Sleep(attempt, prev, r)
		lo, hi = min(lo, d), max(hi, d)
		sum += float64(d)
	}
	return lo, hi, sum / draws
}

func TestDistribution(t *testing.T) {
	tests := []struct {
		name     string
		p        backoff.Policy
		attempt  int
		prev     time.Duration
		lo, hi   time.Duration // every sleep in [lo, hi)
		wantMean float64       // within 1%
	}{
		// v = 100ms·2^3 = 800ms; U(0, v) has mean v/2.
		{"full", backoff.FullJitter{Base: 100 * ms, Cap: 10 * time.Second}, 3, 0, 0, 800 * ms, 400e6},
		// v capped at 1s.
		{"full/capped", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 12, 0, 0, time.Second, 500e6},
		{"full/r=1.5", backoff.FullJitter{Base: 100 * ms, Multiplier: 1.5}, 2, 0, 0, 225 * ms, 112.5e6},
		// v/2 + U(0, v/2) has mean 3v/4.
		{"equal", backoff.EqualJitter{Base: 100 * ms, Cap: 10 * time.Second}, 3, 0, 400 * ms, 800 * ms, 600e6},
		{"equal/capped", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 12, 0, 500 * ms, time.Second, 750e6},
		// U(Base, 3p): mean (Base + 3p)/2.
		{"decorrelated/first", backoff.Decorrelated{Base: 100 * ms}, 1, 0, 100 * ms, 300 * ms, 200e6},
		{"decorrelated", backoff.Decorrelated{Base: 100 * ms}, 4, 300 * ms, 100 * ms, 900 * ms, 500e6},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, mean := sample(tt.p, tt.attempt, tt.prev, uint64(i))
			if lo < tt.lo || hi >= tt.hi {
				t.Errorf("sleeps in [%v, %v], want within [%v, %v)", lo, hi, tt.lo, tt.hi)
			}
			if rel := math.Abs(mean-tt.wantMean) / tt.wantMean; rel > 0.01 {
				t.Errorf("mean %v, want %v ± 1%%", time.Duration(mean), time.Duration(tt.wantMean))
			}
		})
	}
}

// TestDecorrelatedCapped checks the bounds [Base, min(Cap, 3p)] when the cap
// binds: U(100ms, 900ms) capped at 500ms piles half of the mass on the cap.
func TestDecorrelatedCapped(t *testing.T) {
	p := backoff.Decorrelated{Base: 100 * ms, Cap: 500 * ms}
	r := rand.New(rand.NewPCG(7, 8))
	atCap := 0
	for range draws {
		d := p.Sleep(2, 300*ms, r)
		if d < 100*ms || d > 500*ms {
			t.Fatalf("sleep %v outside [100ms, 500ms]", d)
		}
		if d == 500*ms {
			atCap++
		}
	}
	if frac := float64(atCap) / draws; math.Abs(frac-0.5) > 0.01 {
		t.Errorf("%.3f of sleeps at the cap, want 0.5 ± 0.01", frac)
	}
}

package ratelimit

import (
	"math"
	"time"

	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted in units of roughly the same CPU time (a few tens
// of nanoseconds): one per arrival drawn; a few per decision of each algorithm, per request
// accounted against the exact window, per store operation or message; one per counter an
// INCR round trip reads; one per 8 timestamps a sliding log copies (a read-then-write or
// compare-and-swap copies the whole log the store returned) and per 4 it merges
// (asynchronous propagation merges each admission into every other instance's log). The
// work therefore follows the arrival rate, load·limit/window, times the duration — a 10 ms
// window at the default limit is a hundred times the work of a 1 s one — and, for the stores
// that copy or propagate, the limit and the instances.
//
// CostBound is a cheap upper bound from the expected arrivals and the worst work per
// arrival. Cost simulates a prefix of the scenario (about pilotWork units, on slices of at
// most pilotArrivals arrivals) and extrapolates the work per arrival of its second half to
// the rest of the expected arrivals; a scenario whose whole run fits the pilot is counted
// exactly. A pilot that stops within its first two windows may not have seen the work per
// arrival settle (sliding logs fill up during the first window); its estimate is then raised
// to the geometric mean of the extrapolation and CostBound.

// Pilot limits.
const (
	pilotWork     = 1 << 20
	pilotArrivals = 1000
)

// CostBound is a cheap upper bound of the work units of scenario v.
func CostBound(v param.Values) int64 {
	s := scenarioOf(v)
	return int64(math.Min((1.2*expectedArrivals(s)+1000)*boundPerArrival(s), math.MaxInt64/2))
}

// boundPerArrival is the most work units one arrival can cause.
func boundPerArrival(s scenario) float64 {
	perArrival := 1.0 // drawing it
	m := float64(s.instances)
	for _, name := range s.algorithms {
		w := 8.0 // deciding and accounting, with any store
		copies := 0.0
		if name == "sliding_log" {
			copies = float64(s.limit)
		}
		counters := name == "fixed_window" || name == "sliding_window" || name == "subwindows"
		switch s.store {
		case "racy":
			w += 3 + copies/8
		case "cas":
			w += maxAttempts * (4 + copies/8)
		case "incr":
			if counters {
				w += float64(s.subwindows + 4)
			} else {
				w += 3 + copies/8
			}
		case "async":
			if counters || name == "sliding_log" {
				w += m * (2 + copies/4)
			}
		}
		perArrival += w
	}
	return perArrival
}

// Cost estimates the work units of scenario v from a pilot simulation of its beginning: the
// work so far plus, for the arrivals still expected, the work per arrival of the pilot's
// second half. The pilot's slices are small enough that it stops near pilotWork units.
func (r *runner) Cost(v param.Values) int64 {
	key := v.Encode()
	r.mu.Lock()
	c, ok := r.costs[key]
	r.mu.Unlock()
	if ok {
		return c
	}
	c = pilotCost(v)
	r.mu.Lock()
	if len(r.costs) >= costMemoSize {
		clear(r.costs) // a crude bound: pilots are cheap to redo
	}
	r.costs[key] = c
	r.mu.Unlock()
	return c
}

// costMemoSize is how many scenarios' estimates a lab keeps.
const costMemoSize = 1024

// pilotCost is Cost without the memo.
func pilotCost(v param.Values) int64 {
	s := scenarioOf(v)
	sim := newSimulation(s)
	expected := expectedArrivals(s)
	perSlice := math.Max(1, math.Min(pilotArrivals, pilotWork/(8*boundPerArrival(s))))
	n := int64(math.Max(64, math.Ceil(expected/perSlice)))
	d := int64(s.duration)
	var work int64
	type mark struct{ arrived, work int64 }
	var marks []mark
	for i := int64(1); i <= n; i++ {
		end := int64(float64(d) * float64(i) / float64(n))
		final := i == n
		sim.arrive(time.Duration(end), final)
		for _, w := range sim.worlds {
			w.advance(sim.batch, final)
		}
		work += sim.takeWork()
		marks = append(marks, mark{sim.arrived, work})
		if work > pilotWork && !final {
			mid := marks[len(marks)/2]
			if len(marks) < 2 {
				mid = mark{}
			}
			perArrival := float64(work-mid.work) / float64(max(sim.arrived-mid.arrived, 1))
			est := float64(work) + perArrival*math.Max(expected-float64(sim.arrived), 0)
			if end < 2*int64(s.window) {
				// Within its first two windows the pilot's work per arrival may still be
				// growing (logs filling up): move towards the bound.
				est = math.Max(est, math.Sqrt(est*float64(CostBound(v))))
			}
			return int64(math.Min(est, math.MaxInt64/2))
		}
	}
	return work
}

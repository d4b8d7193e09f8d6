package ratelimit

import (
	"math"
	"time"

	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted in units of roughly the same CPU time (tens of
// nanoseconds): one per arrival drawn, a few per decision of each algorithm and per request
// accounted against the exact window, one per store operation or message, and one per 16
// timestamps a sliding log copies or merges (a read-then-write or compare-and-swap copies
// the whole log the store returned; asynchronous propagation merges each admission into every
// other instance's log). The work therefore follows the arrival rate, load·limit/window,
// times the duration — a 10 ms window at the default limit is a hundred times the work of a
// 1 s one — and, for the stores that copy or propagate, the limit and the instances.
//
// CostBound is a cheap upper bound from the expected arrivals and the worst work per
// arrival. Cost simulates a prefix of the scenario (at most pilotWork units, on slices of at
// most pilotArrivals arrivals) and extrapolates the rate of its second half over the rest
// of the duration; a scenario whose whole run fits the pilot is counted exactly.

// Pilot limits.
const (
	pilotWork     = 1 << 20
	pilotArrivals = 1000
)

// CostBound is a cheap upper bound of the work units of scenario v.
func CostBound(v param.Values) int64 {
	s := scenarioOf(v)
	arrivals := 1.2*expectedArrivals(s) + 1000
	perArrival := 1.0 // drawing it
	m := float64(s.instances)
	for _, name := range s.algorithms {
		w := 8.0 // deciding and accounting, with any store
		copies := 0.0
		if name == "sliding_log" {
			copies = float64(s.limit) / 16
		}
		counters := name == "fixed_window" || name == "sliding_window" || name == "subwindows"
		switch s.store {
		case "racy":
			w += 2 + copies
		case "cas":
			w += maxAttempts * (3 + copies)
		case "incr":
			if counters {
				w += float64(s.subwindows+4) / 4
			} else {
				w += 2 + copies
			}
		case "async":
			if counters || name == "sliding_log" {
				w += m * (1 + copies)
			}
		}
		perArrival += w
	}
	return int64(math.Min(arrivals*perArrival, math.MaxInt64/2))
}

// Cost estimates the work units of scenario v from a pilot simulation of its beginning.
func (r *runner) Cost(v param.Values) int64 {
	s := scenarioOf(v)
	sim := newSimulation(s)
	n := int64(math.Max(64, math.Ceil(expectedArrivals(s)/pilotArrivals)))
	d := int64(s.duration)
	var work int64
	type mark struct {
		end  int64
		work int64
	}
	var marks []mark
	for i := int64(1); i <= n; i++ {
		end := int64(float64(d) * float64(i) / float64(n))
		final := i == n
		sim.arrive(time.Duration(end), final)
		for _, w := range sim.worlds {
			w.advance(sim.batch, final)
		}
		work += sim.takeWork()
		marks = append(marks, mark{end, work})
		if work > pilotWork && !final {
			// Extrapolate the work rate of the pilot's second half.
			mid := marks[len(marks)/2]
			if len(marks) < 2 {
				mid = mark{}
			}
			rate := float64(work-mid.work) / float64(max(end-mid.end, 1))
			return int64(math.Min(float64(work)+rate*float64(d-end), math.MaxInt64/2))
		}
	}
	return work
}

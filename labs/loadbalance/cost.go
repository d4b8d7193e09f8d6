package loadbalance

import (
	"math"

	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted as it runs (World.Work, subsetsWork, compareWork) in
// the units of the server's budget, some 30–90 ns of computing each on the reference machine
// in every lab (BenchmarkWorkUnit): workScale units per event's worth of computing — two
// events per request, its arrival and its completion, one per sampling interval, one per
// pickScan backends read by pickers that look at every backend of the subset (least-loaded and
// weighted round robin), one per scanPerWorkUnit backends measured at the end of a sampling
// interval, one per client and per connsPerEvent connections set up, and two more per request
// when the connections outgrow the CPU's caches. The requests are known in advance — clients ×
// rate × duration on average, whatever the policy, since arrivals do not depend on it — so the
// estimate is a formula; TestCostWithinTwice checks it against the work counted over the
// parameter space, extremes included. Failed requests have no completion, so errors only make
// the estimate higher. Subsetting (every client's subset, and every algorithm's churn at small
// sizes) is counted as well: a unit per connection made, and workScale per scanPerWorkUnit
// backends rendezvous hashing scores.

// simWork estimates the work of the traffic simulations of scenario s, in World.Work units.
func simWork(s Scenario) float64 {
	requests := float64(s.Clients) * s.Rate * s.Duration.Seconds()
	samples := float64((s.Duration + sampleEvery(s.Duration) - 1) / sampleEvery(s.Duration))
	perSubset := float64(s.Subset)
	if s.Subsetting == "aperture" {
		perSubset += float64(s.Backends)/float64(s.Clients) + 1
	}
	total := 0.0
	for _, p := range s.Policies {
		w := 2*requests + samples + samples*float64(s.Backends)/scanPerWorkUnit +
			float64(s.Clients) + float64(s.Clients)*float64(s.Subset)/connsPerEvent
		if s.Clients*s.Subset > cachedConns {
			w += 2 * requests
		}
		if scans(p) {
			w += requests * perSubset / pickScan
		}
		total += w
	}
	return workScale * total
}

// subsetWork is the work of subsetting scenario s: the chosen algorithm's subsets, and the
// comparison of every algorithm with its churn at small sizes.
func subsetWork(s Scenario) float64 {
	return float64(subsetsWork(s.Subsetting, s) + compareWork(s))
}

// Cost estimates the work of scenario v. It is a formula, cheap enough to serve as the
// lab's CostBound too.
func Cost(v param.Values) int64 {
	s := ScenarioOf(v)
	return int64(math.Ceil(simWork(s) + subsetWork(s)))
}

package loadbalance

import (
	"math"

	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is its simulations' (World.Work), in units of about the
// computing of one event of the backoff lab, some 30–60 ns (the server's budget is counted in
// those): workScale units per event — two per request, its arrival and its completion, and one
// per sampling interval — and as many per scanPerWorkUnit backends read by pickers that look at
// every backend of the subset (least-loaded and weighted round robin) or measured at the end
// of a sampling interval. The requests are known in advance — clients × rate × duration on
// average, whatever the policy, since arrivals do not depend on it — so the estimate is a
// formula; TestCostWithinTwice checks it against the work measured. Failed requests have no
// completion, so errors only make the estimate higher. Subsetting (every client's subset, and
// every algorithm's churn at small sizes) is counted as well, workScale units per connection.

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
		w := 2*requests + samples + samples*float64(s.Backends)/scanPerWorkUnit
		if scans(p) {
			w += requests * perSubset / scanPerWorkUnit
		}
		total += w
	}
	return workScale * total
}

// subsetWork estimates the work of subsetting scenario s: one unit per connection of every
// algorithm compared, rendezvous scoring every backend for every client, ten times over when
// churn is measured.
func subsetWork(s Scenario) float64 {
	conns := float64(s.Clients) * float64(s.Subset)
	if s.Clients*s.Backends <= compareLimit {
		return workScale * 10 * (4*conns + float64(s.Clients)*float64(s.Backends)/scanPerWorkUnit)
	}
	if s.Subsetting == "rendezvous" {
		return workScale * (conns + float64(s.Clients)*float64(s.Backends)/scanPerWorkUnit)
	}
	return workScale * conns
}

// Cost estimates the work of scenario v. It is a formula, cheap enough to serve as the
// lab's CostBound too.
func Cost(v param.Values) int64 {
	s := ScenarioOf(v)
	return int64(math.Ceil(simWork(s) + subsetWork(s)))
}

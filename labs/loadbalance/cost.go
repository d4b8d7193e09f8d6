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
// backends rendezvous hashing scores. So is drawing each policy's latency distribution
// (latencyWork), and each of the sweep's simulations' once, for the memo.

// simWork estimates the work of the traffic simulations of scenario s, in World.Work units.
func simWork(s scenario) float64 {
	requests := float64(s.Clients) * s.Rate * s.Duration.Seconds()
	samples := float64(scenarioSamples(s))
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

// scenarioSamples is the number of sampling intervals of scenario s (environment.Samples).
func scenarioSamples(s scenario) int {
	return int((s.Duration + sampleEvery(s.Duration) - 1) / sampleEvery(s.Duration))
}

// latencyWork bounds the work of the policies' latency distributions (cdfWork each): a run
// computes them at most once per step of its simulation (a short first step of at least
// firstStep's least, then steps of stepOf), and not at all for the policies the memo holds.
func latencyWork(s scenario) float64 {
	samples, step := scenarioSamples(s), stepOf(s, chunkWork)
	_, least := firstStep(s, samples, step)
	steps := 1 + (samples-least+step-1)/step
	return float64(len(s.Policies)*steps) * cdfWork
}

// subsetWork is the work of subsetting scenario s: the chosen algorithm's subsets, and the
// comparison of every algorithm with its churn at small sizes.
func subsetWork(s scenario) float64 {
	return float64(subsetsWork(s.Subsetting, s) + compareWork(s))
}

// costOf estimates the work of scenario v. It is a formula, cheap enough to serve as the
// lab's CostBound too.
func costOf(v param.Values) int64 {
	s := scenarioOf(v)
	return int64(math.Ceil(simWork(s) + latencyWork(s) + subsetWork(s) + sweepWork(s) + loadSweepWork(s)))
}

// memoryOf estimates the most memory a run of scenario v holds at once, in bytes: what grows
// with the parameters. Subsets come first (4 bytes a connection, kept for the run); then either
// the comparison of every algorithm with its churn (at small sizes: another algorithm's
// subsets and the flat lists of 8 bytes a connection, grown by appending, that measuring churn
// builds, some 36 bytes a connection in all) or the simulations, side by side: per policy 20 bytes a connection (48 more for weighted round robin's weights and
// credits), some 80 bytes a client and 200 a backend, the requests in flight (about 80 bytes
// each: their slot and their completion event) and the event queue, and the result's per-backend
// table. TestMemory checks it against the heap a run really allocates.
func memoryOf(v param.Values) int64 {
	setup, compare, sims := memoryParts(scenarioOf(v))
	return int64(setup + max(compare, sims))
}

// memoryParts is memoryOf's parts: the subsets, the comparison, and the simulations with the
// result and the sweep's simulations. A run computes the comparison beside the simulations
// when both fit MaxRunMemory, else after them.
func memoryParts(s scenario) (setup, compare, sims float64) {
	conns := float64(s.Clients) * float64(s.Subset)
	c, b := float64(s.Clients), float64(s.Backends)
	setup = 4*conns + 24*c + 32*b
	if s.Clients*s.Backends <= compareLimit {
		compare = 36*conns + 8*c + 8*b
	}
	for _, p := range s.Policies {
		w := 20*conns + 80*c + 200*b + 80*inFlight(s) + 32*c + loopBytes
		if p == "weighted" {
			w += 48 * conns
		}
		sims += w
	}
	sims += b*(200+60*float64(len(s.Policies))) + sweepMemory(s) + loadSweepMemory(s) // the result, the sweeps
	return setup, compare, sims
}

// loopBytes is an event queue's fixed size (engine.Loop's buckets and slots).
const loopBytes = 200 << 10

// inFlight estimates the most requests in flight at once: by Little's law, the arrival rate
// times the time a request stays (the mean cost, longer as the load nears the capacity), and
// at most what the backends hold (cores busy and queueLimit waiting each).
func inFlight(s scenario) float64 {
	most := float64(s.Backends) * (cores + queueLimit)
	rho := loadPct(s) / 100
	if rho >= 0.9 {
		return most
	}
	return min(most, 1.5*float64(s.Clients)*s.Rate*meanCost.Seconds()/(1-rho))
}

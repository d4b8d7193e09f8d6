package retrystorm

import (
	"math"
	"time"

	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted as it runs, one unit per event its worlds deliver
// (engine.Loop.Work): a request's arrival, and for each attempt about five — sent after a
// sleep, reaching its callee, served, answered, timed out — plus a sampling interval's end.
// How many attempts a request makes depends on what the run will show (a storm or none), so
// the estimate bounds it: before the trigger, on a service that is not overloaded and answers
// well within the timeout, an attempt or so per request (calmAttempts); from the trigger on,
// as many as the policy can allow — N retries for N retries, the circuit breaker and
// throttling, and for the budgets what their tokens admit over the run (retryBound) — at each
// layer. The estimate is therefore within 2× of the work counted where a storm happens and
// where none can (TestCostBoundsWork), and above it by up to the retries' bound where a storm
// could happen and does not: an upper bound, so that an admitted run never outgrows it.

// eventsPerAttempt is the events of one attempt (sent after a sleep, reaching its callee,
// served, answered, timed out).
const eventsPerAttempt = 5

// calmAttempts bounds the attempts per request before the trigger, on a healthy service: a
// few requests' last attempt times out in the tail of the latency.
const calmAttempts = 1.1

// costOf estimates the work of a run of scenario v, in work units.
func costOf(v param.Values) int64 {
	s := scenarioOf(v)
	total := 0.0
	for _, t := range unitScenarios(s) {
		for _, p := range s.Policies {
			total += simCost(t, p)
		}
	}
	return int64(math.Min(total, math.MaxInt64/2))
}

// unitScenarios returns the scenarios a run of s simulates: s, then its sweeps' points.
func unitScenarios(s scenario) []scenario {
	out := []scenario{s}
	for _, x := range s.Sweep {
		t := s
		t.Trigger, t.Failure = "outage", float64(x)/100
		out = append(out, t)
	}
	for _, c := range s.ClientSweep {
		t := s
		t.Clients = int(c)
		out = append(out, t)
	}
	return out
}

// requests returns the requests scenario s's clients make, on average, and the share of them
// made before the trigger.
func requests(s scenario) (total, calm float64) {
	d := s.Duration.Seconds()
	total = s.Rate * d
	if s.Trigger == "spike" {
		total += s.Rate * (s.Spike - 1) * (min(s.TriggerStart+s.TriggerLength, s.Duration) - s.TriggerStart).Seconds()
	}
	if !triggered(s) {
		return total, 1
	}
	return total, s.Rate * s.TriggerStart.Seconds() / total
}

// triggered reports whether scenario s's trigger changes anything: an outage that fails no
// call, a capacity drop to the whole capacity or a spike to the same rate do not.
func triggered(s scenario) bool {
	switch s.Trigger {
	case "outage":
		return s.Failure > 0
	case "capacity":
		return s.Degraded < 1
	case "spike":
		return s.Spike > 1
	}
	return false
}

// healthy reports whether scenario s's service, untroubled, is well under its capacity and
// answers well within the timeout: its first tries then hardly ever fail. The latency it
// takes is the service time and the network's, and, for Brooker's model or a queue of few
// workers, the growth of the wait with the load (S/(1−ρ)).
func healthy(s scenario) bool {
	rho := s.Rate / s.Capacity
	if rho >= 0.8 {
		return false
	}
	latency := s.ServiceTime.Seconds()
	if s.Service == "concurrency" || s.Capacity*s.ServiceTime.Seconds() < 10 {
		latency /= 1 - rho
	}
	return latency+2*s.Network.Seconds() <= s.Timeout.Seconds()/5
}

// attemptsBound bounds the attempts per request policy p lets one layer's requests make in
// scenario s, when that layer gets req requests over the run, calm of them before the
// trigger.
func attemptsBound(s scenario, p string, req, calm float64) float64 {
	storm := 1 + retryBound(s, p, req)
	if stormFree(s) {
		// Only the outage fails calls: 1 + x + … + x^N attempts (with a tenth more for the
		// latency's tail).
		x := 0.0
		if s.Trigger == "outage" {
			x = s.Failure
		}
		a := 0.0
		for k := 0; k <= s.Retries; k++ {
			a += math.Pow(x, float64(k))
		}
		storm = min(storm, calmAttempts*a)
	}
	if !healthy(s) {
		calm = 0
	}
	return calm*min(calmAttempts, storm) + (1-calm)*storm
}

// stormFree reports whether scenario s's service stays healthy even if every request makes all
// its attempts, during the trigger too: no timeout then fails a call, only the outage.
func stormFree(s scenario) bool {
	t := s
	t.Rate *= math.Pow(float64(s.Retries+1), float64(s.Layers))
	switch s.Trigger {
	case "spike":
		t.Rate *= s.Spike
	case "capacity":
		t.Capacity *= s.Degraded
	}
	return healthy(t)
}

// retryBound bounds the retries per request policy p allows a layer's req requests over a run
// of scenario s (see the policies' documentation in algorithms/retry): what their buckets and
// budgets hold to start with and earn per request, never more than N per request.
func retryBound(s scenario, p string, req float64) float64 {
	n := float64(s.Retries)
	c := float64(s.Clients)
	req = max(req, 1)
	run := s.Duration.Seconds() + 10 // deposits live ten seconds beyond
	switch p {
	case "none":
		return 0
	case "adaptive": // 0.1 a first try, 5 to start with
		return min(n, 0.1+5*c/req)
	case "grpc": // 0.1 a success, 5 tokens above the half to start with
		return min(n, 0.2+5*c/req)
	case "aws": // a retry costs at least 5 of 500 tokens; a success earns 1
		return min(n, 0.2+100*c/req)
	case "budget":
		return min(n, s.BudgetRatio+float64(s.BudgetFloor)*c*run/req)
	case "breaker": // retries stop once failures pass a tenth of the first tries
		return min(n, 0.1+(n+1)*c/req)
	}
	return n
}

// simCost estimates the work of policy p's simulation of scenario s.
func simCost(s scenario, p string) float64 {
	req, calm := requests(s)
	samples := float64(sampleCount(s.Duration))
	work := req + samples
	at := req // requests at this layer
	for range s.Layers {
		calls := at * attemptsBound(s, p, at, calm)
		work += eventsPerAttempt * calls
		at = calls
	}
	return work
}

func sampleCount(d time.Duration) int {
	e := sampleEvery(d)
	return int((d + e - 1) / e)
}

// Memory. What a world holds grows with what is in flight: its requests (72 bytes each) and
// their pending events (32 bytes a node), and the calls at the service (24 bytes each, in the
// queue's chunks, or with an event when in service); every one of them but the queued calls
// in a slice that, as it grows, is for a moment both its old array and the new one, twice as
// long: three times what it holds. A world's event loop has a fixed size
// (loopBytes). The calls at the service are bounded by the calls that can arrive faster than
// the service completes them, over the run; the requests alive by those that arrive during
// one request's longest life.
const (
	requestBytes = 3*72 + 4 + 2*3*32 // a request's slot, its free-list entry, two pending events
	queuedBytes  = 24 + 2            // a call waiting in the queue's chunks (and a share of their list)
	servedBytes  = 3*24 + 3*32       // a call in service, and its event
	loopBytes    = 180 << 10
	worldBytes   = loopBytes + 32<<10 // samples and latency counts
)

// memoryOf estimates the most memory a run of scenario v holds at once, in bytes.
func memoryOf(v param.Values) int64 {
	s := scenarioOf(v)
	total := 0.0
	for _, t := range unitScenarios(s) {
		for _, p := range s.Policies {
			total += simMemory(t, p)
		}
	}
	return int64(math.Min(total, math.MaxInt64/2))
}

// simMemory estimates the most memory policy p's simulation of scenario s holds.
func simMemory(s scenario, p string) float64 {
	req, _ := requests(s)
	rate := s.Rate
	if s.Trigger == "spike" {
		rate *= s.Spike
	}
	// A request lives at most its attempts' timeouts and the sleeps between them; on a healthy
	// service without a trigger, one attempt's.
	life := float64(s.Retries+1)*(s.Timeout.Seconds()+4*s.Network.Seconds()) + longestSleeps(s).Seconds()
	if !triggered(s) && healthy(s) {
		life = calmAttempts * (s.Timeout.Seconds() + 4*s.Network.Seconds())
	}
	alive, at := 0.0, req
	for range s.Layers {
		alive += min(at, rate*life) // the requests of this layer
		a := attemptsBound(s, p, at, 0)
		at *= a
		rate *= a
	}
	capacity := s.Capacity
	if s.Trigger == "capacity" {
		capacity *= s.Degraded
	}
	// The calls at the service: those arriving faster than it completes them pile up.
	backlog := min(at, max(0, rate-capacity)*s.Duration.Seconds()+rate*(s.ServiceTime.Seconds()+s.Timeout.Seconds()))
	if s.Shed == "limit" {
		backlog = min(backlog, float64(s.QueueLimit))
	}
	calls := backlog * queuedBytes
	if s.Service == "queue" {
		calls += math.Round(s.Capacity*s.ServiceTime.Seconds()) * servedBytes
	} else {
		calls = backlog * servedBytes
	}
	return worldBytes + requestBytes*alive + calls
}

// longestSleeps is the longest a request of scenario s can sleep before its retries, in all.
func longestSleeps(s scenario) time.Duration {
	var total time.Duration
	p := backoffOptions.Make(s.Backoff)(s.Base, s.Cap)
	prev := time.Duration(0)
	for n := 1; n <= s.Retries; n++ {
		d := p.Sleep(n, prev, one{})
		total += d
		prev = d
	}
	return total
}

// one is a random source whose every draw is the largest, so that a jittered sleep is its
// longest.
type one struct{}

func (one) Float64() float64 { return 1 }

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
	if !stormPossible(s) {
		// Only the outage fails calls: 1 + x + … + x^N attempts for the requests it meets, one
		// for the others (with a tenth more for the latency's tail).
		during := triggerShare(s)
		return min(storm, calmAttempts*((1-during)+during*outageAttempts(s)))
	}
	if !healthy(s) {
		calm = 0
	}
	return calm*min(calmAttempts, storm) + (1-calm)*storm
}

// outageAttempts is the attempts per request at one layer when only the outage fails calls:
// 1 + x + … + x^N.
func outageAttempts(s scenario) float64 {
	x := 0.0
	if s.Trigger == "outage" {
		x = s.Failure
	}
	a := 0.0
	for k := 0; k <= s.Retries; k++ {
		a += math.Pow(x, float64(k))
	}
	return a
}

// triggerShare is the share of scenario s's requests that arrive during the trigger (the
// retries of those that arrive just before it ignored).
func triggerShare(s scenario) float64 {
	if !triggered(s) {
		return 0
	}
	length := (min(s.TriggerStart+s.TriggerLength, s.Duration) - s.TriggerStart).Seconds()
	req, _ := requests(s)
	rate := s.Rate
	if s.Trigger == "spike" {
		rate *= s.Spike
	}
	return min(1, rate*length/req)
}

// attemptLife bounds how long an attempt of scenario s waits for its answer: the timeout, or
// when no storm is possible the longest the queue can grow to (triggerWait) with the service
// and the network.
func attemptLife(s scenario) float64 {
	t := s.Timeout.Seconds() + 4*s.Network.Seconds()
	if stormPossible(s) {
		return t
	}
	return min(t, triggerWait(s)+s.ServiceTime.Seconds()+4*s.Network.Seconds())
}

// triggerWait is the longest the calls of scenario s wait in the service's queue when only the
// outage fails calls: those that arrive faster than it completes them during the trigger pile
// up.
func triggerWait(s scenario) float64 {
	if !triggered(s) {
		return 0
	}
	rate, capacity := s.Rate*math.Pow(outageAttempts(s), float64(s.Layers)), s.Capacity
	switch s.Trigger {
	case "spike":
		rate *= s.Spike
	case "capacity":
		capacity *= s.Degraded
	}
	length := (min(s.TriggerStart+s.TriggerLength, s.Duration) - s.TriggerStart).Seconds()
	return max(0, rate-capacity) * length / capacity
}

// stormPossible reports whether a storm of timeouts can happen in scenario s: whether calls
// can wait long enough to time out. A healthy service without a trigger never makes them wait
// that long; with a trigger, the calls that arrive faster than the service completes them
// during it — the retries of the outage's failures included — queue up, and a storm is
// possible if their wait can near the timeout. (A service that sheds beyond a queue limit
// fails calls at once instead, and their retries can multiply: possible too.)
func stormPossible(s scenario) bool {
	if !healthy(s) || s.Shed == "limit" {
		return true
	}
	if !triggered(s) {
		return false
	}
	return triggerWait(s)+s.ServiceTime.Seconds()+2*s.Network.Seconds() >= 0.8*s.Timeout.Seconds()
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
	case "circuit": // closed, it lets no more than half the calls of its window fail
		return min(n, 1+100*c/req)
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
	requestBytes = 2*72 + 4 + 2*2*32 // a request's slot, its free-list entry, two pending events (a slice grown by a quarter, past a thousand, holds both arrays a moment)
	queuedBytes  = 24 + 2            // a call waiting in the queue's chunks (and a share of their list)
	servedBytes  = 2*24 + 2*32       // a call in service, and its event (their slices grow by a quarter at a time, past a thousand)
	loopBytes    = 180 << 10
	worldBytes   = loopBytes + 32<<10 // samples and latency counts
)

// memoryOf estimates the most memory a run of scenario v holds at once, in bytes: its
// policies' worlds and the sweeps' first points, or a later batch of the sweeps' points,
// whichever holds more (see phasesOf).
func memoryOf(v param.Values) int64 {
	s := scenarioOf(v)
	most := 0.0
	for _, ph := range phasesOf(s, planOf(s)) {
		sum := 0.0
		for _, u := range ph {
			sum += simMemory(u.scenario, u.policy)
		}
		most = max(most, sum)
	}
	return int64(math.Min(most, math.MaxInt64/2))
}

// simMemory estimates the most memory policy p's simulation of scenario s holds.
func simMemory(s scenario, p string) float64 {
	req, _ := requests(s)
	rate := s.Rate
	if s.Trigger == "spike" {
		rate *= s.Spike
	}
	// A request lives at most its attempts' timeouts and the sleeps between them, as many as
	// the policy allows on average; on a healthy service without a trigger, one attempt's.
	attempt := attemptLife(s)
	sleeps := longestSleeps(s).Seconds() / float64(max(s.Retries, 1))
	alive, at := 0.0, req
	for range s.Layers {
		a := attemptsBound(s, p, at, 0)
		life := a*attempt + (a-1)*sleeps
		if !triggered(s) && healthy(s) {
			life = calmAttempts * attempt
		}
		alive += min(at, rate*life) // the requests of this layer
		at *= a
		rate *= min(a, sustained(p))
	}
	// The calls at the service: those arriving faster than it completes them pile up, before
	// the trigger (only on a service overloaded without it), during it (at its rate and
	// capacity) and after it, and drain where it completes them faster.
	amp := rate / s.Rate // the calls a request makes, its layers' included
	if s.Trigger == "spike" {
		amp /= s.Spike
	}
	start := min(s.TriggerStart, s.Duration).Seconds()
	length := (min(s.TriggerStart+s.TriggerLength, s.Duration) - min(s.TriggerStart, s.Duration)).Seconds()
	if !triggered(s) {
		start, length = s.Duration.Seconds(), 0
	}
	after := s.Duration.Seconds() - start - length
	rateT, capT := s.Rate*amp, s.Capacity
	switch s.Trigger {
	case "spike":
		rateT *= s.Spike
	case "capacity":
		capT *= s.Degraded
	}
	pile := 0.0
	if !healthy(s) {
		pile = max(0, s.Rate*amp-s.Capacity) * start
	}
	pile = max(0, pile+(rateT-capT)*length)
	most := max(pile, pile+(s.Rate*amp-s.Capacity)*after)
	backlog := min(at, most+rate*(s.ServiceTime.Seconds()+s.Timeout.Seconds()))
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

// sustained bounds the calls per request policy p keeps sending to a service that fails
// them for long — what piles up in its queue: the circuit breaker opens once half its window
// fails and then refuses nearly everything, and client-side throttling sends no more than
// twice what the service accepts; the others send what their bounds allow.
func sustained(p string) float64 {
	switch p {
	case "circuit":
		return 1
	case "throttle":
		return 2
	}
	return math.Inf(1)
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

package retry

// DefaultBreakerThreshold is the most failed attempts per request at which [Breaker] still
// retries: CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1) in Brooker's simulator.
const DefaultBreakerThreshold = 0.1

// Breaker is Marc Brooker's retry-only circuit breaker, from "Fixing retries with token buckets
// and circuit breakers" (2022-02-28): a client stops retrying while its failures are too
// frequent, and keeps sending first tries. Once failures are common it sends about one attempt
// per request, where a token bucket still spends its deposits.
//
// The rules are those of CircuitBreakerRetryStrategy and CircuitBreakerRetryCall in his
// simulator, mbrooker/simulator_example (retry_sim/retry_strategy.py, used as
// CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1) in retry_sim.py), read from the code:
//
//   - two counters per client, cumulative from the start, with no window and no decay:
//     calls, incremented when a request starts (its first try only), and failures,
//     incremented for every failed attempt, first tries and retries alike, whether or not
//     it is then retried;
//   - when an attempt fails, its failure is counted first; then a retry goes only if
//     failures / calls is not above the threshold, strictly (failures / calls > 0.1 refuses),
//     and within the request's N retries (the N is the caller's here);
//   - first tries always go; successes change nothing.
//
// Allow counts calls on first tries; Record counts failures (Failure and Timeout both count:
// his simulator has no timeouts); Allow for a retry compares failures/calls with the threshold
// in float64, as the Python code divides its float counters. Because the ratio is cumulative, a
// client that saw many failures long ago keeps refusing retries until enough requests have
// started since: failures/calls falls back to the threshold only as calls grow.
//
// At a failure rate of 0.5 his simulator sends 1.00 attempts per request with 100 clients, and
// with 10, 100 and 1,000 clients at 100 requests a second in all: once open, it sends first
// tries only.
//
// It takes nothing (cost 0) and draws no random numbers. Like every [Policy] it is one client's
// state, not safe for concurrent use.
type Breaker struct {
	calls, failures float64
	threshold       float64
}

// NewBreaker returns a breaker that refuses retries while failed attempts per request exceed
// threshold. A negative or NaN threshold counts as 0: no retry after any failure.
func NewBreaker(threshold float64) *Breaker {
	return &Breaker{threshold: nonNegative(threshold)}
}

// DefaultBreaker returns Brooker's breaker with threshold 0.1.
func DefaultBreaker() *Breaker { return NewBreaker(DefaultBreakerThreshold) }

// Allow counts a first try and lets it go; it lets a retry go unless failures/calls is above the
// threshold. cost is always 0.
func (b *Breaker) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	if attempt <= 0 {
		b.calls++
		return 0, true
	}
	return 0, !b.open()
}

// Record counts a failed attempt (Failure or Timeout); a success changes nothing.
func (b *Breaker) Record(now int64, attempt int, o Outcome, cost int) {
	if o.failed() {
		b.failures++
	}
}

// open reports whether failures/calls is above the threshold. Before any first try (calls = 0,
// which his simulator never meets) any failure opens it.
func (b *Breaker) open() bool {
	if b.calls == 0 {
		return b.failures > 0
	}
	return b.failures/b.calls > b.threshold
}

// Ratio returns failed attempts per request so far, failures/calls (0 before the first try).
func (b *Breaker) Ratio() float64 {
	if b.calls == 0 {
		return 0
	}
	return b.failures / b.calls
}

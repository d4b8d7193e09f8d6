package retry

// Defaults of [Adaptive]: AdaptiveRetryFactory(0.1, 5) in Brooker's simulator.
const (
	DefaultAdaptiveDeposit  = 0.1 // tokens deposited by each request's first try
	DefaultAdaptiveCapacity = 5.0 // most tokens the bucket holds; it starts full
)

// Adaptive is Marc Brooker's retry token bucket, from "Fixing retries with token buckets and
// circuit breakers" (2022-02-28): every request deposits a fraction of a token, every retry
// spends a whole one, and a client retries only while its bucket holds more than one token. So
// retries are bounded, in the long run, to the deposit per request (10% of the requests with
// the default deposit of 0.1), whatever the failure rate, while a quiet client keeps a small
// reserve (the capacity) for bursts of failures.
//
// The rules are those of AdaptiveRetryStrategy in his simulator, mbrooker/simulator_example
// (retry_sim/retry_strategy.py, used as AdaptiveRetryFactory(0.1, 5) in retry_sim.py), read
// from the code:
//
//   - one bucket per client, starting full: bucket = bucket_size;
//   - the deposit is made when a request starts, by its first try only (Call.start calls
//     start(); a retry goes straight to the server), before the call is sent:
//     bucket = min(bucket + deposit, capacity);
//   - a retry is decided when an attempt fails: it goes if bucket > 1.0, strictly, and then
//     takes 1.0 (bucket -= 1.0); otherwise the request ends with its failure;
//   - successes, and failures that are not retried, change nothing.
//
// Allow does exactly that, in float64 arithmetic, the same operations in the same order as the
// Python code (whose floats are IEEE doubles), so a sequence of calls leaves the same bucket bit
// for bit (the tests replay decisions and buckets written by his code). Allow returns cost 1 for a retry (the token taken) and 0 for a first try; Record
// does nothing. Brooker's strategy retries for as long as the bucket allows, with no N of its
// own: to reproduce his runs, give the caller a large N.
//
// At a failure rate of 0.5 his simulator (100 clients × 10 requests a second, 10 s) sends 1.14
// attempts per request; with 100 requests a second split over 10, 100 and 1,000 clients,
// 1.14, 1.47 and 1.89 (run with Python's seed 1): small clients retry on the full bucket they
// started with (each of his clients starts a request at once, then at Poisson times, so at 0.1
// request a second a client makes 2 requests in 10 s on average).
//
// It draws no random numbers. Like every [Policy] it is one client's state, not safe for
// concurrent use.
type Adaptive struct {
	bucket, deposit, capacity float64
}

// NewAdaptive returns a full bucket of capacity tokens that each first try tops up by deposit.
// A negative or NaN deposit or capacity counts as 0 (a zero capacity never retries).
func NewAdaptive(deposit, capacity float64) *Adaptive {
	c := finiteNonNegative(capacity)
	return &Adaptive{bucket: c, deposit: finiteNonNegative(deposit), capacity: c}
}

// DefaultAdaptive returns Brooker's AdaptiveRetryFactory(0.1, 5): a deposit of 0.1 per request
// and a capacity of 5 tokens.
func DefaultAdaptive() *Adaptive {
	return NewAdaptive(DefaultAdaptiveDeposit, DefaultAdaptiveCapacity)
}

// Allow deposits on a first try (always allowed, cost 0) and, for a retry, takes one token if
// the bucket holds more than one (cost 1) or refuses it.
func (a *Adaptive) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	if attempt <= 0 {
		a.bucket = min(a.bucket+a.deposit, a.capacity)
		return 0, true
	}
	if a.bucket > 1.0 {
		a.bucket -= 1.0
		return 1, true
	}
	return 0, false
}

// Record does nothing: the bucket changes only in Allow.
func (a *Adaptive) Record(now int64, attempt int, o Outcome, cost int) {}

// Tokens returns the tokens in the bucket.
func (a *Adaptive) Tokens() float64 { return a.bucket }

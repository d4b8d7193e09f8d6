package retry

import (
	"math"
	"math/rand/v2"
	"strconv"
)

// Outcome is how an attempt that was sent ended.
type Outcome uint8

const (
	Success Outcome = iota // answered in time, successfully
	Failure                // answered with an error (the service failed or refused it)
	Timeout                // no answer within the client's timeout
)

// String returns "success", "failure" or "timeout" (or "outcome(n)" for any other value).
func (o Outcome) String() string {
	switch o {
	case Success:
		return "success"
	case Failure:
		return "failure"
	case Timeout:
		return "timeout"
	}
	return "outcome(" + strconv.Itoa(int(o)) + ")"
}

// failed reports whether o counts as a failed attempt: every outcome but Success.
func (o Outcome) failed() bool { return o != Success }

// Policy decides, for one client, which attempts of its requests are sent. A request's first
// try is attempt 0, its k-th retry attempt k. The caller bounds the retries (N) and sleeps
// between attempts (a backoff.Policy from algorithms/backoff); the policy decides whether an
// attempt may go. now is the caller's time in nanoseconds on a clock that never goes backwards
// (a simulation's clock, or time.Since(start) in real code).
//
// A Policy is one client's state, like a client's state in a simulation: it is for one
// goroutine and not safe for concurrent use. Real code that shares a policy between goroutines
// guards it with a mutex.
type Policy interface {
	// Allow reports whether attempt may be sent at now; prev is the outcome of the request's
	// previous attempt (ignored for attempt 0). cost is what the policy took to let it go (the
	// AWS quota's 5 or 10 tokens; 0 for policies that take nothing), to be handed back to Record.
	// A refused retry ends its request with its last failure; a refused first try (only Circuit
	// and Throttle refuse those) fails the request without a call.
	Allow(now int64, attempt int, prev Outcome) (cost int, ok bool)
	// Record records the outcome of an attempt Allow let through, with the cost Allow returned.
	Record(now int64, attempt int, o Outcome, cost int)
}

// Rand is the random source [Throttle] draws from. Float64 returns a uniform value in [0, 1).
// *math/rand/v2.Rand satisfies it.
type Rand interface {
	Float64() float64
}

// globalRand draws from the top-level functions of math/rand/v2: safe, not reproducible.
type globalRand struct{}

func (globalRand) Float64() float64 { return rand.Float64() }

// nonNegative returns f, or 0 when f is NaN or negative; +Inf stays +Inf.
func nonNegative(f float64) float64 {
	if !(f > 0) {
		return 0
	}
	return f
}

// finiteNonNegative returns f clamped to [0, math.MaxFloat64], NaN as 0.
func finiteNonNegative(f float64) float64 {
	return min(nonNegative(f), math.MaxFloat64)
}

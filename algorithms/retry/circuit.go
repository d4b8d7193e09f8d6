package retry

import (
	"math"
	"strconv"
	"time"
)

// CircuitConfig sets a [Circuit]. The names are resilience4j's CircuitBreakerConfig's.
type CircuitConfig struct {
	// FailureRateThreshold is the failure rate, in percent, at or above which the circuit
	// opens (DEFAULT_FAILURE_RATE_THRESHOLD, 50).
	FailureRateThreshold float64
	// SlidingWindowSize is the number of calls of the closed state's COUNT_BASED window
	// (DEFAULT_SLIDING_WINDOW_SIZE, 100).
	SlidingWindowSize int
	// MinimumNumberOfCalls is the number of calls recorded before the failure rate is
	// computed at all (DEFAULT_MINIMUM_NUMBER_OF_CALLS, 100); resilience4j uses at most the
	// window size (the permitted calls, in the half-open state).
	MinimumNumberOfCalls int
	// WaitDurationInOpenState is how long the open state refuses every call
	// (DEFAULT_WAIT_DURATION_IN_OPEN_STATE, 60 s).
	WaitDurationInOpenState time.Duration
	// PermittedNumberOfCallsInHalfOpenState is the number of trial calls of the half-open
	// state (DEFAULT_PERMITTED_CALLS_IN_HALF_OPEN_STATE, 10).
	PermittedNumberOfCallsInHalfOpenState int
}

// DefaultCircuitConfig is resilience4j's default CircuitBreakerConfig (CircuitBreakerConfig.java):
// 50% failures over a COUNT_BASED window of the last 100 calls, computed once 100 calls are
// recorded; open for 60 s; 10 calls half-open. Do not modify it; copy it.
var DefaultCircuitConfig = CircuitConfig{
	FailureRateThreshold:                  50,
	SlidingWindowSize:                     100,
	MinimumNumberOfCalls:                  100,
	WaitDurationInOpenState:               60 * time.Second,
	PermittedNumberOfCallsInHalfOpenState: 10,
}

// CircuitState is the state of a [Circuit].
type CircuitState uint8

const (
	CircuitClosed   CircuitState = iota // every call goes; outcomes fill the sliding window
	CircuitOpen                         // every call is refused until the wait has passed
	CircuitHalfOpen                     // a few trial calls go and decide
)

// String returns "closed", "open" or "half-open".
func (s CircuitState) String() string {
	switch s {
	case CircuitClosed:
		return "closed"
	case CircuitOpen:
		return "open"
	case CircuitHalfOpen:
		return "half-open"
	}
	return "state(" + strconv.Itoa(int(s)) + ")"
}

// Circuit is a full circuit breaker, resilience4j's CircuitBreaker with a COUNT_BASED sliding
// window: unlike the retry-only [Breaker], while open it refuses first tries too, so a request
// fails at once without a call. Each attempt is one call of the breaker, as when a
// resilience4j Retry decorates a CircuitBreaker-decorated call.
//
// The rules are resilience4j's, read in resilience4j-circuitbreaker
// (CircuitBreakerStateMachine.java, CircuitBreakerMetrics.java, CircuitBreakerConfig.java) and
// resilience4j-core (FixedSizeSlidingWindowMetrics, SnapshotImpl):
//
//   - Closed: every call is permitted. Each outcome is recorded in a ring of the last
//     SlidingWindowSize calls; after each one, once at least MinimumNumberOfCalls
//     (capped at the window size) are recorded, the failure rate failed·100/total, in float32,
//     is compared with the threshold: at or above it (≥), the circuit opens. With the defaults
//     it opens on the 100th call if 50 or more of the 100 failed, never before.
//   - Open: every call is refused (CallNotPermittedException, not recorded) until the clock is
//     strictly after the opening time plus WaitDurationInOpenState; the first call after
//     that moves the circuit to half-open (resilience4j's automatic transition is off by
//     default) and is its first trial. Outcomes that arrive while open, of calls permitted
//     before, are recorded in metrics that are then dropped; here they are ignored.
//   - Half-open: a fresh window of PermittedNumberOfCallsInHalfOpenState calls; that many
//     calls are permitted, the rest refused. Once that many outcomes are recorded (the
//     minimum is capped at the window size), a failure rate at or above the threshold opens the
//     circuit again for another wait, and anything below closes it with a fresh, empty window.
//     Any outcome recorded while half-open counts, whichever state permitted its call.
//
// Timeouts count as failures, as a TimeLimiter's TimeoutException does in resilience4j (every
// exception is recorded by default). The slow-call rate (calls slower than 60 s, threshold
// 100%) is not modelled: a call slower than the client's timeout is a Timeout. The wait is in
// nanoseconds here, where resilience4j truncates it to milliseconds.
//
// It takes nothing (cost 0) and draws no random numbers. Memory is one bool per call of the
// larger window. Like every [Policy] it is one client's state, not safe for concurrent use.
type Circuit struct {
	c     CircuitConfig
	state CircuitState
	until int64 // open: calls are refused while now <= until
	trial int   // half-open: trial calls still to permit

	// The current window: a ring of the last size outcomes, true for a failure.
	ring              []bool
	size, minCalls    int
	head, n, failures int
	threshold         float32
}

// NewCircuit returns a closed circuit configured by c. As resilience4j requires, a threshold
// outside (0, 100] (or NaN) is taken as 100 if above and as the smallest positive float32 if
// not positive; sizes and counts below 1 as 1; a negative wait as 0.
func NewCircuit(c CircuitConfig) *Circuit {
	t := c.FailureRateThreshold
	switch {
	case t > 100:
		t = 100
	case !(t > 0):
		t = math.SmallestNonzeroFloat32
	}
	c.FailureRateThreshold = t
	c.SlidingWindowSize = max(c.SlidingWindowSize, 1)
	c.MinimumNumberOfCalls = max(c.MinimumNumberOfCalls, 1)
	c.PermittedNumberOfCallsInHalfOpenState = max(c.PermittedNumberOfCallsInHalfOpenState, 1)
	c.WaitDurationInOpenState = max(c.WaitDurationInOpenState, 0)
	cb := &Circuit{
		c:         c,
		ring:      make([]bool, max(c.SlidingWindowSize, c.PermittedNumberOfCallsInHalfOpenState)),
		threshold: float32(t),
	}
	cb.reset(c.SlidingWindowSize)
	return cb
}

// DefaultCircuit returns a circuit with resilience4j's defaults, [DefaultCircuitConfig].
func DefaultCircuit() *Circuit { return NewCircuit(DefaultCircuitConfig) }

// reset empties the window and makes it size calls long.
func (cb *Circuit) reset(size int) {
	clear(cb.ring)
	cb.size = size
	cb.minCalls = min(cb.c.MinimumNumberOfCalls, size)
	cb.head, cb.n, cb.failures = 0, 0, 0
}

// Allow lets every call go while closed, none while open until the wait has passed, and the
// permitted number of trials while half-open. cost is always 0. A refused call must not be
// recorded.
func (cb *Circuit) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	switch cb.state {
	case CircuitClosed:
		return 0, true
	case CircuitOpen:
		if now <= cb.until {
			return 0, false
		}
		cb.state = CircuitHalfOpen
		cb.trial = cb.c.PermittedNumberOfCallsInHalfOpenState
		cb.reset(cb.c.PermittedNumberOfCallsInHalfOpenState)
	}
	if cb.trial > 0 {
		cb.trial--
		return 0, true
	}
	return 0, false
}

// Record records the outcome of a permitted call at now and moves the circuit as its window
// decides. Outcomes recorded while open are ignored.
func (cb *Circuit) Record(now int64, attempt int, o Outcome, cost int) {
	if cb.state == CircuitOpen {
		return
	}
	if cb.n == cb.size {
		if cb.ring[cb.head] {
			cb.failures--
		}
	} else {
		cb.n++
	}
	f := o.failed()
	cb.ring[cb.head] = f
	if f {
		cb.failures++
	}
	cb.head = (cb.head + 1) % cb.size
	if cb.n < cb.minCalls {
		return
	}
	rate := float32(cb.failures) * 100 / float32(cb.n) // SnapshotImpl.getFailureRate
	switch {
	case rate >= cb.threshold:
		cb.open(now)
	case cb.state == CircuitHalfOpen:
		cb.state = CircuitClosed
		cb.reset(cb.c.SlidingWindowSize)
	}
}

// open opens the circuit at now.
func (cb *Circuit) open(now int64) {
	cb.state = CircuitOpen
	w := int64(cb.c.WaitDurationInOpenState)
	if now > math.MaxInt64-w {
		cb.until = math.MaxInt64
	} else {
		cb.until = now + w
	}
}

// State returns the circuit's state. An open circuit whose wait has passed stays open until the
// next call to Allow moves it to half-open, as in resilience4j.
func (cb *Circuit) State() CircuitState { return cb.state }

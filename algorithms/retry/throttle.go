package retry

import "time"

// Defaults of [Throttle], from the Google SRE book, chapter 21.
const (
	DefaultThrottleK      = 2.0             // the book's K: accepted requests count K times
	DefaultThrottleWindow = 2 * time.Minute // "the last two minutes of its history"
)

// throttleSlices is the number of time slices of Throttle's window: 1 s each for two minutes.
const throttleSlices = 120

// Throttle is client-side adaptive throttling, from the Google SRE book ("Site Reliability
// Engineering", 2016), chapter 21 "Handling Overload", section "Client-side throttling". Each
// client keeps, over the last two minutes, requests (attempted by the application layer, on top
// of the throttling) and accepts (accepted by the backend), and rejects a new request locally,
// without sending it, with probability
//
//	max(0, (requests − K·accepts) / (requests + 1))
//
// with K = 2 in the book. While the backend accepts everything, requests ≈ accepts and nothing
// is rejected; once the backend rejects, the client keeps sending until requests reach K
// times accepts and then sheds the excess locally, so the backend sees about K times what it
// accepts.
//
// Here requests counts every attempt the client wanted to send, first tries and retries alike,
// those rejected locally included; accepts counts the attempts the backend answered
// successfully (Record with Success; Failure and Timeout are not accepts, so the throttle also
// sheds load while a service fails for reasons other than overload). Allow computes the
// probability from the counts before this attempt (so the first attempt of a fresh client sees
// 0/1), counts the attempt, and rejects it if one draw u from [Rand.Float64] is below the
// probability (u < p). It applies to first tries and to retries alike: a refused first try
// fails its request without a call.
//
// Allow draws exactly one Float64 per call, whatever the state, the attempt and the
// probability (even when it is 0), so that simulations comparing policies on one stream of
// draws per client (common random numbers) stay aligned. Record draws none.
//
// The counts cover a sliding window of 120 slices of window/120 (1 s by default), aligned to
// multiples of the slice width from time zero: the current slice and the 119 before it, so a
// count is forgotten between 119/120 and 120/120 of the window after it was made. Memory is 120
// pairs of counters whatever the rate. Allow returns cost 0. Like every [Policy] it is one
// client's state, not safe for concurrent use.
type Throttle struct {
	w window
	k float64
	r Rand
}

// NewThrottle returns client-side throttling with multiplier k over the given window, drawing
// from r. A negative or NaN k counts as 0 (every request after a failure may be shed); a window
// of less than 120ns counts as 120ns. A nil r draws from the top-level functions of math/rand/v2,
// which are not reproducible; give a seeded *rand.Rand for a reproducible policy.
func NewThrottle(k float64, window time.Duration, r Rand) *Throttle {
	if r == nil {
		r = globalRand{}
	}
	return &Throttle{w: newWindow(max(window, throttleSlices), throttleSlices), k: finiteNonNegative(k), r: r}
}

// DefaultThrottle returns the SRE book's throttling, K = 2 over two minutes, drawing from r.
func DefaultThrottle(r Rand) *Throttle {
	return NewThrottle(DefaultThrottleK, DefaultThrottleWindow, r)
}

// Allow draws one random number, counts the attempt as a request, and lets it go unless the
// draw falls below the rejection probability computed before counting it. cost is always 0.
func (t *Throttle) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	u := t.r.Float64()
	p := t.probability(now)
	t.w.add(now, 1, 0)
	return 0, !(u < p)
}

// Record counts a Success as an accept; other outcomes change nothing.
func (t *Throttle) Record(now int64, attempt int, o Outcome, cost int) {
	if o == Success {
		t.w.add(now, 0, 1)
	}
}

// Probability returns the probability that an attempt at now is rejected locally:
// max(0, (requests − K·accepts) / (requests + 1)) over the window ending at now.
func (t *Throttle) Probability(now int64) float64 {
	return t.probability(now)
}

func (t *Throttle) probability(now int64) float64 {
	req, acc := t.w.sums(now)
	p := (float64(req) - t.k*float64(acc)) / (float64(req) + 1)
	if !(p > 0) { // negative, or NaN
		return 0
	}
	return p
}

// Counts returns requests and accepts over the window ending at now.
func (t *Throttle) Counts(now int64) (requests, accepts int64) {
	return t.w.sums(now)
}

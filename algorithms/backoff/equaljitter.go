package backoff

import "time"

// EqualJitter keeps half of the capped exponential value and jitters the
// other half: v/2 + U(0, v/2) with v = min(Cap, Base·r^attempt), where r is
// Multiplier, or 2 when Multiplier is 0. It never sleeps less than v/2, and
// its mean is 3v/4.
//
// Parameters behave as in [Exponential]. Each call draws exactly one
// [Rand.Float64]. In Brooker's simulation it does slightly more work than
// [FullJitter] and takes much longer.
type EqualJitter struct {
	Base, Cap  time.Duration
	Multiplier float64
}

// Sleep returns v/2 + U(0, v/2) with v = min(e.Cap, e.Base·r^attempt),
// rounded to the nearest nanosecond; the result lies in [v/2, v].
func (e EqualJitter) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	half := min(grow(e.Base, e.Multiplier, attempt), limit(e.Cap)) / 2
	return capped(half+uniform(0, half, r), e.Cap)
}

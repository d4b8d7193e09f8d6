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
	return equalSleep(e.half(attempt), e.Cap, r.Float64())
}

// half returns v/2 with v = min(e.Cap, e.Base·r^attempt), in float64 nanoseconds.
func (e EqualJitter) half(attempt int) float64 {
	return min(grow(e.Base, e.Multiplier, attempt), limit(e.Cap)) / 2
}

// equalSleep returns half + U(0, half) for the draw u, capped at c.
func equalSleep(half float64, c time.Duration, u float64) time.Duration {
	return capped(half+uniform(0, half, u), c)
}

package backoff

import "time"

// FullJitter sleeps a uniformly random time between 0 and the capped
// exponential value: U(0, v) with v = min(Cap, Base·r^attempt), where r is
// Multiplier, or 2 when Multiplier is 0. Its mean is v/2.
//
// Parameters behave as in [Exponential]. Each call draws exactly one
// [Rand.Float64]. In Brooker's simulation it does the least client work of
// the policies compared, about as little as [EqualJitter] in far less time.
type FullJitter struct {
	Base, Cap  time.Duration
	Multiplier float64
}

// Sleep returns U(0, v) with v = min(f.Cap, f.Base·r^attempt), rounded to
// the nearest nanosecond; the result lies in [0, v].
func (f FullJitter) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return fullSleep(f.ceiling(attempt), f.Cap, r.Float64())
}

// ceiling returns v = min(f.Cap, f.Base·r^attempt) in float64 nanoseconds.
func (f FullJitter) ceiling(attempt int) float64 {
	return min(grow(f.Base, f.Multiplier, attempt), limit(f.Cap))
}

// fullSleep returns U(0, v) for the draw u, capped at c.
func fullSleep(v float64, c time.Duration, u float64) time.Duration {
	return capped(uniform(0, v, u), c)
}

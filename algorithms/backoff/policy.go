package backoff

import (
	"math"
	"time"
)

// Rand is the random source a policy draws from. Float64 returns a uniform
// value in [0, 1). *math/rand/v2.Rand satisfies it.
//
// A policy calls Float64 at most once per [Policy.Sleep]; see the package
// documentation for which policies draw.
type Rand interface {
	Float64() float64
}

// Policy computes the sleep before a retry.
//
// Sleep returns the sleep before retry number attempt, where attempt is 1 for
// the first retry. prev is the sleep this policy returned for the previous
// retry, or 0 before the first one; only [Decorrelated] uses it. r is only
// used by jittered policies and may be nil for the others.
//
// Implementations are values, safe for concurrent use, and never allocate.
// Sleep never returns a negative duration.
type Policy interface {
	Sleep(attempt int, prev time.Duration, r Rand) time.Duration
}

// maxNanos is 2^63, the first float64 beyond the range of time.Duration.
const maxNanos = float64(1 << 63)

// toDuration rounds f nanoseconds to the nearest time.Duration, clamping
// to [0, math.MaxInt64]. NaN becomes 0.
func toDuration(f float64) time.Duration {
	switch {
	case !(f > 0):
		return 0
	case f >= maxNanos:
		return math.MaxInt64
	}
	// math.Round(f), halves away from zero, as a truncation and its exact remainder: the
	// same result for every f in (0, 2^63) (TestToDurationRounds) at a fraction of the cost.
	d := time.Duration(f)
	if f-float64(d) >= 0.5 {
		d++
	}
	return d
}

// nonNeg returns d, or 0 when d is negative.
func nonNeg(d time.Duration) time.Duration {
	return max(d, 0)
}

// limit returns the cap c in float64 nanoseconds: c itself when positive,
// otherwise 2^63, just above the largest Duration.
func limit(c time.Duration) float64 {
	if c <= 0 {
		return maxNanos
	}
	return float64(c)
}

// capped returns min(c, v rounded to the nearest nanosecond), exactly c when
// v reaches it; a c of zero or less means no cap.
func capped(v float64, c time.Duration) time.Duration {
	d := toDuration(v)
	if c > 0 && d > c {
		return c
	}
	return d
}

// mult returns m, or 2 when m is zero.
func mult(m float64) float64 {
	if m == 0 {
		return 2
	}
	return m
}

// grow returns base·m^attempt in float64 nanoseconds: never negative, never
// NaN, possibly +Inf. A negative base or attempt counts as 0.
func grow(base time.Duration, m float64, attempt int) float64 {
	b := float64(nonNeg(base))
	if b == 0 {
		return 0 // 0·Inf would be NaN
	}
	var v float64
	if m := mult(m); m == 2 {
		v = math.Ldexp(b, max(attempt, 0)) // b·2^attempt exactly, as Pow gives it, but cheaper
	} else {
		v = b * math.Pow(m, float64(max(attempt, 0)))
	}
	if !(v > 0) {
		return 0
	}
	return v
}

// uniform returns a + (b-a)·u: for one draw u from [Rand.Float64], uniform between a and b.
func uniform(a, b, u float64) float64 {
	return a + (b-a)*u
}

package backoff

import "time"

// Decorrelated is decorrelated jitter: the sleep is drawn between Base and
// three times the previous sleep, then capped: min(Cap, U(Base, 3·p)),
// where p is prev, or Base before the first retry (prev == 0), as in the
// reference simulator, which starts from sleep = base.
//
// It ignores attempt: its growth comes from feeding each sleep back as the
// next prev, which [Sequence] does. A Cap of zero or less means no cap. A
// negative Base behaves as 0, and a negative prev as 0 (so p = Base). Each
// call draws exactly one [Rand.Float64]. In Brooker's simulation it does
// slightly more work than [FullJitter] but finishes slightly sooner.
type Decorrelated struct {
	Base, Cap time.Duration
}

// Sleep returns min(d.Cap, U(d.Base, 3·p)), rounded to the nearest
// nanosecond, where p is prev, or d.Base when prev is 0. When 3·p >= Base
// the result lies in [Base, min(Cap, 3·p)].
func (d Decorrelated) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return decorrelatedSleep(float64(nonNeg(d.Base)), prev, d.Cap, r.Float64())
}

// decorrelatedSleep returns min(c, U(base, 3·p)) for the draw u, where p is prev, or base
// when prev is 0 or less.
func decorrelatedSleep(base float64, prev, c time.Duration, u float64) time.Duration {
	p := float64(prev)
	if prev <= 0 {
		p = base
	}
	return capped(uniform(base, 3*p, u), c)
}

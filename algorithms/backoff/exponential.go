package backoff

import "time"

// Exponential is capped exponential backoff without jitter:
// min(Cap, Base·r^attempt), where r is Multiplier, or 2 when Multiplier is 0.
//
// As in the reference simulator, the first retry (attempt 1) sleeps Base·r,
// not Base. A Cap of zero or less means no cap; growth then saturates at the
// largest Duration. A negative Base behaves as 0. It draws no random numbers.
//
// Without jitter, clients that failed together retry together; in Brooker's
// simulation it does more work and takes more time than every jittered
// policy.
type Exponential struct {
	Base, Cap  time.Duration
	Multiplier float64
}

// Sleep returns min(e.Cap, e.Base·r^attempt).
func (e Exponential) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return capped(grow(e.Base, e.Multiplier, attempt), e.Cap)
}

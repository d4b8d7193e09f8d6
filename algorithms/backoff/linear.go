package backoff

import (
	"math"
	"time"
)

// Linear grows the sleep by Base with every retry: min(Cap, Base·attempt).
// With Base 100ms it sleeps 100, 200, 300, 400, 500ms before retries 1 to 5.
//
// A Cap of zero or less means no cap; the product then saturates at the
// largest Duration instead of overflowing. A negative Base or attempt behaves
// as 0. It draws no random numbers.
type Linear struct {
	Base, Cap time.Duration
}

// Sleep returns min(l.Cap, l.Base·attempt).
func (l Linear) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	base := nonNeg(l.Base)
	n := time.Duration(max(attempt, 0))
	lim := time.Duration(math.MaxInt64)
	if l.Cap > 0 {
		lim = l.Cap
	}
	if n != 0 && base > lim/n {
		return lim
	}
	return min(base*n, lim)
}

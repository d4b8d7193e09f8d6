package backoff

import "time"

// Constant sleeps the same Delay before every retry, whatever the attempt.
// A negative Delay behaves as 0. It draws no random numbers.
type Constant struct {
	Delay time.Duration
}

// Sleep returns c.Delay, or 0 when it is negative.
func (c Constant) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return nonNeg(c.Delay)
}

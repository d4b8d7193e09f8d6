package backoff

import "time"

// None retries at once: its sleep is always 0. It draws no random numbers.
//
// It is the baseline of the reference simulator's comparison ("NoBackoff").
type None struct{}

// Sleep returns 0.
func (None) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return 0
}

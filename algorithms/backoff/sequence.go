package backoff

import (
	"math/rand/v2"
	"time"
)

// Sequence is the sleep schedule of one operation being retried: it feeds a
// [Policy] the retry number and the previous sleep, so that real code only
// calls Next before each retry and Reset once the operation succeeds.
//
// The zero value is usable: a nil Policy behaves as [None], and a nil Rand
// draws from the top-level functions of math/rand/v2, which are safe for
// concurrent use but not reproducible. Set Rand to a seeded *rand.Rand for
// a reproducible sequence.
//
// A Sequence must not be used by several goroutines at once, nor copied
// after its first call to Next; give each operation its own.
type Sequence struct {
	// Policy computes each sleep.
	Policy Policy
	// Rand is the source the policy draws from.
	Rand Rand

	attempt int
	prev    time.Duration
}

// globalRand draws from the top-level functions of math/rand/v2.
type globalRand struct{}

func (globalRand) Float64() float64 { return rand.Float64() }

// Next returns the sleep before the next retry and counts that retry: the
// first call after construction or [Sequence.Reset] asks the policy for
// attempt 1 with prev 0, and each later call passes the sleep the previous
// call returned as prev.
func (s *Sequence) Next() time.Duration {
	s.attempt++
	p := s.Policy
	if p == nil {
		p = None{}
	}
	r := s.Rand
	if r == nil {
		r = globalRand{}
	}
	d := p.Sleep(s.attempt, s.prev, r)
	s.prev = d
	return d
}

// Attempt returns the number of retries counted so far: the number of calls
// to [Sequence.Next] since construction or the last [Sequence.Reset], which
// is also the attempt number the last call passed to the policy.
func (s *Sequence) Attempt() int {
	return s.attempt
}

// Reset starts the sequence over: the next call to [Sequence.Next] asks for
// attempt 1 with prev 0. Policy and Rand are kept.
func (s *Sequence) Reset() {
	s.attempt = 0
	s.prev = 0
}

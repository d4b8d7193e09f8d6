package ratelimit

import (
	"sync"
	"time"
)

// LeakyMeterRule is the leaky bucket as a meter: a bucket of the given
// capacity, empty at the start, that leaks at Count requests per Per; a
// request of n pours n into it and is admitted if the level plus n is at
// most the capacity (a refused request pours nothing). Admitted requests
// go through at once; the bucket only measures them.
//
// It is the token bucket seen from the other side: its level is the token
// bucket's capacity minus tokens, so with the same limit and capacity =
// burst it admits exactly the requests a [TokenBucketRule] admits, and its
// Estimate is the token bucket's. The Criteo post describes the other
// leaky bucket, which queues requests and lets them leave at a constant
// rate: that is [LeakyQueueRule].
//
//   - Memory per key: two integers ([LeakyMeterState], 16 bytes): the level
//     and the time it was last drained.
//   - Store operations per request: read both, drain, pour, write both,
//     atomically; it cannot run on increments alone.
//   - Burst: capacity, the most requests admitted at one instant from rest.
//   - Estimate: the level, in requests.
//
// The level is kept in nanoseconds of draining (requests × [Limit.Interval])
// so that the arithmetic is exact; the bucket drains one request per
// Interval, Per/Count rounded up to a whole nanosecond. A Count of 0 means
// the bucket never drains. A time before the state's last drain is treated
// as no time passing.
type LeakyMeterRule struct {
	interval int64 // ns per request drained, 0: no drain
	unit     int64 // interval, or 1 without drain
	capacity int64
	full     int64 // capacity·unit
}

// LeakyMeterState is the state of one key under a [LeakyMeterRule]. The
// zero value is an empty bucket, a key never seen.
type LeakyMeterState struct {
	// Level is the bucket's content in nanoseconds of draining: requests
	// times the rule's interval (or requests if it never drains).
	Level int64
	// Last is the time of the latest drain, ns.
	Last int64
}

// NewLeakyMeterRule returns the leaky bucket meter that drains at l's rate
// and holds up to capacity requests, clamped as for [NewTokenBucketRule].
func NewLeakyMeterRule(l Limit, capacity int) LeakyMeterRule {
	interval, c := bucketConfig(l, capacity)
	unit := max(interval, 1)
	return LeakyMeterRule{interval: interval, unit: unit, capacity: c, full: c * unit}
}

// Capacity returns the bucket's capacity in requests.
func (r LeakyMeterRule) Capacity() int { return int(r.capacity) }

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule]. n > capacity is never admitted.
func (r LeakyMeterRule) Decide(s LeakyMeterState, now int64, n int) (LeakyMeterState, bool) {
	ok := r.Update(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r LeakyMeterRule) Update(s *LeakyMeterState, now int64, n int) bool {
	if n <= 0 {
		return true
	}
	if int64(n) > r.capacity {
		return false
	}
	level := r.level(*s, now)
	pour := int64(n) * r.unit // <= full
	if level+pour > r.full {  // level <= full: no overflow
		return false
	}
	s.Level, s.Last = level+pour, max(now, s.Last)
	return true
}

// level returns the level of s at now.
func (r LeakyMeterRule) level(s LeakyMeterState, now int64) int64 {
	// Last starts at 0 and only moves forward, so now-Last cannot
	// overflow when now > Last.
	if now > s.Last && r.interval > 0 {
		return max(s.Level-(now-s.Last), 0)
	}
	return s.Level
}

// Estimate returns the level at now in requests, with a fractional part.
func (r LeakyMeterRule) Estimate(s LeakyMeterState, now int64) float64 {
	l := r.level(s, now)
	return float64(l/r.unit) + float64(l%r.unit)/float64(r.unit)
}

// Counters reports that the leaky bucket meter cannot run on
// increment-only counters.
func (r LeakyMeterRule) Counters() (Counters, error) {
	return Counters{}, errMeterCounters
}

// LeakyMeter is an in-process leaky bucket meter: a [LeakyMeterRule] and one
// key's state behind a mutex. It is safe for concurrent use.
type LeakyMeter struct {
	rule  LeakyMeterRule
	mu    sync.Mutex
	state LeakyMeterState
}

// NewLeakyMeter returns a leaky bucket meter for l's rate and the given
// capacity; see [NewLeakyMeterRule].
func NewLeakyMeter(l Limit, capacity int) *LeakyMeter {
	return &LeakyMeter{rule: NewLeakyMeterRule(l, capacity)}
}

// Rule returns the limiter's rule.
func (m *LeakyMeter) Rule() LeakyMeterRule { return m.rule }

// Allow is shorthand for AllowN(time.Now(), 1).
func (m *LeakyMeter) Allow() bool { return m.AllowN(time.Now(), 1) }

// AllowN reports whether n requests fit in the bucket at now, and if so
// pours them in. n <= 0 is always allowed and pours nothing.
func (m *LeakyMeter) AllowN(now time.Time, n int) bool {
	if n <= 0 {
		return true
	}
	t := now.UnixNano()
	m.mu.Lock()
	ok := m.rule.Update(&m.state, t, n)
	m.mu.Unlock()
	return ok
}

// Estimate returns the rule's Estimate at now: the level.
func (m *LeakyMeter) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rule.Estimate(m.state, t)
}

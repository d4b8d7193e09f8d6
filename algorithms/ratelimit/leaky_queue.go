package ratelimit

import (
	"math"
	"sync"
	"time"
)

// LeakyQueueRule is the leaky bucket as a queue, the variant the Criteo post
// describes: requests wait in a bucket and leave it at a constant rate, one
// every T = [Limit.Interval]; a request that would overflow the bucket is
// refused. It smooths the load: what leaves is never faster than the rate,
// however bursty the arrivals.
//
// The key keeps one time, Drained: when the bucket will have let out
// everything admitted so far. A request arriving at now waits
// max(Drained - now, 0), the backlog; n requests leave T apart, the first
// after the backlog. They are admitted if backlog + n·T <= capacity·T:
// from rest, a burst of capacity requests is admitted and leaves at delays
// 0, T, …, (capacity-1)·T, so capacity counts the request leaving now
// along with those waiting behind it. The admissions are exactly those of
// a [LeakyMeterRule] (and so of a [TokenBucketRule] and a [GCRARule]) with
// the same rate and capacity, as long as times never go backwards; what
// differs is that the meter lets requests through at once and the queue
// delays them.
//
//   - Memory per key: one time ([LeakyQueueState], 8 bytes).
//   - Store operations per request: read, compare, write, atomically; it
//     cannot run on increments alone.
//   - Burst: capacity requests admitted at one instant from rest, leaving
//     over (capacity-1)·T.
//   - Estimate: the backlog in requests, (Drained - now)/T, as the meter's
//     level.
//
// T is Per/Count rounded up to a whole nanosecond. With a Count of 0
// nothing would ever leave, so every request is refused. A time before
// Drained - capacity·T is moved forward to it (the bucket is never seen
// fuller than its capacity); otherwise an earlier time sees a longer
// backlog, as if the request had come then. Times after
// math.MaxInt64 - capacity·T are treated as that time.
type LeakyQueueRule struct {
	interval int64 // T, ns; 0: nothing leaves
	capacity int64
	full     int64 // capacity·T
}

// LeakyQueueState is the state of one key under a [LeakyQueueRule]. The
// zero value is an empty bucket, a key never seen.
type LeakyQueueState struct {
	// Drained is the time the bucket will have let out every admitted
	// request, ns: the last one leaves at Drained - T.
	Drained int64
}

// NewLeakyQueueRule returns the leaky bucket queue that lets requests out
// at l's rate and holds up to capacity requests, clamped as for
// [NewTokenBucketRule].
func NewLeakyQueueRule(l Limit, capacity int) LeakyQueueRule {
	interval, c := bucketConfig(l, capacity)
	if interval == 0 {
		c = 0
	}
	return LeakyQueueRule{interval: interval, capacity: c, full: c * interval}
}

// Capacity returns the bucket's capacity in requests (0 if nothing ever
// leaves).
func (r LeakyQueueRule) Capacity() int { return int(r.capacity) }

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule]. It is Reserve without the wait.
func (r LeakyQueueRule) Decide(s LeakyQueueState, now int64, n int) (LeakyQueueState, bool) {
	_, ok := r.Reserve(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r LeakyQueueRule) Update(s *LeakyQueueState, now int64, n int) bool {
	_, ok := r.Reserve(s, now, n)
	return ok
}

// Reserve reports whether n requests arriving at now fit in the bucket, and
// if so queues them in *s and returns how long the last of them waits
// before it leaves: the backlog plus (n-1)·T. The first leaves after the
// backlog, the others T apart. When it refuses, *s is unchanged and wait is
// 0. n <= 0 is admitted with no wait and queues nothing.
func (r LeakyQueueRule) Reserve(s *LeakyQueueState, now int64, n int) (wait time.Duration, ok bool) {
	if n <= 0 {
		return 0, true
	}
	if int64(n) > r.capacity {
		return 0, false
	}
	need := int64(n) * r.interval // <= full
	dr := s.Drained               // >= 0: it starts at 0 and only grows
	now = r.clamp(dr, now)
	base := max(dr, now)
	backlog := base - now // <= full
	if backlog > r.full-need {
		return 0, false
	}
	s.Drained = base + need // <= now + full <= MaxInt64
	return time.Duration(backlog + need - r.interval), true
}

// backlog returns the backlog of s at now, in ns.
func (r LeakyQueueRule) backlog(s LeakyQueueState, now int64) int64 {
	return max(s.Drained-r.clamp(s.Drained, now), 0)
}

// clamp returns now moved into [drained - capacity·T, MaxInt64 - capacity·T];
// see [GCRARule].
func (r LeakyQueueRule) clamp(drained, now int64) int64 {
	return min(max(now, drained-r.full), math.MaxInt64-r.full)
}

// Estimate returns the backlog at now in requests, (Drained - now)/T, with a
// fractional part: the level of the equivalent [LeakyMeterRule].
func (r LeakyQueueRule) Estimate(s LeakyQueueState, now int64) float64 {
	if r.interval == 0 {
		return 0
	}
	b := r.backlog(s, now)
	return float64(b/r.interval) + float64(b%r.interval)/float64(r.interval)
}

// Queued returns how many admitted requests have not yet left at now
// (a request leaving exactly at now has left): ⌈backlog/T⌉ - 1, at least 0.
func (r LeakyQueueRule) Queued(s LeakyQueueState, now int64) int {
	if r.interval == 0 {
		return 0
	}
	b := r.backlog(s, now)
	return int(max(ceilDiv(b, r.interval)-1, 0))
}

// Counters reports that the leaky bucket queue cannot run on
// increment-only counters.
func (r LeakyQueueRule) Counters() (Counters, error) {
	return Counters{}, errQueueCounters
}

// LeakyQueue is an in-process leaky bucket queue: a [LeakyQueueRule] and one
// key's state behind a mutex. It is safe for concurrent use. It does not
// hold the requests or sleep: [LeakyQueue.ReserveN] tells the caller how
// long to wait before going ahead.
type LeakyQueue struct {
	rule  LeakyQueueRule
	mu    sync.Mutex
	state LeakyQueueState
}

// NewLeakyQueue returns a leaky bucket queue for l's rate and the given
// capacity; see [NewLeakyQueueRule].
func NewLeakyQueue(l Limit, capacity int) *LeakyQueue {
	return &LeakyQueue{rule: NewLeakyQueueRule(l, capacity)}
}

// Rule returns the limiter's rule.
func (q *LeakyQueue) Rule() LeakyQueueRule { return q.rule }

// Reserve is shorthand for ReserveN(time.Now(), 1).
func (q *LeakyQueue) Reserve() (wait time.Duration, ok bool) { return q.ReserveN(time.Now(), 1) }

// ReserveN reports whether n requests arriving at now fit in the queue, and
// if so queues them and returns how long the caller must wait before the
// last of them leaves; see [LeakyQueueRule.Reserve].
func (q *LeakyQueue) ReserveN(now time.Time, n int) (wait time.Duration, ok bool) {
	if n <= 0 {
		return 0, true
	}
	t := now.UnixNano()
	q.mu.Lock()
	wait, ok = q.rule.Reserve(&q.state, t, n)
	q.mu.Unlock()
	return wait, ok
}

// Allow is shorthand for AllowN(time.Now(), 1).
func (q *LeakyQueue) Allow() bool { return q.AllowN(time.Now(), 1) }

// AllowN is ReserveN without the wait, for use where any [Limiter] will do:
// it queues the requests if they fit, but a caller that means to shape its
// traffic needs the wait and should call ReserveN.
func (q *LeakyQueue) AllowN(now time.Time, n int) bool {
	_, ok := q.ReserveN(now, n)
	return ok
}

// Estimate returns the rule's Estimate at now: the backlog in requests.
func (q *LeakyQueue) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.rule.Estimate(q.state, t)
}

// Queued returns the rule's Queued at now.
func (q *LeakyQueue) Queued(now time.Time) int {
	t := now.UnixNano()
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.rule.Queued(q.state, t)
}

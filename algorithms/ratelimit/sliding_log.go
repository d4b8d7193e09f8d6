package ratelimit

import (
	"math"
	"slices"
	"sync"
	"time"
)

// SlidingLogRule is the sliding log: the key keeps the time of every
// admitted request still inside the window, and a request of n at now is
// admitted if the log holds at most Count-n times in (now-Per, now]. It is
// exact: no window of length Per ever holds more than Count admitted
// requests.
//
//   - Memory per key: one timestamp per admitted request in the window, up
//     to Count ([SlidingLogState], 8 bytes each; in Redis, a sorted set).
//   - Store operations per request: drop the expired times, count the
//     rest, append n times, all atomically (a Lua script over a sorted set:
//     ZREMRANGEBYSCORE, ZCARD, ZADD); it cannot run on increments alone.
//     The work and the memory grow with the limit.
//   - Burst: Count requests at one instant from rest; never more than
//     Count in any window.
//   - Estimate: the exact number of admitted requests in (now-Per, now],
//     the reference the other estimates are compared with.
//
// A time before the newest time in the log is treated as that time (no
// time passing): the log's clock is its newest admitted request. The log is the one state that is not a fixed-size value:
// Decide copies it before appending, so that the state it was given stays
// valid (it allocates, which a store simulation can afford); Update appends
// in place and allocates only while the log grows towards Count entries.
type SlidingLogRule struct {
	limit int64 // Count, >= 0
	per   int64 // window, ns, >= 1
}

// SlidingLogState is the state of one key under a [SlidingLogRule]: a ring
// of request times in non-decreasing order. The zero value is an empty log,
// a key never seen. Copying a SlidingLogState shares the ring; use
// [SlidingLogState.Clone] for an independent copy.
type SlidingLogState struct {
	ring []int64 // ring buffer of times
	head int     // index of the oldest time
	size int     // number of times
}

// NewSlidingLogState returns a log holding the given request times, for
// a store that keeps them elsewhere (a Redis sorted set, say). It copies
// and sorts them.
func NewSlidingLogState(times []int64) SlidingLogState {
	if len(times) == 0 {
		return SlidingLogState{}
	}
	ring := slices.Clone(times)
	slices.Sort(ring)
	return SlidingLogState{ring: ring, size: len(ring)}
}

// Len returns the number of times in the log, expired ones included until
// a call prunes them.
func (s SlidingLogState) Len() int { return s.size }

// Times appends the log's times to dst, oldest first, and returns the
// extended slice.
func (s SlidingLogState) Times(dst []int64) []int64 {
	for i := range s.size {
		dst = append(dst, s.at(i))
	}
	return dst
}

// Clone returns a copy of s that shares no memory with it.
func (s SlidingLogState) Clone() SlidingLogState {
	if s.size == 0 {
		return SlidingLogState{}
	}
	return SlidingLogState{ring: s.Times(make([]int64, 0, s.size)), size: s.size}
}

// at returns the i-th oldest time.
func (s *SlidingLogState) at(i int) int64 {
	i += s.head
	if i >= len(s.ring) {
		i -= len(s.ring)
	}
	return s.ring[i]
}

// NewSlidingLogRule returns the sliding log rule for l, clamped as
// documented on [Limit].
func NewSlidingLogRule(l Limit) SlidingLogRule {
	count, per := l.clamp()
	return SlidingLogRule{limit: count, per: per}
}

// Limit returns the rule's limit after clamping.
func (r SlidingLogRule) Limit() Limit {
	return Limit{Count: int(r.limit), Per: time.Duration(r.per)}
}

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule]. When it admits, the next state has a ring of its
// own, so s and the states it shares a ring with are left as they were.
func (r SlidingLogRule) Decide(s SlidingLogState, now int64, n int) (SlidingLogState, bool) {
	if n <= 0 {
		return s, true
	}
	now, live := r.prune(s, now)
	if int64(n) > r.limit-int64(live.size) {
		return s, false
	}
	ring := live.Times(make([]int64, 0, live.size+n))
	for range n {
		ring = append(ring, now)
	}
	return SlidingLogState{ring: ring, size: len(ring)}, true
}

// Update is Decide in place; see [Rule]. Like Decide, it leaves *s as it
// was when it refuses: the expired times are dropped by the next admission.
func (r SlidingLogRule) Update(s *SlidingLogState, now int64, n int) bool {
	if n <= 0 {
		return true
	}
	head, size := s.head, s.size
	if size > 0 {
		now = max(now, s.at(size-1))
		cut := math.MinInt64 + r.per
		if now >= cut {
			cut = now - r.per
		}
		for size > 0 && s.ring[head] <= cut {
			head++
			if head == len(s.ring) {
				head = 0
			}
			size--
		}
	}
	if int64(n) > r.limit-int64(size) {
		return false
	}
	if size == 0 {
		head = 0
	}
	s.head, s.size = head, size
	r.push(s, now, n)
	return true
}

// prune returns now moved forward to the newest time in s if it is before
// it, and s without the times at or before now-Per. It does not write to
// the ring.
func (r SlidingLogRule) prune(s SlidingLogState, now int64) (int64, SlidingLogState) {
	if s.size == 0 {
		return now, s
	}
	now = max(now, s.at(s.size-1))
	cut := math.MinInt64 + r.per
	if now >= cut {
		cut = now - r.per
	}
	for s.size > 0 && s.ring[s.head] <= cut {
		s.head++
		if s.head == len(s.ring) {
			s.head = 0
		}
		s.size--
	}
	if s.size == 0 {
		s.head = 0
	}
	return now, s
}

// push appends n copies of now to s, growing its ring if needed.
// The caller has checked that s.size+n <= r.limit.
func (r SlidingLogRule) push(s *SlidingLogState, now int64, n int) {
	if need := s.size + n; need > len(s.ring) {
		c := int(min(int64(max(need, 2*len(s.ring), 8)), r.limit))
		grown := s.Times(make([]int64, 0, c))
		s.ring, s.head = grown[:c], 0
	}
	for range n {
		i := s.head + s.size
		if i >= len(s.ring) {
			i -= len(s.ring)
		}
		s.ring[i] = now
		s.size++
	}
}

// Estimate returns the exact number of times in the log inside
// (now-Per, now], now moved forward to the newest time if it is before it.
func (r SlidingLogRule) Estimate(s SlidingLogState, now int64) float64 {
	_, live := r.prune(s, now)
	return float64(live.size)
}

// Counters reports that the sliding log cannot run on increment-only
// counters.
func (r SlidingLogRule) Counters() (Counters, error) {
	return Counters{}, errLogCounters
}

// Delta returns a log of n requests at now (empty if n <= 0); see [Merger].
func (r SlidingLogRule) Delta(now int64, n int) SlidingLogState {
	var d SlidingLogState
	if n > 0 {
		d.ring = make([]int64, n)
		for i := range d.ring {
			d.ring[i] = now
		}
		d.size = n
	}
	return d
}

// Merge returns a new log with the times of both a and b, in order, without
// those that are at or before newest-Per for the newest time of either:
// no later call can count them. The merged log may hold more than Count
// times if the instances together admitted more; it then admits nothing
// until enough of them expire. See [Merger].
func (r SlidingLogRule) Merge(a, b SlidingLogState) SlidingLogState {
	if a.size == 0 {
		return b.Clone()
	}
	if b.size == 0 {
		return a.Clone()
	}
	newest := max(a.at(a.size-1), b.at(b.size-1))
	_, a = r.prune(a, newest)
	_, b = r.prune(b, newest)
	out := make([]int64, 0, a.size+b.size)
	i, j := 0, 0
	for i < a.size || j < b.size {
		if j == b.size || i < a.size && a.at(i) <= b.at(j) {
			out = append(out, a.at(i))
			i++
		} else {
			out = append(out, b.at(j))
			j++
		}
	}
	return SlidingLogState{ring: out, size: len(out)}
}

// SlidingLog is an in-process sliding log limiter: a [SlidingLogRule] and
// one key's log behind a mutex. It is safe for concurrent use. Its log
// grows to at most Count times and is then reused without allocating.
type SlidingLog struct {
	rule  SlidingLogRule
	mu    sync.Mutex
	state SlidingLogState
}

// NewSlidingLog returns a sliding log limiter for l; see
// [NewSlidingLogRule].
func NewSlidingLog(l Limit) *SlidingLog {
	return &SlidingLog{rule: NewSlidingLogRule(l)}
}

// Rule returns the limiter's rule.
func (w *SlidingLog) Rule() SlidingLogRule { return w.rule }

// Allow is shorthand for AllowN(time.Now(), 1).
func (w *SlidingLog) Allow() bool { return w.AllowN(time.Now(), 1) }

// AllowN reports whether n requests may happen at now, and if so logs them.
// n <= 0 is always allowed and logs nothing.
func (w *SlidingLog) AllowN(now time.Time, n int) bool {
	if n <= 0 {
		return true
	}
	t := now.UnixNano()
	w.mu.Lock()
	ok := w.rule.Update(&w.state, t, n)
	w.mu.Unlock()
	return ok
}

// Estimate returns the rule's Estimate at now: the exact count.
func (w *SlidingLog) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rule.Estimate(w.state, t)
}

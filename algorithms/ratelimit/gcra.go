package ratelimit

import (
	"math"
	"sync"
	"time"
)

// GCRARule is the generic cell rate algorithm in its virtual scheduling
// form (ITU-T I.371, used by redis-cell and throttled): the key keeps one
// time, the theoretical arrival time TAT at which it would be back to an
// empty bucket if it sent nothing more. Each request of n pushes TAT to
// max(TAT, now) + n·T, T being the emission interval; it is admitted if
// that leaves TAT at most burst·T after now, that is if it arrives no
// earlier than TAT + n·T - burst·T.
//
// It admits exactly the requests a [TokenBucketRule] with the same limit
// and burst admits, as long as times never go backwards: TAT is the token
// bucket's Last + Deficit, the moment its bucket is full again. It needs
// one integer per key instead of two.
//
//   - Memory per key: one time ([GCRAState], 8 bytes).
//   - Store operations per request: read TAT, compare, write TAT,
//     atomically (a Lua script in Redis, or compare-and-swap); it cannot
//     run on increments alone.
//   - Burst: burst is the capacity, the most requests admitted at one
//     instant from rest, as for [TokenBucketRule]. Libraries that speak of
//     a "burst tolerance" τ or a "max burst" (redis-cell) count one less:
//     τ = (burst-1)·T and redis-cell's max_burst = burst-1.
//   - Estimate: (TAT - now)/T when positive: the token bucket's tokens in
//     use.
//
// T is [Limit.Interval], Per/Count rounded up to a whole nanosecond. A
// Count of 0 means the bucket never refills: the key may take burst
// requests once, and TAT then counts the requests taken instead of a time.
// GCRA keeps no clock of its own, so a time before an earlier call is not
// ignored as the token bucket ignores it: the request is judged as if it
// came then, which sees a fuller bucket (never one fuller than burst: the
// time is moved forward to TAT - burst·T if it is before it). Times after
// math.MaxInt64 - burst·T, the last moments int64 nanoseconds can count,
// are treated as that time.
type GCRARule struct {
	interval int64 // T, ns; 0: no refill
	unit     int64 // interval, or 1 without refill
	capacity int64 // burst
	full     int64 // capacity·unit: burst·T
}

// GCRAState is the state of one key under a [GCRARule]. The zero value is
// an empty bucket, a key never seen.
type GCRAState struct {
	// TAT is the theoretical arrival time, ns: when the key's bucket is
	// empty again. Without refill it counts the requests taken.
	TAT int64
}

// NewGCRARule returns the GCRA for l's rate and capacity burst, clamped as
// for [NewTokenBucketRule].
func NewGCRARule(l Limit, burst int) GCRARule {
	interval, capacity := bucketConfig(l, burst)
	unit := max(interval, 1)
	return GCRARule{interval: interval, unit: unit, capacity: capacity, full: capacity * unit}
}

// Limit returns the rule's rate as one request per T ({1, T}), or {0, 1s}
// if the bucket never refills.
func (r GCRARule) Limit() Limit {
	if r.interval == 0 {
		return Limit{Count: 0, Per: time.Second}
	}
	return Limit{Count: 1, Per: time.Duration(r.interval)}
}

// Burst returns the rule's capacity.
func (r GCRARule) Burst() int { return int(r.capacity) }

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule]. n > burst is never admitted.
func (r GCRARule) Decide(s GCRAState, now int64, n int) (GCRAState, bool) {
	ok := r.Update(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r GCRARule) Update(s *GCRAState, now int64, n int) bool {
	if n <= 0 {
		return true
	}
	if int64(n) > r.capacity {
		return false
	}
	need := int64(n) * r.unit // <= full
	tat := s.TAT              // >= 0: it starts at 0 and only grows
	if r.interval == 0 {
		if tat > r.full-need {
			return false
		}
		s.TAT = tat + need
		return true
	}
	now = r.clamp(tat, now)
	base := max(tat, now)
	if base-now > r.full-need {
		return false
	}
	s.TAT = base + need // <= now + full <= MaxInt64
	return true
}

// clamp returns now moved into [tat - burst·T, MaxInt64 - burst·T]: never
// earlier than a time at which the bucket would be fuller than burst, and
// early enough that TAT cannot overflow.
func (r GCRARule) clamp(tat, now int64) int64 {
	return min(max(now, tat-r.full), math.MaxInt64-r.full)
}

// Estimate returns (TAT - now)/T, at least 0: the requests' worth of
// interval the key has yet to wait out; without refill, the requests taken.
func (r GCRARule) Estimate(s GCRAState, now int64) float64 {
	if r.interval == 0 {
		return float64(s.TAT)
	}
	d := max(s.TAT-r.clamp(s.TAT, now), 0)
	return float64(d/r.unit) + float64(d%r.unit)/float64(r.unit)
}

// Counters reports that GCRA cannot run on increment-only counters.
func (r GCRARule) Counters() (Counters, error) {
	return Counters{}, errGCRACounters
}

// GCRA is an in-process GCRA limiter: a [GCRARule] and one key's TAT behind
// a mutex. It is safe for concurrent use.
type GCRA struct {
	rule  GCRARule
	mu    sync.Mutex
	state GCRAState
}

// NewGCRA returns a GCRA limiter for l's rate and capacity burst; see
// [NewGCRARule].
func NewGCRA(l Limit, burst int) *GCRA {
	return &GCRA{rule: NewGCRARule(l, burst)}
}

// Rule returns the limiter's rule.
func (g *GCRA) Rule() GCRARule { return g.rule }

// Allow is shorthand for AllowN(time.Now(), 1).
func (g *GCRA) Allow() bool { return g.AllowN(time.Now(), 1) }

// AllowN reports whether n requests may happen at now, and if so records
// them. n <= 0 is always allowed and records nothing.
func (g *GCRA) AllowN(now time.Time, n int) bool {
	if n <= 0 {
		return true
	}
	t := now.UnixNano()
	g.mu.Lock()
	ok := g.rule.Update(&g.state, t, n)
	g.mu.Unlock()
	return ok
}

// Estimate returns the rule's Estimate at now.
func (g *GCRA) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.rule.Estimate(g.state, t)
}

package ratelimit

import (
	"math"
	"sync"
	"time"
)

// MaxSubWindows is the largest number of sub-windows a [SlidingWindowRule]
// can use: the Criteo post's extreme case of sixty one-second counters for
// a one-minute window.
const MaxSubWindows = 60

// SlidingWindowRule is the sliding window approximation (the "sliding
// window counter" of Cloudflare and HAProxy's stick tables), generalised to
// k sub-windows. Time is cut into sub-windows of length s = Per/k aligned
// to multiples of s since time zero, with one counter each. At time now, in
// a sub-window that began e ago, the sliding window (now-k·s, now] covers
// the current sub-window, the k-1 before it, and the last s-e of the one
// before those; the rule estimates the requests in it as
//
//	estimate = c₀ + c₁ + … + c_{k-1} + c_k·(s-e)/s
//
// where c_j is the count of the sub-window j steps back, and admits n if
// estimate + n <= Count. With k = 1 this is the post's approximation: at
// 00:01:43 with one-minute windows, the count of minute 00:01 plus that of
// minute 00:00 times 17/60. The estimate is exact when the previous
// traffic was uniform; it over-estimates when the oldest sub-window's
// requests came early in it and under-estimates when they came late, and
// that error shrinks as k grows (the post's 5 × 15 s case is k = 4, which
// reads five 15-second counters), at the price of k+1 counters per key.
//
//   - Memory per key: k+1 counters ([SlidingWindowState] holds up to
//     MaxSubWindows+1 32-bit counts, a start time and their running sum,
//     260 bytes; a decision costs the same for any k).
//   - Store operations per request: one increment and k reads, see
//     [SlidingWindowRule.Counters].
//   - Burst: Count requests at one instant from rest. Across boundaries the
//     weighting lets somewhat more than Count pass in some windows when the
//     traffic is uneven, far less than the fixed window's 2·Count.
//   - Estimate: the weighted sum above.
//
// Per is rounded down to a multiple of k nanoseconds (k·s), and Count is
// clamped to at most math.MaxInt32. A time before the state's current
// sub-window is treated as its start (no time passing: the oldest count
// weighs fully).
type SlidingWindowRule struct {
	limit int64 // Count, in [0, MaxInt32]
	sub   int64 // sub-window, ns, >= 1
	k     int   // sub-windows per window, in [1, MaxSubWindows]
}

// SlidingWindowState is the state of one key under a [SlidingWindowRule]:
// the start of the current sub-window and the counts of admitted requests
// in it and the sub-windows before it. Only the first k+1 counts are used.
// The zero value is a key never seen.
type SlidingWindowState struct {
	Start int64 // start of the current sub-window, ns, a multiple of the sub-window
	// Sum is Counts[0] + … + Counts[k-1], the counts that weigh fully,
	// kept so that a decision does not add up k counts.
	Sum    int64
	Counts [MaxSubWindows + 1]int32 // Counts[j]: requests j sub-windows before the current one
}

// NewSlidingWindowRule returns the sliding window approximation for l with k
// sub-windows per window. l is clamped as documented on [Limit] and
// [SlidingWindowRule]; k is clamped to [1, MaxSubWindows], and to at most
// Per in nanoseconds.
func NewSlidingWindowRule(l Limit, k int) SlidingWindowRule {
	count, per := l.clamp()
	k = int(min(int64(min(max(k, 1), MaxSubWindows)), per))
	return SlidingWindowRule{limit: min(count, math.MaxInt32), sub: per / int64(k), k: k}
}

// Limit returns the rule's limit after clamping and rounding.
func (r SlidingWindowRule) Limit() Limit {
	return Limit{Count: int(r.limit), Per: time.Duration(r.sub * int64(r.k))}
}

// SubWindows returns k, the number of sub-windows per window.
func (r SlidingWindowRule) SubWindows() int { return r.k }

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule].
func (r SlidingWindowRule) Decide(s SlidingWindowState, now int64, n int) (SlidingWindowState, bool) {
	ok := r.Update(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r SlidingWindowRule) Update(s *SlidingWindowState, now int64, n int) bool {
	if n <= 0 {
		return true
	}
	start, shift, full, oldest, rem := r.view(s, now)
	if !admitWeighted(full, oldest, rem, r.sub, int64(n), r.limit) {
		return false
	}
	if shift > 0 {
		r.advance(s, start, shift)
		s.Sum = full
	}
	s.Counts[0] += int32(n) // fits: Counts[0] + n <= limit <= MaxInt32
	s.Sum += int64(n)
	return true
}

// view returns, for a request at now, the start of the current sub-window,
// how many sub-windows s must shift to reach it, the sum of the k newest
// counts after the shift, the oldest count after the shift, and the part
// of the oldest sub-window still inside the sliding window. It does not
// modify s.
func (r SlidingWindowRule) view(s *SlidingWindowState, now int64) (start, shift, full, oldest, rem int64) {
	start = s.Start
	// Start only moves forward from 0, so now-start cannot overflow.
	if now >= start && now-start >= r.sub {
		shift = (now - start) / r.sub
		start += shift * r.sub
	}
	k := int64(r.k)
	if shift <= k {
		full = s.Sum
		for _, c := range s.Counts[k-shift : k] { // the counts the shift makes the oldest or drops
			full -= int64(c)
		}
		oldest = int64(s.Counts[k-shift])
	}
	rem = r.sub
	if now > start {
		rem -= now - start
	}
	return start, shift, full, oldest, rem
}

// advance moves s forward by shift sub-windows to the one starting at start.
func (r SlidingWindowRule) advance(s *SlidingWindowState, start, shift int64) {
	k := int64(r.k)
	if shift > k {
		s.Counts = [MaxSubWindows + 1]int32{}
	} else {
		copy(s.Counts[shift:k+1], s.Counts[:k+1-shift])
		clear(s.Counts[:shift])
	}
	s.Start = start
}

// Estimate returns the weighted sum c₀ + … + c_{k-1} + c_k·(s-e)/s at now;
// see [SlidingWindowRule].
func (r SlidingWindowRule) Estimate(s SlidingWindowState, now int64) float64 {
	_, _, full, oldest, rem := r.view(&s, now)
	return float64(full) + float64(oldest)*float64(rem)/float64(r.sub)
}

// Counters returns the rule's increment-only formulation: one counter per
// sub-window, k earlier counters read.
func (r SlidingWindowRule) Counters() (Counters, error) {
	return Counters{Limit: r.limit, Window: time.Duration(r.sub), Previous: r.k}, nil
}

// Delta returns the state of a key that has seen only n requests at now
// (none if n <= 0); see [Merger]. n is clamped to math.MaxInt32.
func (r SlidingWindowRule) Delta(now int64, n int) SlidingWindowState {
	var d SlidingWindowState
	if n > 0 {
		d.Start = max(floorDiv(now, r.sub)*r.sub, 0)
		d.Counts[0] = int32(min(n, math.MaxInt32))
		d.Sum = int64(d.Counts[0])
	}
	return d
}

// Merge returns the state holding the requests of a and b: both aligned to
// the later current sub-window, counts of the same sub-window added
// (saturating at math.MaxInt32), counts older than k+1 sub-windows
// dropped. See [Merger].
func (r SlidingWindowRule) Merge(a, b SlidingWindowState) SlidingWindowState {
	if a.Start < b.Start {
		a, b = b, a
	}
	shift := (a.Start - b.Start) / r.sub
	for j := int64(0); j+shift <= int64(r.k); j++ {
		a.Counts[j+shift] = int32(min(int64(a.Counts[j+shift])+int64(b.Counts[j]), math.MaxInt32))
	}
	a.Sum = 0
	for _, c := range a.Counts[:r.k] {
		a.Sum += int64(c)
	}
	return a
}

// SlidingWindow is an in-process sliding window limiter: a
// [SlidingWindowRule] and one key's state behind a mutex. It is safe for
// concurrent use.
type SlidingWindow struct {
	rule  SlidingWindowRule
	mu    sync.Mutex
	state SlidingWindowState
}

// NewSlidingWindow returns a sliding window limiter for l with k
// sub-windows per window; see [NewSlidingWindowRule].
func NewSlidingWindow(l Limit, k int) *SlidingWindow {
	return &SlidingWindow{rule: NewSlidingWindowRule(l, k)}
}

// Rule returns the limiter's rule.
func (w *SlidingWindow) Rule() SlidingWindowRule { return w.rule }

// Allow is shorthand for AllowN(time.Now(), 1).
func (w *SlidingWindow) Allow() bool { return w.AllowN(time.Now(), 1) }

// AllowN reports whether n requests may happen at now, and if so counts
// them. n <= 0 is always allowed and counts nothing.
func (w *SlidingWindow) AllowN(now time.Time, n int) bool {
	if n <= 0 {
		return true
	}
	t := now.UnixNano()
	w.mu.Lock()
	ok := w.rule.Update(&w.state, t, n)
	w.mu.Unlock()
	return ok
}

// Estimate returns the rule's Estimate at now.
func (w *SlidingWindow) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rule.Estimate(w.state, t)
}

package ratelimit

import (
	"sync"
	"time"
)

// FixedWindowRule is the fixed window algorithm: one counter per window of
// length Per, the windows aligned to multiples of Per since time zero (the
// Unix epoch for real clocks, so one-minute windows are calendar minutes).
// A request of n is admitted if the current window's count plus n is at
// most Count; the count starts from zero when a new window begins.
//
//   - Memory per key: one window start and one count ([FixedWindowState],
//     16 bytes); in a store, one integer per key per window.
//   - Store operations per request: one atomic increment and its result
//     (INCR then compare), see [FixedWindowRule.Counters].
//   - Burst: Count requests at one instant from rest. Up to 2·Count can
//     pass within one window length across a boundary: Count at 07:09:59
//     and Count again at 07:10:00.
//   - Estimate: the current window's count, which drops to zero at every
//     boundary.
//
// A time before the state's window is treated as no time passing: the
// request counts in the state's window.
type FixedWindowRule struct {
	limit int64 // Count, >= 0
	per   int64 // window, ns, >= 1
}

// FixedWindowState is the state of one key under a [FixedWindowRule]: the
// start of the latest window with admitted requests and their count. The
// zero value is a key never seen.
type FixedWindowState struct {
	Start int64 // start of the window, ns, a multiple of Per
	Count int64 // requests admitted in that window
}

// NewFixedWindowRule returns the fixed window rule for l, clamped as
// documented on [Limit].
func NewFixedWindowRule(l Limit) FixedWindowRule {
	count, per := l.clamp()
	return FixedWindowRule{limit: count, per: per}
}

// Limit returns the rule's limit after clamping.
func (r FixedWindowRule) Limit() Limit {
	return Limit{Count: int(r.limit), Per: time.Duration(r.per)}
}

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule].
func (r FixedWindowRule) Decide(s FixedWindowState, now int64, n int) (FixedWindowState, bool) {
	ok := r.Update(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r FixedWindowRule) Update(s *FixedWindowState, now int64, n int) bool {
	if n <= 0 {
		return true
	}
	start, count := s.Start, s.Count
	// Start only moves forward from 0, so now-start cannot overflow when
	// now >= start.
	if now >= start && now-start >= r.per {
		start, count = now-now%r.per, 0
	}
	if int64(n) > r.limit-count {
		return false
	}
	s.Start, s.Count = start, count+int64(n)
	return true
}

// Estimate returns the count of the window now falls in: s.Count if now is
// in s's window (or before it), 0 once that window has ended.
func (r FixedWindowRule) Estimate(s FixedWindowState, now int64) float64 {
	if now >= s.Start && now-s.Start >= r.per {
		return 0
	}
	return float64(s.Count)
}

// Counters returns the rule's increment-only formulation: one counter per
// window, no earlier window read.
func (r FixedWindowRule) Counters() (Counters, error) {
	return Counters{Limit: r.limit, Window: time.Duration(r.per)}, nil
}

// Delta returns the state of a key that has seen only n requests at now
// (none if n <= 0); see [Merger].
func (r FixedWindowRule) Delta(now int64, n int) FixedWindowState {
	if n <= 0 {
		return FixedWindowState{}
	}
	return FixedWindowState{Start: max(floorDiv(now, r.per)*r.per, 0), Count: int64(n)}
}

// Merge returns the state holding the requests of a and b: the later
// window's count, or the sum if both are in the same window (saturating).
// See [Merger].
func (r FixedWindowRule) Merge(a, b FixedWindowState) FixedWindowState {
	switch {
	case a.Start > b.Start:
		return a
	case b.Start > a.Start:
		return b
	}
	return FixedWindowState{Start: a.Start, Count: satAdd(max(a.Count, 0), max(b.Count, 0))}
}

// FixedWindow is an in-process fixed window limiter: a [FixedWindowRule]
// and one key's state behind a mutex. It is safe for concurrent use.
type FixedWindow struct {
	rule  FixedWindowRule
	mu    sync.Mutex
	state FixedWindowState
}

// NewFixedWindow returns a fixed window limiter for l; see
// [NewFixedWindowRule].
func NewFixedWindow(l Limit) *FixedWindow {
	return &FixedWindow{rule: NewFixedWindowRule(l)}
}

// Rule returns the limiter's rule.
func (w *FixedWindow) Rule() FixedWindowRule { return w.rule }

// Allow is shorthand for AllowN(time.Now(), 1).
func (w *FixedWindow) Allow() bool { return w.AllowN(time.Now(), 1) }

// AllowN reports whether n requests may happen at now, and if so counts
// them in now's window. n <= 0 is always allowed and counts nothing.
func (w *FixedWindow) AllowN(now time.Time, n int) bool {
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
func (w *FixedWindow) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rule.Estimate(w.state, t)
}

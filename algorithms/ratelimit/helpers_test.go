package ratelimit_test

import (
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// Compile-time checks: every rule is a Rule over its state, and the counter
// rules are Mergers.
var (
	_ ratelimit.Rule[ratelimit.FixedWindowState]   = ratelimit.FixedWindowRule{}
	_ ratelimit.Rule[ratelimit.SlidingWindowState] = ratelimit.SlidingWindowRule{}
	_ ratelimit.Rule[ratelimit.SlidingLogState]    = ratelimit.SlidingLogRule{}
	_ ratelimit.Rule[ratelimit.TokenBucketState]   = ratelimit.TokenBucketRule{}
	_ ratelimit.Rule[ratelimit.LeakyMeterState]    = ratelimit.LeakyMeterRule{}
	_ ratelimit.Rule[ratelimit.LeakyQueueState]    = ratelimit.LeakyQueueRule{}
	_ ratelimit.Rule[ratelimit.GCRAState]          = ratelimit.GCRARule{}

	_ ratelimit.Merger[ratelimit.FixedWindowState]   = ratelimit.FixedWindowRule{}
	_ ratelimit.Merger[ratelimit.SlidingWindowState] = ratelimit.SlidingWindowRule{}
	_ ratelimit.Merger[ratelimit.SlidingLogState]    = ratelimit.SlidingLogRule{}

	_ ratelimit.Limiter = (*ratelimit.FixedWindow)(nil)
	_ ratelimit.Limiter = (*ratelimit.SlidingWindow)(nil)
	_ ratelimit.Limiter = (*ratelimit.SlidingLog)(nil)
	_ ratelimit.Limiter = (*ratelimit.TokenBucket)(nil)
	_ ratelimit.Limiter = (*ratelimit.LeakyMeter)(nil)
	_ ratelimit.Limiter = (*ratelimit.LeakyQueue)(nil)
	_ ratelimit.Limiter = (*ratelimit.GCRA)(nil)
)

const sec = time.Second

// key is one key under some rule, driven through the pure Decide.
type key interface {
	decide(now int64, n int) bool
	estimate(now int64) float64
}

// stateKey holds the state of one key under r.
type stateKey[S any] struct {
	r ratelimit.Rule[S]
	s S
}

func (k *stateKey[S]) decide(now int64, n int) bool {
	next, ok := k.r.Decide(k.s, now, n)
	k.s = next
	return ok
}

func (k *stateKey[S]) estimate(now int64) float64 { return k.r.Estimate(k.s, now) }

func newKey[S any](r ratelimit.Rule[S]) key { return &stateKey[S]{r: r} }

// algo names a rule family and builds a key for a limit, with the bucket
// family's burst or capacity equal to l.Count (the fair comparison).
type algo struct {
	name   string
	bucket bool // token bucket family: rate-based, not window-based
	newKey func(l ratelimit.Limit) key
}

var algos = []algo{
	{"fixed window", false, func(l ratelimit.Limit) key { return newKey(ratelimit.NewFixedWindowRule(l)) }},
	{"sliding log", false, func(l ratelimit.Limit) key { return newKey(ratelimit.NewSlidingLogRule(l)) }},
	{"sliding window k=1", false, func(l ratelimit.Limit) key { return newKey(ratelimit.NewSlidingWindowRule(l, 1)) }},
	{"sliding window k=4", false, func(l ratelimit.Limit) key { return newKey(ratelimit.NewSlidingWindowRule(l, 4)) }},
	{"token bucket", true, func(l ratelimit.Limit) key { return newKey(ratelimit.NewTokenBucketRule(l, l.Count)) }},
	{"leaky meter", true, func(l ratelimit.Limit) key { return newKey(ratelimit.NewLeakyMeterRule(l, l.Count)) }},
	{"leaky queue", true, func(l ratelimit.Limit) key { return newKey(ratelimit.NewLeakyQueueRule(l, l.Count)) }},
	{"GCRA", true, func(l ratelimit.Limit) key { return newKey(ratelimit.NewGCRARule(l, l.Count)) }},
}

// clock returns the Unix nanoseconds of hh:mm:ss on 2025-01-01 UTC plus
// frac nanoseconds. Unix time is aligned on minutes, so one-minute windows
// are calendar minutes.
func clock(hh, mm, ss int, frac time.Duration) int64 {
	return time.Date(2025, 1, 1, hh, mm, ss, 0, time.UTC).Add(frac).UnixNano()
}

// countIn returns how many times in sorted ts fall in (lo, hi].
func countIn(ts []int64, lo, hi int64) int {
	return upper(ts, hi) - upper(ts, lo)
}

// upper returns the number of times in sorted ts that are <= t.
func upper(ts []int64, t int64) int {
	lo, hi := 0, len(ts)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if ts[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// maxInWindow returns the largest number of times in sorted ts within any
// window (t-per, t] of length per.
func maxInWindow(ts []int64, per int64) int {
	best := 0
	for i, t := range ts {
		best = max(best, countIn(ts[:i+1], t-per, t))
	}
	return best
}

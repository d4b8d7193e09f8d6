package ratelimit_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// TestEdgeCases runs every algorithm through the same edge cases.
func TestEdgeCases(t *testing.T) {
	l := ratelimit.Limit{Count: 5, Per: 10 * sec}
	start := clock(12, 0, 0, 0)
	const years200 = 200 * 365 * 24 * int64(time.Hour)
	for _, a := range algos {
		t.Run(a.name, func(t *testing.T) {
			k := a.newKey(l)
			if k.decide(start, l.Count+1) {
				t.Fatal("n > limit admitted from rest")
			}
			if !k.decide(start, l.Count) {
				t.Fatal("n = limit refused from rest after a refused n > limit")
			}
			e := k.estimate(start)
			if e != float64(l.Count) {
				t.Fatalf("estimate after the burst = %v, want %d", e, l.Count)
			}
			for _, n := range []int{0, -1, math.MinInt} {
				if !k.decide(start, n) {
					t.Fatalf("n = %d refused", n)
				}
			}
			if k.decide(start, 1) {
				t.Fatal("n <= 0 made room")
			}
			if got := k.estimate(start); got != e {
				t.Fatalf("n <= 0 changed the estimate from %v to %v", e, got)
			}
			// Backwards: a time before the burst sees the key full.
			for _, back := range []int64{start - 1, start - int64(time.Hour), 0, -years200, math.MinInt64} {
				if k.decide(back, 1) {
					t.Fatalf("admitted at %d, before the full burst at %d", back, start)
				}
			}
			// Huge gaps: 200 years later, then the end of int64 time.
			for _, later := range []int64{start + years200, math.MaxInt64} {
				if !k.decide(later, l.Count) {
					t.Fatalf("burst refused at %d after a huge gap", later)
				}
				if k.decide(later, 1) {
					t.Fatalf("admitted beyond the burst at %d", later)
				}
				if e := k.estimate(later); e != float64(l.Count) {
					t.Fatalf("estimate at %d = %v, want %d", later, e, l.Count)
				}
			}
		})
	}
}

// TestZeroAndNegativeConfig checks the documented clamping.
func TestZeroAndNegativeConfig(t *testing.T) {
	start := clock(12, 0, 0, 0)
	year := int64(365 * 24 * time.Hour)
	for _, l := range []ratelimit.Limit{{Count: 0, Per: sec}, {Count: -5, Per: sec}, {Count: 0, Per: 0}} {
		for _, a := range algos {
			k := a.newKey(l)
			for _, at := range []int64{start, start + year} {
				if k.decide(at, 1) {
					t.Errorf("%s with %v (burst %d) admitted a request", a.name, l, l.Count)
				}
				if e := k.estimate(at); e != 0 {
					t.Errorf("%s with %v: estimate %v, want 0", a.name, l, e)
				}
			}
		}
	}
	// A bucket with a zero rate gives its burst once; a queue with a zero
	// rate would never let anything out, so it admits nothing.
	zero := ratelimit.Limit{Count: 0, Per: time.Minute}
	for name, k := range map[string]key{
		"token bucket": newKey(ratelimit.NewTokenBucketRule(zero, 3)),
		"leaky meter":  newKey(ratelimit.NewLeakyMeterRule(zero, 3)),
		"GCRA":         newKey(ratelimit.NewGCRARule(zero, 3)),
	} {
		if !k.decide(start, 2) || !k.decide(start+year, 1) || k.decide(start+100*year, 1) {
			t.Errorf("%s with a zero rate: want exactly the burst of 3, once", name)
		}
		if e := k.estimate(start + 100*year); e != 3 {
			t.Errorf("%s with a zero rate: estimate %v, want 3", name, e)
		}
	}
	if q := ratelimit.NewLeakyQueueRule(zero, 3); q.Capacity() != 0 {
		t.Errorf("queue with a zero rate has capacity %d, want 0", q.Capacity())
	}
	// Negative burst or capacity: nothing.
	l := ratelimit.Limit{Count: 10, Per: sec}
	for name, k := range map[string]key{
		"token bucket": newKey(ratelimit.NewTokenBucketRule(l, -1)),
		"leaky meter":  newKey(ratelimit.NewLeakyMeterRule(l, -1)),
		"leaky queue":  newKey(ratelimit.NewLeakyQueueRule(l, -1)),
		"GCRA":         newKey(ratelimit.NewGCRARule(l, -1)),
	} {
		if k.decide(start, 1) || k.decide(start+year, 1) {
			t.Errorf("%s with a negative capacity admitted a request", name)
		}
	}
	// Per below 1ns is 1ns.
	for _, per := range []time.Duration{0, -time.Second} {
		got := ratelimit.NewFixedWindowRule(ratelimit.Limit{Count: 3, Per: per}).Limit()
		if want := (ratelimit.Limit{Count: 3, Per: 1}); got != want {
			t.Errorf("fixed window with Per %v: Limit() = %v, want %v", per, got, want)
		}
		if got := (ratelimit.Limit{Count: 3, Per: per}).Interval(); got != 1 {
			t.Errorf("Limit{3, %v}.Interval() = %v, want 1ns", per, got)
		}
	}
	// Sub-windows: k in [1, MaxSubWindows] and at most Per in ns; Per
	// rounded down to a multiple of k.
	for _, tt := range []struct {
		per        time.Duration
		k, wantK   int
		wantPer    time.Duration
		wantWindow time.Duration
	}{
		{time.Minute, 0, 1, time.Minute, time.Minute},
		{time.Minute, -3, 1, time.Minute, time.Minute},
		{time.Minute, 4, 4, time.Minute, 15 * sec},
		{time.Minute, 1000, ratelimit.MaxSubWindows, time.Minute, sec},
		{5, 60, 5, 5, 1},
		{100, 7, 7, 98, 14},
	} {
		r := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 10, Per: tt.per}, tt.k)
		c, _ := r.Counters()
		if r.SubWindows() != tt.wantK || r.Limit().Per != tt.wantPer || c.Window != tt.wantWindow {
			t.Errorf("NewSlidingWindowRule(Per %v, k %d): k %d, Per %v, sub-window %v; want %d, %v, %v",
				tt.per, tt.k, r.SubWindows(), r.Limit().Per, c.Window, tt.wantK, tt.wantPer, tt.wantWindow)
		}
	}
	if got := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: math.MaxInt, Per: sec}, 1).Limit().Count; got != math.MaxInt32 {
		t.Errorf("sliding window Count clamped to %d, want MaxInt32", got)
	}
}

// TestLimitMethods checks String and Interval.
func TestLimitMethods(t *testing.T) {
	tests := []struct {
		l        ratelimit.Limit
		str      string
		interval time.Duration
	}{
		{ratelimit.Limit{Count: 100, Per: time.Minute}, "100 per 1m0s", 600 * time.Millisecond},
		{ratelimit.Limit{Count: 3, Per: time.Second}, "3 per 1s", 333333334}, // rounded up
		{ratelimit.Limit{Count: 0, Per: time.Second}, "0 per 1s", 0},
		{ratelimit.Limit{Count: 10, Per: 5}, "10 per 5ns", 1},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		if got := tt.l.Interval(); got != tt.interval {
			t.Errorf("%v: Interval() = %v, want %v", tt.l, got, tt.interval)
		}
	}
}

// TestDecideAgreesWithUpdate drives every rule through random traffic,
// backwards steps included, once through Decide and once through Update:
// same decisions, same estimates; and a refused Decide returns the state
// it was given.
func TestDecideAgreesWithUpdate(t *testing.T) {
	l := ratelimit.Limit{Count: 7, Per: 3 * sec}
	agree(t, "fixed window", ratelimit.NewFixedWindowRule(l))
	agree(t, "sliding window", ratelimit.NewSlidingWindowRule(l, 3))
	agree(t, "token bucket", ratelimit.NewTokenBucketRule(l, 7))
	agree(t, "leaky meter", ratelimit.NewLeakyMeterRule(l, 7))
	agree(t, "leaky queue", ratelimit.NewLeakyQueueRule(l, 7))
	agree(t, "GCRA", ratelimit.NewGCRARule(l, 7))

	// The log, whose state is not comparable.
	r := rand.New(rand.NewPCG(1, 1))
	rule := ratelimit.NewSlidingLogRule(l)
	var d, u ratelimit.SlidingLogState
	now := clock(2, 0, 0, 0)
	for i := range 5000 {
		now += r.Int64N(int64(sec)) - int64(sec)/4
		n := r.IntN(4)
		next, okD := rule.Decide(d, now, n)
		if !okD && !slices.Equal(next.Times(nil), d.Times(nil)) {
			t.Fatalf("sliding log call %d: refused Decide changed the log", i)
		}
		d = next
		okU := rule.Update(&u, now, n)
		if okD != okU || rule.Estimate(d, now) != rule.Estimate(u, now) {
			t.Fatalf("sliding log call %d: Decide %t, Update %t", i, okD, okU)
		}
	}
}

func agree[S comparable](t *testing.T, name string, rule ratelimit.Rule[S]) {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 1))
	var d, u S
	now := clock(2, 0, 0, 0)
	refused := 0
	for i := range 5000 {
		now += r.Int64N(int64(sec)) - int64(sec)/4 // sometimes backwards
		n := r.IntN(4)
		next, okD := rule.Decide(d, now, n)
		if !okD {
			refused++
			if next != d {
				t.Fatalf("%s call %d: refused Decide returned %+v, not the state it was given %+v", name, i, next, d)
			}
		}
		if n <= 0 && next != d {
			t.Fatalf("%s call %d: n = %d changed the state", name, i, n)
		}
		d = next
		okU := rule.Update(&u, now, n)
		if okD != okU || d != u {
			t.Fatalf("%s call %d: Decide %t %+v, Update %t %+v", name, i, okD, d, okU, u)
		}
		if e := rule.Estimate(d, now); e < 0 || math.IsNaN(e) {
			t.Fatalf("%s call %d: estimate %v", name, i, e)
		}
	}
	if refused == 0 {
		t.Fatalf("%s: traffic never refused; the test proves nothing", name)
	}
}

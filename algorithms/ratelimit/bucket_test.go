package ratelimit_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// TestOverloadFromFull sends a request every 10ms, six times the limit of
// 100 per minute, for five minutes from rest. The bucket family with
// capacity = limit admits its full burst plus a minute of refill within the
// first minute, close to twice the limit, and then the limit; the sliding
// log never more than the limit.
func TestOverloadFromFull(t *testing.T) {
	const limit = 100
	l := ratelimit.Limit{Count: limit, Per: time.Minute}
	per := int64(time.Minute)
	start := clock(9, 0, 0, 0)
	for _, a := range algos {
		t.Run(a.name, func(t *testing.T) {
			k := a.newKey(l)
			var admitted []int64
			for at := start; at < start+5*per; at += int64(10 * time.Millisecond) {
				if k.decide(at, 1) {
					admitted = append(admitted, at)
				}
			}
			first := countIn(admitted, start-1, start+per-1) // [start, start+1min)
			peak := maxInWindow(admitted, per)
			last := countIn(admitted, start+4*per-1, start+5*per-1)
			t.Logf("first minute %d, busiest minute %d, last minute %d", first, peak, last)
			switch {
			case a.bucket:
				// 100 at once, then one every 600ms: 99 more before 1min.
				if first < 2*limit-2 || peak > 2*limit {
					t.Errorf("first minute %d, busiest %d; want close to 2×%d, at most 2×%d", first, peak, limit, limit)
				}
			case a.name == "fixed window":
				// Under even overload the fixed window admits its limit at
				// the start of each minute: no 2× here.
				if peak != limit {
					t.Errorf("busiest minute %d, want %d", peak, limit)
				}
			default:
				if peak > limit {
					t.Errorf("busiest minute %d, want at most %d", peak, limit)
				}
			}
			if last < limit-1 || last > limit+1 {
				t.Errorf("last minute admitted %d, want the limit %d (±1)", last, limit)
			}
		})
	}
}

// TestBucketFamilyEquivalent drives the token bucket, the leaky bucket as a
// meter and as a queue, and GCRA with random limits and random traffic
// whose times never go backwards: all four must admit the same requests,
// their estimates must agree, the meter's level must be the token bucket's
// capacity minus tokens, and the queue's wait must be the backlog plus
// (n-1) intervals.
func TestBucketFamilyEquivalent(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for trial := range 200 {
		l := ratelimit.Limit{Count: 1 + r.IntN(50), Per: time.Duration(1 + r.Int64N(int64(time.Minute)))}
		burst := 1 + r.IntN(20)
		tb := ratelimit.NewTokenBucketRule(l, burst)
		gc := ratelimit.NewGCRARule(l, burst)
		me := ratelimit.NewLeakyMeterRule(l, burst)
		qu := ratelimit.NewLeakyQueueRule(l, burst)
		interval := int64(l.Interval())
		var (
			sTB ratelimit.TokenBucketState
			sGC ratelimit.GCRAState
			sMe ratelimit.LeakyMeterState
			sQu ratelimit.LeakyQueueState
		)
		now := clock(6, 0, 0, 0)
		admitted := 0
		for i := range 500 {
			switch r.IntN(5) {
			case 0: // same instant
			case 1: // a long pause
				now += r.Int64N(int64(burst) * interval * 2)
			default: // around the rate, sometimes faster
				now += r.Int64N(interval * 2)
			}
			n := r.IntN(burst + 2)
			deficit := max(sTB.Deficit-(now-sTB.Last), 0)
			tokens := tb.Tokens(sTB, now)
			var okTB, okGC, okMe bool
			sTB, okTB = tb.Decide(sTB, now, n)
			sGC, okGC = gc.Decide(sGC, now, n)
			sMe, okMe = me.Decide(sMe, now, n)
			wait, okQu := qu.Reserve(&sQu, now, n)
			if okTB != okGC || okTB != okMe || okTB != okQu {
				t.Fatalf("trial %d call %d (%v, burst %d, n %d): token bucket %t, GCRA %t, meter %t, queue %t",
					trial, i, l, burst, n, okTB, okGC, okMe, okQu)
			}
			if okTB && n > 0 {
				admitted++
				if want := time.Duration(deficit + int64(n-1)*interval); wait != want {
					t.Fatalf("trial %d call %d: queue wait %v, want backlog %v + %d intervals = %v",
						trial, i, wait, time.Duration(deficit), n-1, want)
				}
			}
			if got := float64(burst) - tokens; got < 0 || got > float64(burst) {
				t.Fatalf("trial %d call %d: tokens %v outside [0, %d]", trial, i, tokens, burst)
			}
			for _, at := range []int64{now, now + interval/3, now + 5*interval} {
				e := tb.Estimate(sTB, at)
				if g, m, q := gc.Estimate(sGC, at), me.Estimate(sMe, at), qu.Estimate(sQu, at); g != e || m != e || q != e {
					t.Fatalf("trial %d call %d: estimates differ: token bucket %v, GCRA %v, meter %v, queue %v", trial, i, e, g, m, q)
				}
				if tok := tb.Tokens(sTB, at); float64(burst)-tok-e > 1e-9 || e-(float64(burst)-tok) > 1e-9 {
					t.Fatalf("trial %d call %d: meter level %v != capacity %d - tokens %v", trial, i, e, burst, tok)
				}
			}
		}
		if admitted == 0 {
			t.Fatalf("trial %d: nothing admitted", trial)
		}
	}
}

// TestLeakyQueueSteps walks a queue of capacity 3 letting one request out
// every 100ms.
func TestLeakyQueueSteps(t *testing.T) {
	rule := ratelimit.NewLeakyQueueRule(ratelimit.Limit{Count: 10, Per: time.Second}, 3)
	const ms = time.Millisecond
	type step struct {
		at     time.Duration
		n      int
		ok     bool
		wait   time.Duration
		queued int // after the call
	}
	steps := []step{
		{0, 1, true, 0, 0},        // leaves at once
		{0, 1, true, 100 * ms, 1}, // waits behind it
		{0, 1, true, 200 * ms, 2}, // the bucket now holds 3
		{0, 1, false, 0, 2},       // overflow
		{50 * ms, 1, false, 0, 2}, // backlog 250ms + 100ms > 300ms
		{100 * ms, 1, true, 200 * ms, 2},
		{100 * ms, 1, false, 0, 2},
		{100 * ms, 0, true, 0, 2},  // n = 0: nothing queued
		{100 * ms, 4, false, 0, 2}, // n > capacity
		{time.Second, 1, true, 0, 0},
		{time.Second, 3, false, 0, 0}, // backlog 100ms + 300ms > 300ms
		{1100 * ms, 3, true, 200 * ms, 2},
		{time.Hour, 3, true, 200 * ms, 2},
	}
	var s ratelimit.LeakyQueueState
	base := clock(8, 0, 0, 0)
	for i, st := range steps {
		now := base + int64(st.at)
		before := s
		wait, ok := rule.Reserve(&s, now, st.n)
		if ok != st.ok || wait != st.wait {
			t.Fatalf("step %d: Reserve(+%v, %d) = %v, %t; want %v, %t", i, st.at, st.n, wait, ok, st.wait, st.ok)
		}
		if !ok && s != before {
			t.Fatalf("step %d: refused call changed the state", i)
		}
		if got := rule.Queued(s, now); got != st.queued {
			t.Fatalf("step %d: Queued = %d, want %d", i, got, st.queued)
		}
	}
}

// TestTimeBackwards checks how the rules that keep a clock and those that
// keep one time treat a call dated before an earlier one.
func TestTimeBackwards(t *testing.T) {
	l := ratelimit.Limit{Count: 1, Per: time.Second} // one token per second
	at := func(d time.Duration) int64 { return clock(10, 0, 0, d) }
	t.Run("token bucket: no time passing", func(t *testing.T) {
		r := ratelimit.NewTokenBucketRule(l, 2)
		s, _ := r.Decide(ratelimit.TokenBucketState{}, at(10*sec), 2)
		if _, ok := r.Decide(s, at(5*sec), 1); ok {
			t.Fatal("admitted at 5s after emptying at 10s")
		}
		// The clock stays at 10s: at 11s one token has come back, not six.
		s2, ok := r.Decide(s, at(11*sec), 1)
		if !ok || r.Tokens(s2, at(11*sec)) != 0 {
			t.Fatalf("at 11s: admitted %t, tokens left %v; want true, 0", ok, r.Tokens(s2, at(11*sec)))
		}
	})
	t.Run("GCRA: judged as if it came then, never fuller than burst", func(t *testing.T) {
		r := ratelimit.NewGCRARule(l, 3)
		s, _ := r.Decide(ratelimit.GCRAState{}, at(10*sec), 1) // TAT = 11s
		// At 9.5s the bucket would hold 1.5 requests' worth: one more fits
		// (a token bucket would see 1 at its clock, 10s).
		s2, ok := r.Decide(s, at(9500*time.Millisecond), 1)
		if !ok || s2.TAT != at(12*sec) {
			t.Fatalf("at 9.5s: admitted %t, TAT %v; want true, 12s", ok, time.Duration(s2.TAT-at(0)))
		}
		if got := r.Estimate(s2, at(0)); got != 3 {
			t.Fatalf("Estimate long before = %v, want the burst 3 (clamped)", got)
		}
		if _, ok := r.Decide(s2, at(0), 1); ok {
			t.Fatal("admitted a request into a full bucket")
		}
	})
}

// TestFloatRateMatchesLimit checks that the x/time/rate-style constructor and
// the Limit one agree when the rate is the same.
func TestFloatRateMatchesLimit(t *testing.T) {
	tests := []struct {
		rate float64
		l    ratelimit.Limit
	}{
		{2, ratelimit.Limit{Count: 2, Per: time.Second}},
		{0.25, ratelimit.Limit{Count: 1, Per: 4 * time.Second}},
		{100.0 / 60, ratelimit.Limit{Count: 100, Per: time.Minute}},
		{1e6, ratelimit.Limit{Count: 1000, Per: time.Millisecond}},
	}
	for _, tt := range tests {
		a := ratelimit.NewTokenBucket(tt.rate, 5)
		b := ratelimit.NewTokenBucketLimit(tt.l, 5)
		if a.Rule() != b.Rule() {
			t.Errorf("rate %v: rule %+v, Limit %v: rule %+v", tt.rate, a.Rule(), tt.l, b.Rule())
		}
	}
}

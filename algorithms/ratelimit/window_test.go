package ratelimit_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// TestBoundaryBurst sends a full limit at 07:09:59 and another at 07:10:00,
// one second apart across a minute boundary (the Criteo post's example), to
// every algorithm at 100 per minute.
func TestBoundaryBurst(t *testing.T) {
	const limit = 100
	l := ratelimit.Limit{Count: limit, Per: time.Minute}
	// The token bucket family refills one token every 600ms, so during
	// the second between the bursts it earns floor(1s/600ms) = 1 token.
	refill := int(time.Second / l.Interval())
	want := map[string]int{
		"fixed window":       2 * limit, // the counter restarts at 07:10:00
		"sliding log":        limit,
		"sliding window k=1": limit, // 0 + 100·60/60 at 07:10:00: full
		"sliding window k=4": limit,
		"token bucket":       limit + refill,
		"leaky meter":        limit + refill,
		"leaky queue":        limit + refill,
		"GCRA":               limit + refill,
	}
	for _, a := range algos {
		t.Run(a.name, func(t *testing.T) {
			k := a.newKey(l)
			got := 0
			for _, at := range []int64{clock(7, 9, 59, 0), clock(7, 10, 0, 0)} {
				for range 2 * limit {
					if k.decide(at, 1) {
						got++
					}
				}
			}
			if got != want[a.name] {
				t.Errorf("admitted %d within one second across the boundary, want %d", got, want[a.name])
			}
		})
	}
}

// TestFixedWindowSteps walks a fixed window through its cases.
func TestFixedWindowSteps(t *testing.T) {
	l := ratelimit.Limit{Count: 3, Per: 10 * sec}
	r := ratelimit.NewFixedWindowRule(l)
	base := clock(0, 0, 0, 0) // a multiple of 10s
	type step struct {
		at       time.Duration
		n        int
		want     bool
		estimate float64 // after the call
	}
	steps := []step{
		{0, 2, true, 2},
		{9 * sec, 1, true, 3},
		{9 * sec, 1, false, 3},
		{9999 * time.Millisecond, 0, true, 3},  // n = 0 always passes
		{10 * sec, 3, true, 3},                 // new window, aligned at 10s
		{5 * sec, 1, false, 3},                 // backwards: counts in the stored window
		{19 * sec, 4, false, 3},                // n > limit
		{20 * sec, 4, false, 0},                // still > limit in a fresh window
		{25 * sec, 1, true, 1},                 // window [20s, 30s)
		{time.Duration(1e9) * sec, 3, true, 3}, // a gap of ~32 years
	}
	var s ratelimit.FixedWindowState
	for i, st := range steps {
		now := base + int64(st.at)
		next, ok := r.Decide(s, now, st.n)
		if ok != st.want {
			t.Fatalf("step %d: Decide(+%v, %d) = %t, want %t", i, st.at, st.n, ok, st.want)
		}
		if !ok && next != s {
			t.Fatalf("step %d: refused call changed the state %+v to %+v", i, s, next)
		}
		s = next
		if got := r.Estimate(s, now); got != st.estimate {
			t.Fatalf("step %d: Estimate = %v, want %v", i, got, st.estimate)
		}
		if s.Start%int64(l.Per) != 0 {
			t.Fatalf("step %d: window start %d not aligned to %v", i, s.Start, l.Per)
		}
	}
}

// TestSlidingLogExact checks on random bursty traffic that the sliding log
// never admits more than the limit in any window, and refuses only when
// admitting would exceed it.
func TestSlidingLogExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 20 {
		l := ratelimit.Limit{Count: 1 + r.IntN(20), Per: time.Duration(1+r.IntN(1000)) * time.Millisecond}
		rule := ratelimit.NewSlidingLogRule(l)
		per := int64(l.Per)
		var s ratelimit.SlidingLogState
		var admitted []int64
		now := clock(12, 0, 0, 0)
		for i := range 3000 {
			if r.IntN(4) > 0 {
				now += r.Int64N(per / int64(l.Count) * 2)
			}
			n := r.IntN(4)
			before := countIn(admitted, now-per, now)
			next, ok := rule.Decide(s, now, n)
			if wantOK := before+n <= l.Count; ok != wantOK {
				t.Fatalf("trial %d call %d: %d in window, n = %d, limit %v: Decide = %t", trial, i, before, n, l, ok)
			}
			if got := rule.Estimate(next, now); int(got) != before+n*b2i(ok) {
				t.Fatalf("trial %d call %d: Estimate = %v, want %d", trial, i, got, before+n*b2i(ok))
			}
			s = next
			for range n * b2i(ok) {
				admitted = append(admitted, now)
			}
		}
		if got := maxInWindow(admitted, per); got > l.Count {
			t.Fatalf("trial %d: %d admitted in one window, limit %v", trial, got, l)
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestSlidingLogDecideDoesNotMutate checks that Decide leaves the state it
// was given valid, as a store simulation needs when two instances decide on
// the same read, and that Update agrees with it.
func TestSlidingLogDecideDoesNotMutate(t *testing.T) {
	rule := ratelimit.NewSlidingLogRule(ratelimit.Limit{Count: 4, Per: 10 * sec})
	var s ratelimit.SlidingLogState
	for i := range 3 {
		s, _ = rule.Decide(s, int64(i)*int64(sec), 1)
	}
	snapshot := s.Times(nil)
	a, okA := rule.Decide(s, int64(5*sec), 1)
	b, okB := rule.Decide(s, int64(6*sec), 1) // a racing instance, same read
	if !okA || !okB {
		t.Fatalf("Decide = %t, %t; want both admitted", okA, okB)
	}
	if got := s.Times(nil); !slices.Equal(got, snapshot) {
		t.Fatalf("Decide modified the state it was given: %v, was %v", got, snapshot)
	}
	if ta, tb := a.Times(nil), b.Times(nil); ta[3] != int64(5*sec) || tb[3] != int64(6*sec) {
		t.Fatalf("next states share memory: %v and %v", ta, tb)
	}
	if c := ratelimit.NewSlidingLogState([]int64{2, 0, 1}); !slices.Equal(c.Times(nil), []int64{0, 1, 2}) || c.Len() != 3 {
		t.Fatalf("NewSlidingLogState: %v", c.Times(nil))
	}
	// A log rebuilt from its times decides as the original.
	if c, ok := rule.Decide(ratelimit.NewSlidingLogState(snapshot), int64(5*sec), 1); !ok || !slices.Equal(c.Times(nil), a.Times(nil)) {
		t.Fatalf("rebuilt log: %t, %v; want %v", ok, c.Times(nil), a.Times(nil))
	}
	u := s.Clone()
	if !rule.Update(&u, int64(5*sec), 1) || !slices.Equal(u.Times(nil), a.Times(nil)) {
		t.Fatalf("Update gave %v, Decide %v", u.Times(nil), a.Times(nil))
	}
}

// TestSeedWorkedExample reproduces the Criteo post's worked example of the
// sliding window approximation: a call at 00:01:43 with one-minute windows
// counts the calls of minute 00:01 (from 00:01:00 to 00:01:43) plus those
// of minute 00:00 weighted by 17/60, the part of 00:00 still inside the
// sliding window 00:00:43..00:01:43. The post notes the estimate is exact
// when the load does not vary, too high when the previous minute's calls
// came early and too low when they came late.
func TestSeedWorkedExample(t *testing.T) {
	const weight = 17.0 / 60
	now := clock(0, 1, 43, 0)
	// Ten calls in minute 00:01, before 00:01:43.
	current := make([]int64, 10)
	for i := range current {
		current[i] = clock(0, 1, 4*i, 500*time.Millisecond)
	}
	spread := func(from, to int) []int64 { // 60 calls evenly in [from, to) seconds of minute 00:00
		ts := make([]int64, 60)
		for i := range ts {
			ts[i] = clock(0, 0, 0, time.Duration(from)*sec+time.Duration(i)*time.Duration(to-from)*sec/60+sec/120)
		}
		return ts
	}
	tests := []struct {
		name     string
		previous []int64
		compare  int // sign of estimate - exact
	}{
		{"uniform load: exact", spread(0, 60), 0},
		{"calls early in 00:00: over-estimate", spread(0, 30), 1},
		{"calls late in 00:00: under-estimate", spread(45, 60), -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			traffic := append(slices.Clone(tt.previous), current...)
			rule := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 1000, Per: time.Minute}, 1)
			var s ratelimit.SlidingWindowState
			for _, at := range traffic {
				s, _ = rule.Decide(s, at, 1)
			}
			want := float64(len(current)) + float64(len(tt.previous))*weight
			if got := rule.Estimate(s, now); got != want {
				t.Fatalf("Estimate at 00:01:43 = %v, want %d + %d·17/60 = %v", got, len(current), len(tt.previous), want)
			}
			exact := countIn(traffic, now-int64(time.Minute), now)
			if got := rule.Estimate(s, now) - float64(exact); math.Abs(got) < 1e-9 && tt.compare != 0 ||
				got > 1e-9 && tt.compare != 1 || got < -1e-9 && tt.compare != -1 {
				t.Fatalf("estimate - exact = %v (exact %d), want sign %d", got, exact, tt.compare)
			}
			// The same numbers from Memcached-style counters: minute 00:00
			// and minute 00:01 as two keys.
			c, err := rule.Counters()
			if err != nil {
				t.Fatal(err)
			}
			if c.Index(now) != now/int64(time.Minute) || c.Previous != 1 {
				t.Fatalf("Counters = %+v, Index = %d", c, c.Index(now))
			}
			counts := []int64{int64(len(tt.previous)), int64(len(current))}
			if got := c.Estimate(counts, now); got != want {
				t.Fatalf("Counters.Estimate = %v, want %v", got, want)
			}
		})
	}
	// The weight itself, and the admission boundary it implies: with 10 + 60·17/60
	// = 27 requests estimated, a limit of 28 admits one more and not two.
	rule := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 28, Per: time.Minute}, 1)
	c, _ := rule.Counters()
	if got := c.Estimate([]int64{1, 0}, now); got != weight {
		t.Fatalf("weight of the previous minute at 00:01:43 = %v, want 17/60", got)
	}
	if !c.Admit([]int64{60, 10}, now, 1) || c.Admit([]int64{60, 10}, now, 2) {
		t.Fatal("Counters.Admit: 27 + 1 must pass a limit of 28 and 27 + 2 must not")
	}
	// Record the traffic under a high limit; the state does not depend on
	// the limit, so the limit of 28 can then decide on it.
	high := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 1000, Per: time.Minute}, 1)
	var s ratelimit.SlidingWindowState
	for _, at := range append(spread(0, 60), current...) {
		s, _ = high.Decide(s, at, 1)
	}
	if got := rule.Estimate(s, now); got != 27 {
		t.Fatalf("Estimate = %v, want 27", got)
	}
	s, ok := rule.Decide(s, now, 1)
	if !ok {
		t.Fatal("27 + 1 refused at a limit of 28")
	}
	if _, ok := rule.Decide(s, now, 1); ok {
		t.Fatal("28 + 1 admitted at a limit of 28")
	}
}

// TestSlidingWindowErrorShrinks feeds Poisson traffic (nothing refused) and
// measures the mean absolute error of each estimate against the exact
// count of the last minute. The sliding approximation must beat the fixed
// window, and its error must shrink as k grows.
func TestSlidingWindowErrorShrinks(t *testing.T) {
	const (
		perMinute = 100.0
		minutes   = 600
	)
	r := rand.New(rand.NewPCG(8, 2026))
	var traffic []int64
	start := clock(0, 0, 0, 0)
	for now := float64(start); now < float64(start)+minutes*float64(time.Minute); {
		now += r.ExpFloat64() / perMinute * float64(time.Minute)
		traffic = append(traffic, int64(now))
	}
	l := ratelimit.Limit{Count: math.MaxInt32, Per: time.Minute}
	estimators := []struct {
		name string
		key  key
	}{
		{"fixed window", newKey(ratelimit.NewFixedWindowRule(l))},
	}
	ks := []int{1, 2, 4, 8, 15, 60}
	for _, k := range ks {
		estimators = append(estimators, struct {
			name string
			key  key
		}{fmt.Sprintf("k=%d", k), newKey(ratelimit.NewSlidingWindowRule(l, k))})
	}
	errs := make([]float64, len(estimators))
	samples := 0
	next := 0
	// Sample every 1.37s after the first minute, between arrivals.
	for at := start + int64(time.Minute); at < start+minutes*int64(time.Minute); at += 1370 * int64(time.Millisecond) {
		for ; next < len(traffic) && traffic[next] <= at; next++ {
			for _, e := range estimators {
				if !e.key.decide(traffic[next], 1) {
					t.Fatalf("%s refused a request under a huge limit", e.name)
				}
			}
		}
		exact := float64(countIn(traffic[:next], at-int64(time.Minute), at))
		for i, e := range estimators {
			errs[i] += math.Abs(e.key.estimate(at) - exact)
		}
		samples++
	}
	for i := range errs {
		errs[i] /= float64(samples)
		t.Logf("%-12s mean |estimate - exact| = %.2f requests", estimators[i].name, errs[i])
	}
	for i := 1; i < len(errs); i++ {
		if errs[i] >= errs[i-1] {
			t.Errorf("%s error %.3f is not below %s error %.3f", estimators[i].name, errs[i], estimators[i-1].name, errs[i-1])
		}
	}
}

// TestSlidingWindowMatchesCounters runs the same random traffic through the
// state-based rule and through a map of counters used as Memcached would
// be (INCR, read the earlier counters, DECR on refusal): the decisions must
// be identical.
func TestSlidingWindowMatchesCounters(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		l := ratelimit.Limit{Count: 1 + r.IntN(30), Per: time.Duration(1+r.IntN(60)) * sec}
		k := 1 + r.IntN(8)
		sw := ratelimit.NewSlidingWindowRule(l, k)
		fw := ratelimit.NewFixedWindowRule(l)
		var s ratelimit.SlidingWindowState
		var f ratelimit.FixedWindowState
		cs, _ := sw.Counters()
		cf, _ := fw.Counters()
		store := map[string]int64{}
		incrAdmit := func(c ratelimit.Counters, prefix string, now int64, n int) bool {
			i := c.Index(now)
			cur := prefix + fmt.Sprint(i)
			store[cur] += int64(n)
			counts := make([]int64, c.Previous+1)
			for j := range counts {
				counts[j] = store[prefix+fmt.Sprint(i-int64(c.Previous-j))]
			}
			ok := c.Admit(counts, now, 0)
			if !ok {
				store[cur] -= int64(n)
			}
			return ok
		}
		now := clock(1, 0, 0, 0)
		for i := range 2000 {
			now += r.Int64N(int64(l.Per) / int64(l.Count) * 2)
			n := r.IntN(3)
			got, want := incrAdmit(cs, "s", now, n), sw.Update(&s, now, n)
			if got != want {
				t.Fatalf("trial %d call %d: sliding window %v k=%d: counters %t, state %t", trial, i, l, k, got, want)
			}
			var sum int64
			for _, c := range s.Counts[:k] {
				sum += int64(c)
			}
			if s.Sum != sum {
				t.Fatalf("trial %d call %d: Sum %d, counts add up to %d", trial, i, s.Sum, sum)
			}
			got, want = incrAdmit(cf, "f", now, n), fw.Update(&f, now, n)
			if got != want {
				t.Fatalf("trial %d call %d: fixed window %v: counters %t, state %t", trial, i, l, got, want)
			}
		}
	}
}

// TestCountersReport checks which rules run on increment-only counters.
func TestCountersReport(t *testing.T) {
	l := ratelimit.Limit{Count: 10, Per: time.Minute}
	tests := []struct {
		name string
		rule interface {
			Counters() (ratelimit.Counters, error)
		}
		want ratelimit.Counters // zero: must fail
	}{
		{"fixed window", ratelimit.NewFixedWindowRule(l), ratelimit.Counters{Limit: 10, Window: time.Minute}},
		{"sliding window", ratelimit.NewSlidingWindowRule(l, 4), ratelimit.Counters{Limit: 10, Window: 15 * sec, Previous: 4}},
		{"sliding log", ratelimit.NewSlidingLogRule(l), ratelimit.Counters{}},
		{"token bucket", ratelimit.NewTokenBucketRule(l, 10), ratelimit.Counters{}},
		{"leaky meter", ratelimit.NewLeakyMeterRule(l, 10), ratelimit.Counters{}},
		{"leaky queue", ratelimit.NewLeakyQueueRule(l, 10), ratelimit.Counters{}},
		{"GCRA", ratelimit.NewGCRARule(l, 10), ratelimit.Counters{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.rule.Counters()
			if tt.want == (ratelimit.Counters{}) {
				if !errors.Is(err, ratelimit.ErrNeedsAtomicUpdate) {
					t.Fatalf("Counters() error = %v, want ErrNeedsAtomicUpdate", err)
				}
				return
			}
			if err != nil || c != tt.want {
				t.Fatalf("Counters() = %+v, %v; want %+v", c, err, tt.want)
			}
			if got, want := c.Expiry(), time.Duration(c.Previous+1)*c.Window; got != want {
				t.Fatalf("Expiry = %v, want %v", got, want)
			}
		})
	}
}

// TestMerge checks that deltas merged into a replica reproduce the state
// of a single key that saw all the requests.
func TestMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	l := ratelimit.Limit{Count: 1 << 20, Per: 10 * sec}
	fw := ratelimit.NewFixedWindowRule(l)
	sw := ratelimit.NewSlidingWindowRule(l, 5)
	lg := ratelimit.NewSlidingLogRule(l)
	var fAll, fMerged ratelimit.FixedWindowState
	var sAll, sMerged ratelimit.SlidingWindowState
	var lAll, lMerged ratelimit.SlidingLogState
	now := clock(3, 0, 0, 0)
	for i := range 500 {
		now += r.Int64N(int64(sec))
		n := 1 + r.IntN(3)
		fAll, _ = fw.Decide(fAll, now, n)
		sAll, _ = sw.Decide(sAll, now, n)
		lAll, _ = lg.Decide(lAll, now, n)
		fMerged = fw.Merge(fMerged, fw.Delta(now, n))
		sMerged = sw.Merge(sw.Delta(now, n), sMerged) // either order
		lMerged = lg.Merge(lMerged, lg.Delta(now, n))
		for _, at := range []int64{now, now + int64(sec)/2, now + 3*int64(sec)} {
			if a, b := fw.Estimate(fAll, at), fw.Estimate(fMerged, at); a != b {
				t.Fatalf("call %d: fixed window estimate %v, merged %v", i, a, b)
			}
			if a, b := sw.Estimate(sAll, at), sw.Estimate(sMerged, at); a != b {
				t.Fatalf("call %d: sliding window estimate %v, merged %v", i, a, b)
			}
			if a, b := lg.Estimate(lAll, at), lg.Estimate(lMerged, at); a != b {
				t.Fatalf("call %d: sliding log estimate %v, merged %v", i, a, b)
			}
		}
	}
	if fAll != fMerged || sAll != sMerged {
		t.Fatalf("merged states differ: %+v vs %+v", fAll, fMerged)
	}
}

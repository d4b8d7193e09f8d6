package ratelimit_test

import (
	"errors"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// This file is a toy shared store: two instances of a service limit one
// client through one key, on virtual time. It is not the lab's store
// simulation; it shows that the rules' API is enough to build each store
// semantics on top, and that the semantics differ as they should.

// toyLimit is the limit in every toy scenario. At each tick both instances
// receive one request; the ticks are 1µs apart, so with a limit per minute
// nothing refills during the 2·toyLimit requests.
var toyLimit = ratelimit.Limit{Count: 20, Per: time.Minute}

const tick = int64(time.Microsecond)

// toyResult is what a scenario admitted.
type toyResult struct {
	admitted int // requests admitted by both instances together
	retries  int // compare-and-swap retries
}

// toyAtomic is Redis with a Lua script: each request's read, decision and
// write happen as one step at the store.
func toyAtomic[S any](rule ratelimit.Rule[S], start int64) toyResult {
	var store S
	var res toyResult
	for i := range toyLimit.Count {
		now := start + int64(i)*tick
		for range 2 { // instance A, then instance B
			var ok bool
			if store, ok = rule.Decide(store, now, 1); ok {
				res.admitted++
			}
		}
	}
	return res
}

// toyRacy is read-then-write without atomicity: both instances read the key
// at the same moment, decide on what they read, and write back if they
// admitted, B's write landing after A's (last write wins).
func toyRacy[S any](rule ratelimit.Rule[S], start int64) toyResult {
	var store S
	var res toyResult
	for i := range toyLimit.Count {
		now := start + int64(i)*tick
		readA, readB := store, store
		nextA, okA := rule.Decide(readA, now, 1)
		nextB, okB := rule.Decide(readB, now, 1)
		if okA {
			res.admitted++
			store = nextA
		}
		if okB {
			res.admitted++
			store = nextB // overwrites A's admission
		}
	}
	return res
}

// toyCAS is compare-and-swap with retries on a versioned key: both
// instances read, A's swap succeeds, B's fails because the version moved,
// so B reads again and decides again.
func toyCAS[S any](rule ratelimit.Rule[S], start int64) toyResult {
	var store ratelimit.Versioned[S]
	cas := func(old uint64, next S) bool {
		if store.Version != old {
			return false
		}
		store = ratelimit.Versioned[S]{State: next, Version: old + 1}
		return true
	}
	var res toyResult
	for i := range toyLimit.Count {
		now := start + int64(i)*tick
		reads := [2]ratelimit.Versioned[S]{store, store}
		for inst := range 2 {
			for attempt := 0; ; attempt++ {
				if attempt > 0 {
					res.retries++
					reads[inst] = store // read again
				}
				next, ok := rule.Decide(reads[inst].State, now, 1)
				if !ok { // a refusal writes nothing
					break
				}
				if cas(reads[inst].Version, next) {
					res.admitted++
					break
				}
			}
		}
	}
	return res
}

// toyLocal is local-only limiting: each instance keeps its own state.
func toyLocal[S any](rule ratelimit.Rule[S], start int64) toyResult {
	var local [2]S
	var res toyResult
	for i := range toyLimit.Count {
		now := start + int64(i)*tick
		for inst := range local {
			var ok bool
			if local[inst], ok = rule.Decide(local[inst], now, 1); ok {
				res.admitted++
			}
		}
	}
	return res
}

// toyRule runs the four generic scenarios for one rule.
type toyRule struct {
	name                     string
	atomic, racy, cas, local func(start int64) toyResult
}

func toyRuleOf[S any](name string, rule ratelimit.Rule[S]) toyRule {
	return toyRule{
		name:   name,
		atomic: func(s int64) toyResult { return toyAtomic(rule, s) },
		racy:   func(s int64) toyResult { return toyRacy(rule, s) },
		cas:    func(s int64) toyResult { return toyCAS(rule, s) },
		local:  func(s int64) toyResult { return toyLocal(rule, s) },
	}
}

// TestToyStoreSemantics: with a key shared by two instances, an atomic
// script and compare-and-swap admit exactly the limit; read-then-write
// without atomicity and local-only state admit twice the limit.
func TestToyStoreSemantics(t *testing.T) {
	l, n := toyLimit, toyLimit.Count
	rules := []toyRule{
		toyRuleOf("fixed window", ratelimit.NewFixedWindowRule(l)),
		toyRuleOf("sliding window", ratelimit.NewSlidingWindowRule(l, 4)),
		toyRuleOf("sliding log", ratelimit.NewSlidingLogRule(l)),
		toyRuleOf("token bucket", ratelimit.NewTokenBucketRule(l, n)),
		toyRuleOf("leaky meter", ratelimit.NewLeakyMeterRule(l, n)),
		toyRuleOf("leaky queue", ratelimit.NewLeakyQueueRule(l, n)),
		toyRuleOf("GCRA", ratelimit.NewGCRARule(l, n)),
	}
	start := clock(14, 0, 0, 0)
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			if got := r.atomic(start); got.admitted != n {
				t.Errorf("atomic script admitted %d, want the limit %d", got.admitted, n)
			}
			if got := r.racy(start); got.admitted != 2*n {
				t.Errorf("read-then-write admitted %d, want 2×%d (every pair of reads races)", got.admitted, n)
			}
			got := r.cas(start)
			if got.admitted != n {
				t.Errorf("compare-and-swap admitted %d, want the limit %d", got.admitted, n)
			}
			// Both instances admit at each of the first n/2 ticks, and B's
			// swap fails once each time; after that both refuse and
			// write nothing.
			if got.retries != n/2 {
				t.Errorf("compare-and-swap retried %d times, want one per tick with two admissions (%d)", got.retries, n/2)
			}
			if got := r.local(start); got.admitted != 2*n {
				t.Errorf("local-only admitted %d, want 2×%d", got.admitted, n)
			}
		})
	}
}

// TestToyIncrementStore runs the window rules on Memcached-style counters:
// both instances INCR before either reads, the counters only ever grow, and
// no more than the limit is admitted; with DECR on refusal, the counters
// end up holding exactly the admitted requests.
func TestToyIncrementStore(t *testing.T) {
	l, n := toyLimit, toyLimit.Count
	for _, tt := range []struct {
		name string
		rule interface {
			Counters() (ratelimit.Counters, error)
		}
	}{
		{"fixed window", ratelimit.NewFixedWindowRule(l)},
		{"sliding window", ratelimit.NewSlidingWindowRule(l, 4)},
	} {
		for _, decr := range []bool{false, true} {
			c, err := tt.rule.Counters()
			if err != nil {
				t.Fatal(err)
			}
			store := map[int64]int64{}
			admitted := 0
			start := clock(14, 0, 0, 0)
			for i := range n {
				now := start + int64(i)*tick
				idx := c.Index(now)
				// Both INCRs land before either instance reads the
				// earlier windows: the worst interleaving.
				store[idx]++
				countA := store[idx]
				store[idx]++
				countB := store[idx]
				for _, cur := range []int64{countA, countB} {
					counts := make([]int64, c.Previous+1)
					for j := range c.Previous {
						counts[j] = store[idx-int64(c.Previous-j)]
					}
					counts[c.Previous] = cur
					if c.Admit(counts, now, 0) {
						admitted++
					} else if decr {
						store[idx]--
					}
				}
			}
			if admitted != n {
				t.Errorf("%s (DECR on refusal %t): admitted %d, want the limit %d", tt.name, decr, admitted, n)
			}
			var total int64
			for _, v := range store {
				total += v
			}
			if want := int64(2 * n); !decr && total != want {
				t.Errorf("%s without DECR: counters hold %d, want every request, %d", tt.name, total, want)
			}
			if want := int64(n); decr && total != want {
				t.Errorf("%s with DECR: counters hold %d, want the admitted %d", tt.name, total, want)
			}
		}
	}
	for _, rule := range []interface {
		Counters() (ratelimit.Counters, error)
	}{ratelimit.NewTokenBucketRule(l, n), ratelimit.NewGCRARule(l, n)} {
		if _, err := rule.Counters(); !errors.Is(err, ratelimit.ErrNeedsAtomicUpdate) {
			t.Errorf("%T runs on counters: %v", rule, err)
		}
	}
}

// toyAsync runs asynchronous propagation: each instance decides on its own
// copy and sends each admission's Delta to the other, which merges it lag
// later. It returns the admissions and both copies' final estimates.
func toyAsync[S any, R interface {
	ratelimit.Rule[S]
	ratelimit.Merger[S]
}](rule R, start, lag int64) (admitted int, estimates [2]float64) {
	type msg struct {
		at    int64
		to    int
		delta S
	}
	var (
		local   [2]S
		pending []msg
	)
	deliver := func(now int64) {
		kept := pending[:0]
		for _, m := range pending {
			if m.at <= now {
				local[m.to] = rule.Merge(local[m.to], m.delta)
			} else {
				kept = append(kept, m)
			}
		}
		pending = kept
	}
	end := start
	for i := range toyLimit.Count {
		now := start + int64(i)*tick
		end = now
		deliver(now)
		for inst := range local {
			var ok bool
			if local[inst], ok = rule.Decide(local[inst], now, 1); ok {
				admitted++
				pending = append(pending, msg{now + lag, 1 - inst, rule.Delta(now, 1)})
			}
		}
	}
	end += lag
	deliver(end)
	return admitted, [2]float64{rule.Estimate(local[0], end), rule.Estimate(local[1], end)}
}

// TestToyAsyncPropagation: with a lag shorter than the gap between
// requests each instance sees the other's admissions before its next
// request, and together they admit the limit; with a lag longer than the
// whole burst each admits the full limit; in between, something in
// between. Once the deltas arrive, each copy counts everything admitted.
func TestToyAsyncPropagation(t *testing.T) {
	l, n := toyLimit, toyLimit.Count
	start := clock(14, 0, 0, 0)
	for _, c := range []struct {
		lag         int64
		least, most int
	}{
		{tick / 2, n, n},
		{11 * tick / 2, n + 1, 2*n - 1},
		{time.Second.Nanoseconds(), 2 * n, 2 * n},
	} {
		for _, r := range []struct {
			name string
			run  func() (int, [2]float64)
		}{
			{"fixed window", func() (int, [2]float64) {
				return toyAsync[ratelimit.FixedWindowState](ratelimit.NewFixedWindowRule(l), start, c.lag)
			}},
			{"sliding window", func() (int, [2]float64) {
				return toyAsync[ratelimit.SlidingWindowState](ratelimit.NewSlidingWindowRule(l, 4), start, c.lag)
			}},
			{"sliding log", func() (int, [2]float64) {
				return toyAsync[ratelimit.SlidingLogState](ratelimit.NewSlidingLogRule(l), start, c.lag)
			}},
		} {
			admitted, est := r.run()
			if admitted < c.least || admitted > c.most {
				t.Errorf("%s, lag %v: admitted %d, want %d to %d", r.name, time.Duration(c.lag), admitted, c.least, c.most)
			}
			for i, e := range est {
				if e != float64(admitted) {
					t.Errorf("%s, lag %v: instance %d estimates %v after propagation, want all %d admitted",
						r.name, time.Duration(c.lag), i, e, admitted)
				}
			}
		}
	}
}

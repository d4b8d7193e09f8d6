package ratelimit_test

import (
	"fmt"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// The fixed window forgets at each boundary: a client that sends its whole
// limit at 07:09:59 may send it again at 07:10:00. The sliding window
// approximation remembers the previous minute.
func ExampleFixedWindow() {
	l := ratelimit.Limit{Count: 100, Per: time.Minute}
	fixed := ratelimit.NewFixedWindow(l)
	sliding := ratelimit.NewSlidingWindow(l, 1)
	before := time.Date(2025, 1, 1, 7, 9, 59, 0, time.UTC)
	after := before.Add(time.Second) // 07:10:00
	for _, at := range []time.Time{before, after} {
		fmt.Printf("%s fixed %t sliding %t\n", at.Format("15:04:05"), fixed.AllowN(at, 100), sliding.AllowN(at, 100))
	}
	fmt.Printf("estimates at 07:10:00: fixed %.0f, sliding %.0f\n", fixed.Estimate(after), sliding.Estimate(after))
	// Output:
	// 07:09:59 fixed true sliding true
	// 07:10:00 fixed true sliding false
	// estimates at 07:10:00: fixed 100, sliding 100
}

// A leaky bucket queue smooths a burst: the requests are admitted while
// the bucket has room, and each is told how long to wait so that they
// leave one every 100ms.
func ExampleLeakyQueue() {
	q := ratelimit.NewLeakyQueue(ratelimit.Limit{Count: 10, Per: time.Second}, 3)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 4 {
		wait, ok := q.ReserveN(now, 1)
		fmt.Printf("request %d: admitted %t, wait %v\n", i, ok, wait)
	}
	fmt.Println("waiting:", q.Queued(now))
	// Output:
	// request 0: admitted true, wait 0s
	// request 1: admitted true, wait 100ms
	// request 2: admitted true, wait 200ms
	// request 3: admitted false, wait 0s
	// waiting: 2
}

// GCRA admits what a token bucket with the same rate and burst admits,
// with a single time per key.
func ExampleGCRA() {
	l := ratelimit.Limit{Count: 2, Per: time.Second}
	g := ratelimit.NewGCRA(l, 2)
	b := ratelimit.NewTokenBucketLimit(l, 2)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, ms := range []int{0, 0, 0, 400, 500, 600, 1000} {
		now := start.Add(time.Duration(ms) * time.Millisecond)
		fmt.Printf("t=%4dms GCRA %-5t token bucket %t\n", ms, g.AllowN(now, 1), b.AllowN(now, 1))
	}
	// Output:
	// t=   0ms GCRA true  token bucket true
	// t=   0ms GCRA true  token bucket true
	// t=   0ms GCRA false token bucket false
	// t= 400ms GCRA false token bucket false
	// t= 500ms GCRA true  token bucket true
	// t= 600ms GCRA false token bucket false
	// t=1000ms GCRA true  token bucket true
}

// A rule and its per-key states are all a shared limiter needs. Here a map
// stands for the store and each call is one atomic step (a Lua script in
// Redis): read the client's state, decide, write the next state back.
func ExampleRule() {
	rule := ratelimit.NewGCRARule(ratelimit.Limit{Count: 1, Per: time.Second}, 2)
	store := map[string]ratelimit.GCRAState{} // a missing key reads as the zero state
	script := func(client string, now int64) bool {
		next, ok := rule.Decide(store[client], now, 1)
		if ok {
			store[client] = next
		}
		return ok
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for _, client := range []string{"alice", "alice", "alice", "bob"} {
		fmt.Println(client, script(client, now))
	}
	// Output:
	// alice true
	// alice true
	// alice false
	// bob true
}

// On a store with only atomic increments (Memcached), the window rules
// run as counters: INCR the current window's counter, read the earlier
// ones, and decide from the counts. Here a map stands for the store.
func ExampleCounters() {
	rule := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 10, Per: time.Minute}, 1)
	c, _ := rule.Counters()
	store := map[string]int64{}
	keyOf := func(client string, index int64) string { return fmt.Sprintf("%s_%d", client, index) }
	allow := func(client string, now int64) bool {
		i := c.Index(now)
		store[keyOf(client, i)]++ // INCR
		counts := []int64{store[keyOf(client, i-1)], store[keyOf(client, i)]}
		if c.Admit(counts, now, 0) {
			return true
		}
		store[keyOf(client, i)]-- // DECR: count only admitted requests
		return false
	}
	minute := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano()
	for range 10 {
		allow("carol", minute) // ten at 00:00:00
	}
	// At 00:01:30 half of minute 00:00 is still inside the window: 10·30/60 = 5.
	at := minute + int64(90*time.Second)
	admitted := 0
	for range 10 {
		if allow("carol", at) {
			admitted++
		}
	}
	fmt.Println("admitted at 00:01:30:", admitted)
	fmt.Printf("counters expire after %v\n", c.Expiry())
	// Output:
	// admitted at 00:01:30: 5
	// counters expire after 2m0s
}

// The sliding log is exact: it admits no more than the limit in any window.
func ExampleSlidingLog() {
	lim := ratelimit.NewSlidingLog(ratelimit.Limit{Count: 2, Per: time.Second})
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, ms := range []int{0, 500, 999, 1000, 1499, 1500} {
		now := start.Add(time.Duration(ms) * time.Millisecond)
		fmt.Printf("t=%4dms %t\n", ms, lim.AllowN(now, 1))
	}
	// Output:
	// t=   0ms true
	// t= 500ms true
	// t= 999ms false
	// t=1000ms true
	// t=1499ms false
	// t=1500ms true
}

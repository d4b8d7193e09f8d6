package balance_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// TestLeastLoadedChapter walks through the chapter's example: a client
// uses backends t0 to t9 with these active requests
//
//	t0 t1 t2 t3 t4 t5 t6 t7 t8 t9
//	 2  1  0  0  1  0  2  0  0  1
//
// (the chapter's candidate lists, t2, t3, t5, t7, t8 and later "all but t0
// and t6", fix t7 at 0 and then 1). The first request goes to one of the
// least loaded, t2, t3, t5, t7 and t8; the chapter assumes t2, which is
// where round robin from t0 lands. With no request completing, the next
// four go to t3, t5, t7 and t8, leaving every backend but t0 and t6 with
// one request; the next goes to one of those. If t4's request then
// completes, t4 is the only backend with none and gets the next request.
func TestLeastLoadedChapter(t *testing.T) {
	active := []int{2, 1, 0, 0, 1, 0, 2, 0, 0, 1}
	tab := &balance.Table{InFlight: active}
	ll := &balance.LeastLoaded{}
	send := func() int {
		i := ll.Pick(tab)
		active[i]++
		return i
	}

	if got := send(); got != 2 {
		t.Fatalf("first pick t%d, want t2", got)
	}
	if want := []int{2, 1, 1, 0, 1, 0, 2, 0, 0, 1}; !slices.Equal(active, want) {
		t.Fatalf("after the first pick: %v, want %v", active, want)
	}
	var next []int
	for range 4 {
		next = append(next, send())
	}
	if slices.Sort(next); !slices.Equal(next, []int{3, 5, 7, 8}) {
		t.Errorf("next four picks %v, want t3, t5, t7 and t8", next)
	}
	if want := []int{2, 1, 1, 1, 1, 1, 2, 1, 1, 1}; !slices.Equal(active, want) {
		t.Fatalf("after five picks: %v, want %v", active, want)
	}
	// Any backend but t0 and t6, in round-robin order.
	ll2 := *ll
	if got := ll2.Pick(tab); got == 0 || got == 6 {
		t.Errorf("sixth pick t%d, want any but t0 and t6", got)
	}
	active[4] = 0 // t4's request completes
	if got := ll.Pick(tab); got != 4 {
		t.Errorf("after t4 completes: pick t%d, want t4", got)
	}
}

// TestLeastLoadedRoundRobinAmongTies checks that ties are taken in turn:
// with equal loads the picks cycle through the subset.
func TestLeastLoadedRoundRobinAmongTies(t *testing.T) {
	tab := &balance.Table{InFlight: []int{3, 1, 1, 4, 1}}
	ll := &balance.LeastLoaded{}
	var got []int
	for range 7 {
		got = append(got, ll.Pick(tab)) // loads unchanged: the caller counts nothing
	}
	if want := []int{1, 2, 4, 1, 2, 4, 1}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
}

// sinkhole simulates one client sending a request every tick for ticks
// ticks to n backends. Backend 0 fails fast: it answers every request at
// once with an error. The others answer after latency ticks. RecentErrors
// counts a backend's errors over the last window ticks. It returns the
// share of requests, after a warm-up, that went to backend 0.
func sinkhole(p balance.Picker, n, ticks, latency, window int) float64 {
	tab := &balance.Table{InFlight: make([]int, n), Errors: make([]int, n)}
	type event struct{ at, backend int }
	var done, expire []event // in time order: latency and window are constant
	warm, toBad, total := ticks/10, 0, 0
	for now := range ticks {
		for len(done) > 0 && done[0].at <= now {
			tab.InFlight[done[0].backend]--
			done = done[1:]
		}
		for len(expire) > 0 && expire[0].at <= now {
			tab.Errors[expire[0].backend]--
			expire = expire[1:]
		}
		i := p.Pick(tab)
		if i == 0 {
			tab.Errors[0]++
			expire = append(expire, event{now + window, 0})
		} else {
			tab.InFlight[i]++
			done = append(done, event{now + latency, i})
		}
		if now >= warm {
			total++
			if i == 0 {
				toBad++
			}
		}
	}
	return float64(toBad) / float64(total)
}

// TestSinkholing shows the chapter's sinkholing and its fix. Backends take
// 200 ticks to answer and the client sends one request per tick, so it
// keeps about 20 requests in flight. A backend that fails fast never has
// an active request, so least-loaded picking sends it nearly everything.
// Counting its recent errors as active requests, over a window twice as
// long as a request lasts, weighs each error like two requests: the failing
// backend gets about half a healthy backend's share, 1/19. Power of two
// choices is affected the same way but less: the failing backend wins
// every pair it is in, about 2/n of the draws.
func TestSinkholing(t *testing.T) {
	const n, ticks, latency, window = 10, 20000, 200, 400
	fair := 1.0 / n
	tests := []struct {
		name     string
		p        balance.Picker
		min, max float64
	}{
		{"least loaded", &balance.LeastLoaded{}, 0.9, 1},
		{"least loaded, errors counted", &balance.LeastLoaded{CountErrors: true}, 0, 0.7 * fair},
		{"two choices", &balance.TwoChoices{Src: rand.NewPCG(1, 1)}, 1.5 * fair, 2.5 * fair},
		{"two choices, errors counted", &balance.TwoChoices{Src: rand.NewPCG(1, 1), CountErrors: true}, 0, 0.7 * fair},
		{"round robin", &balance.RoundRobin{}, fair, fair}, // blind to it
	}
	for _, tc := range tests {
		got := sinkhole(tc.p, n, ticks, latency, window)
		t.Logf("%s: %.3f of requests to the failing backend", tc.name, got)
		if got < tc.min-1e-3 || got > tc.max+1e-3 {
			t.Errorf("%s: %.3f of requests to the failing backend, want %.2f..%.2f", tc.name, got, tc.min, tc.max)
		}
	}
}

package backoff

import (
	"container/list"
	"context"
	"math"
	"sync"
	"time"

	"github.com/resilience-playground/playground/param"
)

// The cost model. How much work a scenario takes depends on everything at once: without
// backoff, n clients write about n^1.8 times; jitter brings that down to n^1.2–1.4 when the
// sleeps are long against the network, and not at all when they are short; a network without
// variance keeps clients in lockstep. No formula is within 2× of that across the parameter
// space, so Cost measures instead: it simulates each strategy of the scenario's setting at
// small client counts (pilot sizes, a few trials each, a few milliseconds in all) and
// interpolates their event counts on log-log axes, extrapolating beyond the largest with the
// slope of the last two (between 1 and 2: work grows at least as fast as the clients and at
// most as fast as no backoff). The pilots do not depend on the scenario's seed or trials, and
// the lab keeps them, so moving those sliders, or asking again, costs nothing.

// pilotSizes are the client counts simulated to estimate a strategy's work.
var pilotSizes = []int{8, 16, 32, 64, 128}

// pilotTrials are the trials averaged at each pilot size.
const pilotTrials = 4

// pilotMemoSize is how many strategies' pilot estimates a lab keeps.
const pilotMemoSize = 4096

// pilotKey is a strategy in a setting, the seed and trials aside.
type pilotKey struct {
	strategy   string
	base, cap  time.Duration
	multiplier float64
	mean, sd   time.Duration
}

// pilots is a bounded LRU of event counts at the pilot sizes.
type pilots struct {
	mu    sync.Mutex
	max   int
	items map[pilotKey]*list.Element
	order *list.List
}

type pilotEntry struct {
	key    pilotKey
	events []float64 // mean events per simulation at each pilot size
}

func newPilots(max int) *pilots {
	return &pilots{max: max, items: map[pilotKey]*list.Element{}, order: list.New()}
}

// events returns the mean events per simulation at each pilot size, simulating them if needed.
func (r *runner) pilotEvents(k pilotKey) []float64 {
	ps := r.pilots
	ps.mu.Lock()
	if e, ok := ps.items[k]; ok {
		ps.order.MoveToFront(e)
		ev := e.Value.(*pilotEntry).events
		ps.mu.Unlock()
		return ev
	}
	ps.mu.Unlock()

	w := r.worlds.get()
	defer r.worlds.put(w)
	p := Policy(k.strategy, k.base, k.cap, k.multiplier)
	events := make([]float64, len(pilotSizes))
	for i, n := range pilotSizes {
		var sum int64
		for trial := range pilotTrials {
			// Never cancelled and bounded: at most pilotTrials·simEvents(128) events.
			if _, err := w.Simulate(context.Background(), Config{Clients: n, Policy: p, LatencyMean: k.mean,
				LatencySD: k.sd, Seed: 0, Trial: trial}, nil); err != nil {
				panic("backoff lab: pilot simulation: " + err.Error()) // no budget, no context: cannot fail
			}
			sum += w.loop.Steps()
		}
		events[i] = float64(sum) / pilotTrials
	}

	ps.mu.Lock()
	defer ps.mu.Unlock()
	if _, ok := ps.items[k]; !ok {
		ps.items[k] = ps.order.PushFront(&pilotEntry{key: k, events: events})
		for ps.order.Len() > ps.max {
			old := ps.order.Back()
			ps.order.Remove(old)
			delete(ps.items, old.Value.(*pilotEntry).key)
		}
	}
	return events
}

// perSimulation estimates the events of one simulation of strategy at n clients in setting s.
func (r *runner) perSimulation(strategy string, n int, s setting) float64 {
	if n <= 1 {
		return float64(max(n, 0))
	}
	ev := r.pilotEvents(pilotKey{strategy: strategy, base: s.base, cap: s.cap, multiplier: s.multiplier, mean: s.mean, sd: s.sd})
	// Points (log n, log events), with one client writing once at the origin.
	xs := []float64{0}
	ys := []float64{0}
	for i, size := range pilotSizes {
		xs = append(xs, math.Log(float64(size)))
		ys = append(ys, math.Log(max(ev[i], 1)))
	}
	x := math.Log(float64(n))
	last := len(xs) - 1
	if x >= xs[last] {
		slope := (ys[last] - ys[last-1]) / (xs[last] - xs[last-1])
		slope = min(max(slope, 1), 2)
		return math.Exp(ys[last] + slope*(x-xs[last]))
	}
	for i := 1; i <= last; i++ {
		if x <= xs[i] {
			f := (x - xs[i-1]) / (xs[i] - xs[i-1])
			return math.Exp(ys[i-1] + f*(ys[i]-ys[i-1]))
		}
	}
	return math.Exp(ys[last])
}

// Cost estimates the events scenario v simulates (the memo aside): within 2× of the real count
// over the parameter space (TestCostWithinTwice).
func (r *runner) Cost(v param.Values) int64 {
	s := scenarioOf(v)
	total := 0.0
	for _, name := range withBaseline(s.strategies) {
		total += r.perSimulation(name, s.clients, s.setting)
	}
	for _, n := range s.sweep {
		if int(n) != s.clients {
			for _, name := range s.strategies {
				total += r.perSimulation(name, int(n), s.setting)
			}
		}
	}
	return int64(math.Ceil(total * float64(s.trials)))
}

package backoff

import (
	"context"
	"math"
	"runtime"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted as it runs (World.Work): one unit per write
// attempt, the queue's own work beyond that (engine.Loop.Work), one per client set up, and
// half more per attempt when sleeps take a power — units of some 30–90 ns of computing each on
// the reference machine (BenchmarkWorkUnit), the budget's unit in every lab. How much work a
// scenario takes depends on everything at once: without backoff, n clients write about n^1.8
// times; jitter brings that down to n^1.2–1.4 when the sleeps are long against the network,
// and not at all when they are short; a network without variance keeps clients in lockstep. No
// formula is within 2× of that across the parameter space, so Cost measures instead: it
// simulates each strategy of the scenario's setting at small client counts (pilot sizes, a
// few trials each, a few milliseconds in all) and interpolates their work on log-log axes,
// extrapolating beyond the largest with the slope of the last two (between 1 and 2: work grows
// at least as fast as the clients and at most as fast as no backoff). The pilots do not depend
// on the scenario's seed, clients, trials or sweep, and the lab keeps them, so moving those
// sliders, or asking again, costs nothing. TestCostWithinTwice checks the estimate against the
// work counted over a grid that includes every slider's extremes.

// pilotSizes are the client counts simulated to estimate a strategy's work.
var pilotSizes = []int{1, 2, 4, 8, 16, 32, 64, 128}

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
	url        string // what the lab keeps the pilots under: see pilotKeyOf
}

// pilotKeyOf is the pilot key of strategy in scenario s: its url is the scenario with that
// strategy alone and the parameters the pilots do not depend on at their defaults
// (lab.MemoKey).
func pilotKeyOf(s scenario, strategy string) pilotKey {
	return pilotKey{strategy: strategy, base: s.base, cap: s.cap, multiplier: s.multiplier, mean: s.mean, sd: s.sd,
		url: lab.MemoKey(s.v, map[string]string{"strategies": strategy}, "clients", "trials", "seed", "sweep", "retries")}
}

// pilotEvents returns the mean work per simulation at each pilot size, simulating them if
// needed.
func (r *runner) pilotEvents(k pilotKey) []float64 {
	if ev, ok := r.pilots.Get(k.url); ok {
		return ev
	}

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
			sum += w.Work()
		}
		events[i] = float64(sum) / pilotTrials
	}

	r.pilots.Put(k.url, events)
	return events
}

// perSimulation estimates the work of one simulation of strategy at n clients in scenario s.
func (r *runner) perSimulation(strategy string, n int, s scenario) float64 {
	if n <= 0 {
		return 0
	}
	ev := r.pilotEvents(pilotKeyOf(s, strategy))
	// Points (log n, log work).
	var xs, ys []float64
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

// Cost estimates the work of scenario v (the memo aside): within 2× of the work counted over
// the parameter space (TestCostWithinTwice).
func (r *runner) Cost(v param.Values) int64 {
	s := scenarioOf(v)
	total := 0.0
	for _, name := range withBaseline(s.strategies) {
		total += r.perSimulation(name, s.clients, s)
	}
	for _, n := range s.sweep {
		if int(n) != s.clients {
			for _, name := range s.strategies {
				total += r.perSimulation(name, int(n), s)
			}
		}
	}
	return int64(math.Ceil(total * float64(s.trials)))
}

// Memory estimates the most memory a run of scenario v holds at once, in bytes: the worlds of
// its workers — one a CPU the process may use (runtime.GOMAXPROCS, as engine.Trials starts
// them), at most one a simulation — each an event queue of some 200 KB and 96 bytes a client
// of its clients and events; a writes-over-time histogram of 32 KB per worker and strategy at
// the chosen client count; and the outcomes of a batch of trials (16 bytes each). It stays
// under a few tens of megabytes whatever the parameters and the machine (a worker's world is
// some 300 KB at the most clients), so the memory bound never refuses a scenario of this lab;
// TestMemoryCorners checks it against the heap runs really hold.
func Memory(v param.Values) int64 {
	s := scenarioOf(v)
	cells := int64(len(withBaseline(s.strategies)))
	workers := min(int64(runtime.GOMAXPROCS(0)), cells*int64(s.trials))
	worlds := workers * (200<<10 + 96*int64(s.clients))
	return worlds + workers*cells*32<<10 + cells*int64(s.trials)*16
}

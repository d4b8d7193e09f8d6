package ratelimit

import (
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Each algorithm's simulation depends on the scenario but not on which other algorithms run
// beside it (they all see the same arrivals, drawn from streams of their own). A lab value
// therefore keeps the finished results of each algorithm in each scenario it ran, and a run
// that finds one there replays it instead of simulating it again: ticking an algorithm on, or
// off and on, simulates only that algorithm.

// memoSize is how many finished algorithm results a lab keeps: about 17 kB each.
const memoSize = 2048

// finished is one algorithm's whole result in one scenario.
type finished struct {
	initial    float64   // the estimate at time zero
	exact, est []float64 // at every sample
	bins       []int64   // admitted per bin
	sum        AlgorithmSummary
}

// memoKey is the key of the named algorithm's result in scenario v: the scenario with that
// algorithm alone (lab.MemoKey).
func memoKey(v param.Values, name string) string {
	return lab.MemoKey(v, map[string]string{"algorithms": name}, "sweep", "latency_sweep")
}

// replay is a world whose result the memo holds: it sends every point with the first update.
type replay struct {
	core
	f *finished
}

func newReplay(f *finished) *replay {
	r := &replay{f: f}
	r.exact, r.est, r.bins, r.bin = f.exact, f.est, f.bins, nBins
	return r
}

func (r *replay) advance(*batch, bool)      {}
func (r *replay) initial() float64          { return r.f.initial }
func (r *replay) summary() AlgorithmSummary { return r.f.sum }

// result returns w's finished result, once its run has ended.
func (w *simWorld[S]) result(initial float64) *finished {
	return &finished{initial: initial, exact: w.exact, est: w.est, bins: w.bins, sum: w.summary()}
}

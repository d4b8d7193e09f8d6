package ratelimit

import (
	"github.com/resilience-playground/playground/lab"
)

// The sub-window sweep: the sliding-window approximation with k sub-windows (k = 1 is the
// classic estimate from two counters) for every k of the sweep parameter, each a world of
// its own on the same requests, simulated side by side with the algorithms the scenario
// compares and refined with them, slice by slice. Its charts draw each k's mean estimate
// error (% of the limit) and worst window (× limit), the scenario's own k marked: the error
// falls as k grows (TestSubwindowSweep).

// sweepScenarios returns the scenario of each of scenario s's sweep worlds, one algorithm
// each: the sub-window sweep's, then the latency sweep's (latency.go).
func sweepScenarios(s scenario) []scenario {
	var out []scenario
	for _, k := range s.sweep {
		out = append(out, sweepScenario(s, k))
	}
	return append(out, latencyScenarios(s)...)
}

// sweepScenario is s with only the sliding-window approximation of k sub-windows.
func sweepScenario(s scenario, k int64) scenario {
	t := s
	t.algorithms, t.subwindows, t.sweep, t.latencies = []string{"subwindows"}, int(k), nil, nil
	return t
}

// worldScenarios returns the scenario of each of scenario s's worlds, one algorithm each:
// its algorithms', then its sweeps'.
func worldScenarios(s scenario) []scenario {
	var out []scenario
	for _, name := range s.algorithms {
		t := s
		t.algorithms, t.sweep, t.latencies = []string{name}, nil, nil
		out = append(out, t)
	}
	return append(out, sweepScenarios(s)...)
}

// sweepPerArrival is the most work one arrival causes in the sweeps' worlds.
func sweepPerArrival(s scenario) float64 {
	var w float64
	for _, t := range sweepScenarios(s) {
		w += boundPerArrival(t) - 1 // drawing the arrival is counted once
	}
	return w
}

// sweepWorlds returns a world per point of the sweeps, after the scenario's own.
func sweepWorlds(s scenario, nInst int) []world {
	var worlds []world
	for _, t := range sweepScenarios(s) {
		if t.instances == s.instances {
			worlds = append(worlds, newWorld(t.algorithms[0], t, nInst))
			continue
		}
		w := newWorld(t.algorithms[0], t, t.instances) // an instances_sweep line: routed on its own
		w.base().route = newRouter(t)
		worlds = append(worlds, w)
	}
	return worlds
}

// SweepPoint is one entry of summary.subwindow_sweep: the sliding-window approximation with
// Subwindows sub-windows, as far as the run has got.
type SweepPoint struct {
	Subwindows       int64   `json:"subwindows"`
	EstimateErrorPct float64 `json:"estimate_error_pct"` // mean |estimate − exact| in % of the limit
	MaxInWindowX     float64 `json:"max_in_window_x"`    // the worst window, × limit
	OverAdmitted     int64   `json:"over_admitted"`
	WronglyRejected  int64   `json:"wrongly_rejected"`
}

// addSweep puts into u the sweep so far: its two charts, whole, and summary.subwindow_sweep.
func (sim *simulation) addSweep(u *lab.Update) {
	worlds := sim.worlds[len(sim.names):][:len(sim.s.sweep)]
	if len(worlds) == 0 {
		return
	}
	points := make([]SweepPoint, len(worlds))
	x, errs, worst := make([]float64, len(worlds)), make([]float64, len(worlds)), make([]float64, len(worlds))
	for i, w := range worlds {
		sum := w.summary()
		k := sim.s.sweep[i]
		points[i] = SweepPoint{Subwindows: k, EstimateErrorPct: sum.EstimateErrorPct, MaxInWindowX: sum.MaxInWindowX,
			OverAdmitted: sum.OverAdmitted, WronglyRejected: sum.WronglyRejected}
		x[i], errs[i], worst[i] = float64(k), sum.EstimateErrorPct, sum.MaxInWindowX
	}
	u.Summary["subwindow_sweep"] = points
	u.Series = append(u.Series,
		lab.Series{Name: "sweep error", Chart: "sweep_error", Label: "subwindows", XUnit: "sub-windows", YUnit: "% of limit", X: x, Y: errs},
		lab.Series{Name: "sweep worst", Chart: "sweep_worst", Label: "subwindows", XUnit: "sub-windows", YUnit: "× limit", X: x, Y: worst},
		lab.Series{Name: "sweep limit", Chart: "sweep_worst", Label: "limit", XUnit: "sub-windows", YUnit: "× limit",
			X: []float64{x[0], x[len(x)-1]}, Y: []float64{1, 1}, Tone: lab.Neutral})
}

package loadbalance

import (
	"context"
	"slices"
	"strconv"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// The subset-size sweep: the chapter's argument as a curve. For every subset size of the
// sweep parameter (sizes above the number of backends left out), the spread of connections
// per backend (max/mean) under every subsetting algorithm, computed at once, and, under the
// first policy, the spread of CPU and the 99th percentile of latency under the chapter's two
// algorithms (and the scenario's own): a simulation of the scenario at each size, run side by
// side with the policies' simulations and refined with them, interval by interval. Random
// subsetting's relative spread falls as the subsets grow, as the binomial model says;
// deterministic subsetting's stays flat (TestSweepFollowsBinomial).

// sweepSizes returns the subset sizes of scenario s's sweep: its points no larger than the
// number of backends.
func sweepSizes(s scenario) []int {
	var sizes []int
	for _, n := range s.Sweep {
		if n <= int64(s.Backends) {
			sizes = append(sizes, int(n))
		}
	}
	return sizes
}

// cpuSubsettings are the algorithms the CPU sweep simulates in scenario s: the chapter's two,
// random and deterministic, and the scenario's own. (Rendezvous hashing spreads connections
// about as random subsetting does, the aperture as deterministic subsetting does; the
// connection chart shows all four.)
func cpuSubsettings(s scenario) []string {
	names := []string{"random", "deterministic"}
	if !slices.Contains(names, s.Subsetting) {
		names = append(names, s.Subsetting)
	}
	return names
}

// sweepPolicy is the policy the CPU sweep simulates: the first the scenario compares.
func sweepPolicy(s scenario) string { return s.Policies[0] }

// at returns s with subsets of n backends chosen by subsetting name, simulating only the
// sweep's policy.
func (s scenario) at(name string, n int) scenario {
	t := s
	t.Subsetting, t.Subset, t.Policies = name, n, []string{sweepPolicy(s)}
	return t
}

// own reports whether size n under algorithm name is the scenario's own, whose simulation of
// the first policy the run does anyway.
func (s scenario) own(name string, n int) bool { return n == s.Subset && name == s.Subsetting }

// connSweepWork is the work of the connection sweep: every algorithm's subsets at every size.
func connSweepWork(s scenario) int64 {
	var w int64
	for _, n := range sweepSizes(s) {
		for _, name := range subsettingNames {
			w += subsetsWork(name, s.at(name, n))
		}
	}
	return w
}

// sweepWork estimates the work the sweep adds to scenario s: the connection sweep, and the
// subsets and a simulation of the first policy at every size and CPU-swept algorithm but the
// scenario's own.
func sweepWork(s scenario) float64 {
	w := float64(connSweepWork(s))
	for _, n := range sweepSizes(s) {
		for _, name := range cpuSubsettings(s) {
			if t := s.at(name, n); !s.own(name, n) {
				w += float64(subsetsWork(name, t)) + simWork(t) + cdfWork
			}
		}
	}
	return w
}

// sweepMemory estimates the memory the sweep's simulations hold, all side by side with the
// policies' (memoryOf's terms for one policy, without the comparison), and the subsets of one
// size while the connection sweep computes it.
func sweepMemory(s scenario) float64 {
	var total float64
	for _, n := range sweepSizes(s) {
		for _, name := range cpuSubsettings(s) {
			if s.own(name, n) {
				continue
			}
			total += sweptMemory(s.at(name, n))
		}
	}
	return total
}

// sweptMemory is the memory of a sweep's simulation of scenario t, one policy: memoryParts'
// terms for it, without the comparison.
func sweptMemory(t scenario) float64 {
	conns := float64(t.Clients) * float64(t.Subset)
	c, b := float64(t.Clients), float64(t.Backends)
	w := 24*conns + 136*c + 232*b + 80*inFlight(t) + loopBytes
	if t.Policies[0] == "weighted" {
		w += 48 * conns
	}
	return w
}

// sweepPoint is one entry of summary.subset_sweep.<subsetting>: at one subset size, the spread
// of connections per backend and, for the algorithms the CPU sweep simulates, under the first
// policy (summary.sweep_policy): the spread of CPU, the wasted CPU and the 99th percentile of
// latency (0 for the others).
type sweepPoint struct {
	Subset          int     `json:"subset"`
	ConnMaxOverMean float64 `json:"conn_max_over_mean"`
	ConnSDOverMean  float64 `json:"conn_sd_over_mean"`
	CPUMaxOverMean  float64 `json:"cpu_max_over_mean,omitempty"`
	WastedCPUPct    float64 `json:"wasted_cpu_pct,omitempty"`
	LatencyP99MS    float64 `json:"latency_p99_ms,omitempty"`
}

// sweepRun is the sweep of one run: the connection spreads, and the CPU sweep's simulations.
type sweepRun struct {
	r      *runner
	s      scenario
	sizes  []int
	points map[string][]sweepPoint
	cells  []sweepCell
}

// sweepCell is one size and algorithm of the CPU sweep: simulated by the run (world), from the
// memo, or the scenario's own (the first policy's run).
type sweepCell struct {
	name string
	i    int // index in sizes
	part
}

// newSweep computes the connection sweep of scenario s, and the subsets of the CPU sweep's
// simulations.
func (r *runner) newSweep(ctx context.Context, v param.Values, s scenario) (*sweepRun, error) {
	sw := &sweepRun{r: r, s: s, sizes: sweepSizes(s), points: map[string][]sweepPoint{}}
	if len(sw.sizes) == 0 {
		return sw, nil
	}
	policy := sweepPolicy(s)
	err := engine.Pace(ctx, func() error {
		for _, name := range subsettingNames {
			for _, n := range sw.sizes {
				_, conns := subsets(name, s.Seed, s.Clients, s.Backends, n)
				st := connStats(connections(s.Backends, conns))
				p := sweepPoint{Subset: n}
				if st.Mean > 0 {
					p.ConnMaxOverMean, p.ConnSDOverMean = float64(st.Max)/st.Mean, st.SD/st.Mean
				}
				sw.points[name] = append(sw.points[name], p)
			}
		}
		r.work.Add(connSweepWork(s))
		for _, i := range lab.CoarseToFine(len(sw.sizes)) {
			n := sw.sizes[i]
			for _, name := range cpuSubsettings(s) {
				t := s.at(name, n)
				c := sweepCell{name: name, i: i, part: part{key: partKey(v, map[string]string{"subsetting": name, "subset": strconv.Itoa(n), "policy": policy})}}
				if o, ok := r.memo.Get(c.key); ok {
					c.memo = &o
				} else if !s.own(name, n) {
					starts, conns := subsets(name, t.Seed, t.Clients, t.Backends, n)
					r.work.Add(subsetsWork(name, t))
					c.world = newWorld(config{Policy: policy, CountErrors: t.CountErrors, Env: t.env(starts, conns)})
				}
				sw.cells = append(sw.cells, c)
			}
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	return sw, err
}

// start gives the scenario's own cell the first policy's run and returns the worlds the run
// must simulate for the sweep, coarse sizes first.
func (sw *sweepRun) start(first policyRun) []*world {
	var worlds []*world
	for k := range sw.cells {
		c := &sw.cells[k]
		switch {
		case c.world != nil:
			worlds = append(worlds, c.world)
		case c.memo == nil:
			c.own = &first
		}
	}
	return worlds
}

// connSeries is the connection-spread chart: one line per algorithm.
func (sw *sweepRun) connSeries() []lab.Series {
	if len(sw.sizes) == 0 {
		return nil
	}
	var series []lab.Series
	for _, name := range subsettingNames {
		ps := sw.points[name]
		x, y := make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			x[i], y[i] = float64(p.Subset), p.ConnMaxOverMean
		}
		series = append(series, lab.Series{Name: "conn spread " + name, Chart: "sweep_conn", Label: name,
			XUnit: "backends", YUnit: "max/mean", X: x, Y: y})
	}
	return series
}

// add puts into u the CPU sweep as far as the simulations have got (rounded unless final):
// one line per algorithm in the CPU and p99 charts. When final, it memoises the sweep's
// simulations and adds summary.subset_sweep.
func (sw *sweepRun) add(u *lab.Update, final bool) {
	if len(sw.cells) == 0 {
		return
	}
	round := lab.Provisional(final)
	for _, c := range sw.cells {
		o := sw.r.outcome(c.part, final)
		p := &sw.points[c.name][c.i]
		p.CPUMaxOverMean, p.WastedCPUPct, p.LatencyP99MS = round(o.summary.MaxOverMean), round(o.summary.WastedCPUPct), round(o.summary.LatencyP99MS)
	}
	for _, name := range cpuSubsettings(sw.s) {
		ps := sw.points[name]
		x, cpu, p99 := make([]float64, len(ps)), make([]float64, len(ps)), make([]float64, len(ps))
		for i, p := range ps {
			x[i], cpu[i], p99[i] = float64(p.Subset), p.CPUMaxOverMean, p.LatencyP99MS
		}
		u.Series = append(u.Series,
			lab.Series{Name: "cpu spread " + name, Chart: "sweep_cpu", Label: name, XUnit: "backends", YUnit: "max/mean", X: x, Y: cpu},
			lab.Series{Name: "p99 " + name, Chart: "sweep_p99", Label: name, XUnit: "backends", YUnit: "ms", X: x, Y: p99})
	}
	if final {
		if u.Summary == nil {
			u.Summary = map[string]any{}
		}
		u.Summary["subset_sweep"] = sw.points
		u.Summary["sweep_policy"] = sweepPolicy(sw.s)
	}
}

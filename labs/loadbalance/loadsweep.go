package loadbalance

import (
	"math"
	"strconv"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// The load sweep: how latency grows with the offered load. For every load of the load_sweep
// parameter (offered load as % of the backends' capacity, loadOf), every policy of the
// scenario is simulated with the request rate scaled to that load, everything else as it is,
// side by side with the policies' own simulations and refined with them. Its charts show each
// policy's 99th percentile of latency and the share of it spent queueing against the load: as
// the load nears 100% the queues grow and p99 rises steeply (TestLoadSweepRisesSteeply), as
// any queue's wait does as its utilisation nears one (M/M/c: the wait grows as 1/(1−ρ)).

// sweeps are the parameters whose points are simulations of their own: a single simulation
// depends on neither, and a memo key leaves them out.
var sweeps = []string{"sweep", "load_sweep"}

// partKey is the memo key of one simulation of scenario v (lab.MemoKey): the parameters in set
// given those values, the sweeps left out.
func partKey(v param.Values, set map[string]string) string { return lab.MemoKey(v, set, sweeps...) }

// loadRate returns the request rate per client at which scenario s offers load pct (% of
// capacity), to six significant digits (a value a URL writes as it is), and whether that rate
// is one the rate parameter takes; loads it cannot reach are not drawn.
func loadRate(s scenario, pct float64) (float64, bool) {
	now := loadPct(s)
	if now <= 0 {
		return 0, false
	}
	r := lab.RoundTo(s.Rate*pct/now, 6)
	sp, _ := params.Lookup("rate")
	return r, r >= sp.Min && r <= sp.Max
}

// loadPoints returns the loads of scenario s's load sweep that its rate can reach, with
// their rates.
func loadPoints(s scenario) (loads []int, rates []float64) {
	for _, l := range s.LoadSweep {
		if r, ok := loadRate(s, float64(l)); ok {
			loads, rates = append(loads, int(l)), append(rates, r)
		}
	}
	return loads, rates
}

// withRate returns s at rate r per client, simulating policy p only.
func (s scenario) withRate(r float64, p string) scenario {
	t := s
	t.Rate, t.Policies, t.Sweep, t.LoadSweep = r, []string{p}, nil, nil
	return t
}

// ownRate reports whether rate r is the scenario's own, whose simulations the run does anyway.
func (s scenario) ownRate(r float64) bool { return math.Abs(r-s.Rate) <= 1e-9*s.Rate }

// loadSims returns the scenarios the load sweep of s simulates: every policy at every load
// but the scenario's own, one policy each.
func loadSims(s scenario) []scenario {
	var sims []scenario
	_, rates := loadPoints(s)
	for _, r := range rates {
		if s.ownRate(r) {
			continue
		}
		for _, p := range s.Policies {
			sims = append(sims, s.withRate(r, p))
		}
	}
	return sims
}

// loadSweepWork estimates the work the load sweep adds to scenario s: its simulations, each
// with its latency distribution (for the memo).
func loadSweepWork(s scenario) float64 {
	var w float64
	for _, t := range loadSims(s) {
		w += simWork(t) + cdfWork
	}
	return w
}

// loadSweepMemory estimates the memory of the load sweep's simulations, side by side with the
// others' (sweptMemory each).
func loadSweepMemory(s scenario) float64 {
	var total float64
	for _, t := range loadSims(s) {
		total += sweptMemory(t)
	}
	return total
}

// loadPoint is one entry of summary.load_sweep.<policy>: at one offered load, what the policy
// did.
type loadPoint struct {
	LoadPct      float64 `json:"load_pct"` // offered load, % of capacity (loadOf)
	Rate         float64 `json:"rate"`     // the request rate per client that offers it
	LatencyP50MS float64 `json:"latency_p50_ms"`
	LatencyP99MS float64 `json:"latency_p99_ms"`
	QueuePct     float64 `json:"queue_pct"` // share of the latency spent queueing
	ErrorPct     float64 `json:"error_pct"`
	MaxOverMean  float64 `json:"cpu_max_over_mean"`
}

// loadSweepRun is the load sweep of one run.
type loadSweepRun struct {
	r     *runner
	s     scenario
	loads []int
	rates []float64
	cells []part // one policy at one load, by policy, then load
}

// newLoadSweep sets up the simulations of scenario s's load sweep, on the scenario's subsets
// (starts, conns); own are the policies' runs. It returns the worlds the run must simulate.
func (r *runner) newLoadSweep(v param.Values, s scenario, starts, conns []int32, own []policyRun) (*loadSweepRun, []*world) {
	ls := &loadSweepRun{r: r, s: s}
	ls.loads, ls.rates = loadPoints(s)
	var worlds []*world
	for i, p := range s.Policies {
		for _, rate := range ls.rates {
			c := part{}
			if s.ownRate(rate) {
				c.own = &own[i]
			} else {
				c.key = partKey(v, map[string]string{"rate": strconv.FormatFloat(rate, 'g', -1, 64), "policy": p})
				if o, ok := r.memo.Get(c.key); ok {
					c.memo = &o
				} else {
					t := s.withRate(rate, p)
					c.world = newWorld(config{Policy: p, CountErrors: t.CountErrors, Env: t.env(starts, conns)})
					worlds = append(worlds, c.world)
				}
			}
			ls.cells = append(ls.cells, c)
		}
	}
	return ls, worlds
}

// add puts into u the load sweep as far as its simulations have got (rounded unless final):
// one line per policy in the p99 and queueing charts. When final, it memoises the sweep's
// simulations and adds summary.load_sweep.
func (ls *loadSweepRun) add(u *lab.Update, final bool) {
	if len(ls.cells) == 0 {
		return
	}
	round := lab.Provisional(final)
	n := len(ls.loads)
	points := map[string][]loadPoint{}
	for i, p := range ls.s.Policies {
		pts := make([]loadPoint, n)
		x, p99, queue := make([]float64, n), make([]float64, n), make([]float64, n)
		for k := range n {
			o := ls.r.outcome(ls.cells[i*n+k], final)
			ps := o.summary.rounded(round)
			pts[k] = loadPoint{LoadPct: float64(ls.loads[k]), Rate: ls.rates[k], LatencyP50MS: ps.LatencyP50MS, LatencyP99MS: ps.LatencyP99MS,
				QueuePct: ps.QueuePct, ErrorPct: ps.ErrorPct, MaxOverMean: ps.MaxOverMean}
			x[k], p99[k], queue[k] = float64(ls.loads[k]), ps.LatencyP99MS, ps.QueuePct
		}
		points[p] = pts
		u.Series = append(u.Series,
			lab.Series{Name: "load p99 " + p, Chart: "load_p99", Label: p, XUnit: "%", YUnit: "ms", X: x, Y: p99},
			lab.Series{Name: "load queueing " + p, Chart: "load_queue", Label: p, XUnit: "%", YUnit: "%", X: x, Y: queue})
	}
	if final {
		if u.Summary == nil {
			u.Summary = map[string]any{}
		}
		u.Summary["load_sweep"] = points
	}
}

package ratelimit

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// The store-latency sweep: the scenario's first algorithm (in canonical order) on every store
// whose decisions depend on the store latency — increments only, read-then-write,
// compare-and-swap and asynchronous propagation — at every latency of the latency_sweep
// parameter and at the chosen store latency, each a world of its own on the same requests,
// simulated side by side with the scenario's algorithms and refined with them, slice by slice.
// Its chart draws each store's admitted rate (× limit) against the latency, the chosen
// latency marked, beside the limit, the offered rate and the compare-and-swap ceiling.
//
// Asynchronous propagation decides on copies that miss the other instances' admissions of
// the last delay d, a share (I−1)/I of the admissions of that delay, so the over-admission
// grows with d/window·(I−1)/I — but its factor is no constant: it depends on the algorithm
// and on the offered load (asyncExcess, measured by TestAsyncOverAdmission across algorithms,
// loads, instances and delays). The fixed window admits everything that arrives in the blind
// d after its copies reach the limit, so its factor follows the load; the sliding log, which
// admits only as earlier requests leave its window, about load − 1 (the arrivals in excess of
// the rate at which room frees up); the sliding-window approximations, whose weighted count
// frees room gradually, stay under the fixed window, and the sliding window's factor at high
// load grows with the instances faster than (I−1)/I. An earlier version of this comment gave
// "about 2 × d/window·(I−1)/I": that is the sliding log at load 3, one point of the table.

// The compare-and-swap ceiling: Criteo's post warns that the optimistic-concurrency token
// bucket "performs worse under heavy load". In the model the reason is a bound. A swap
// reaches the store a round trip L after the read it was computed from, and succeeds only if
// no other swap landed in between; so two successful swaps on one key are at least L apart,
// and a key admits at most one request per round trip: 1/L per second, window/(L·limit) ×
// limit. Refusals write nothing and do not count against it. Above the ceiling the retries
// pile up and give up (TestCASCeiling).

// Most points of the latency_sweep and instances_sweep parameters.
const (
	maxLatencyPoints  = 41
	maxInstancePoints = 8
)

// latencyStores are the store semantics of the latency sweep, one line each.
var latencyStores = []string{"incr", "racy", "cas", "async"}

// asyncExcessBand is what the simulation shows of asynchronous propagation's excess on one
// algorithm at one offered load: the excess admitted rate (over the same run's at no delay,
// on the same requests) divided by delay/window × (I−1)/I lies within [Lo, Hi] for I = 2, 4
// and 8 instances and delays of 20, 40 and 60 ms, at a limit of 100 a second, Poisson
// traffic, over 5 minutes (asyncExcessQuery). TestAsyncOverAdmission checks every band.
type asyncExcessBand struct {
	Algorithm string
	Load      float64
	Lo, Hi    float64
	// Instances, when not zero, restricts the band to that many instances.
	Instances int
}

// asyncExcessQuery is the scenario of an asyncExcess band (%s: the algorithm, %g: the load).
const asyncExcessQuery = "algorithms=%s&limit=100&load=%g&duration=5m&instances=4&store=async&store_latency=0s&latency_sweep=0:60:20&instances_sweep=2:8:6"

// asyncExcess are the bands docs/labs.md quotes (asyncExcessText); the chart's help states
// four admitted rates of one scenario instead, each held to its run by TestQuotes.
var asyncExcess = []asyncExcessBand{
	{Algorithm: "fixed_window", Load: 1.2, Lo: 1.2, Hi: 1.5},
	{Algorithm: "fixed_window", Load: 2, Lo: 2.0, Hi: 2.3},
	{Algorithm: "fixed_window", Load: 3, Lo: 2.9, Hi: 3.3},
	{Algorithm: "fixed_window", Load: 5, Lo: 5.0, Hi: 5.3},
	{Algorithm: "sliding_log", Load: 1.2, Lo: 0.5, Hi: 0.9},
	{Algorithm: "sliding_log", Load: 2, Lo: 1.0, Hi: 1.3},
	{Algorithm: "sliding_log", Load: 3, Lo: 1.8, Hi: 2.2},
	{Algorithm: "sliding_log", Load: 5, Lo: 3.7, Hi: 4.2},
	{Algorithm: "sliding_window", Load: 5, Lo: 1.1, Hi: 1.3, Instances: 2},
	{Algorithm: "sliding_window", Load: 5, Lo: 2.0, Hi: 3.2, Instances: 8},
}

// asyncExcessText returns the sentence docs/labs.md gives on asynchronous propagation's
// over-admission, from the bands of asyncExcess.
func asyncExcessText() string {
	bands := func(alg string) string {
		var parts []string
		for _, b := range asyncExcess {
			if b.Algorithm == alg && b.Instances == 0 {
				parts = append(parts, fmt.Sprintf("%.1f–%.1f at load %g", b.Lo, b.Hi, b.Load))
			}
		}
		return strings.Join(parts, ", ")
	}
	var sw []string
	for _, b := range asyncExcess {
		if b.Algorithm == "sliding_window" && b.Instances != 0 {
			sw = append(sw, fmt.Sprintf("%.1f–%.1f with %d instances", b.Lo, b.Hi, b.Instances))
		}
	}
	return "Asynchronous propagation admits more as the delay grows: an excess of c × delay/window × (instances−1)/instances of the limit, " +
		"where c is no constant but depends on the algorithm and the offered load. Measured at a limit of 100 a second, Poisson traffic " +
		"over 5 minutes, 2, 4 and 8 instances and delays of 20–60 ms: for the fixed window c follows the load (" + bands("fixed_window") +
		"); for the sliding log it is about load − 1 from load 2 on (" + bands("sliding_log") + "); the sliding-window approximations stay under the fixed window, " +
		"and at load 5 the sliding window's c grows with the instances (" + strings.Join(sw, ", ") + ")."
}

// latencyLine is one line of the latency sweep: a store with a number of instances.
type latencyLine struct {
	store     string
	instances int
}

// latencyLines returns the lines of scenario s's latency sweep: each store with the
// scenario's instances, then asynchronous propagation with each other count of instances_sweep.
func latencyLines(s scenario) []latencyLine {
	var lines []latencyLine
	for _, store := range latencyStores {
		lines = append(lines, latencyLine{store, s.instances})
	}
	for _, n := range s.instSweep {
		if int(n) != s.instances {
			lines = append(lines, latencyLine{"async", int(n)})
		}
	}
	return lines
}

// name is the line's series name and label: the store, and the instances when they are not
// the scenario's.
func (l latencyLine) name(s scenario) string {
	if l.instances == s.instances {
		return l.store
	}
	return fmt.Sprintf("%s, %d instances", l.store, l.instances)
}

// atCeiling is the share of the compare-and-swap ceiling from which a scenario is said to be
// at it: a waiting request reads a moment after the previous swap lands, not at once, so
// saturated runs reach 0.9–1 of it (TestCASCeiling).
const atCeiling = 0.9

// latencyPoints returns the latencies of the sweep r with the chosen one, ascending; none when
// the sweep is off.
func latencyPoints(r param.Range, chosen time.Duration) []time.Duration {
	if r.Off {
		return nil
	}
	var out []time.Duration
	for _, ms := range r.Points() {
		out = append(out, time.Duration(ms)*time.Millisecond)
	}
	if !slices.Contains(out, chosen) {
		out = append(out, chosen)
		slices.Sort(out)
	}
	return out
}

// latencyAlgorithm is the algorithm the latency sweep runs: the scenario's first.
func latencyAlgorithm(s scenario) string { return ordered(s.algorithms)[0] }

// latencyScenarios returns the scenario of each world of the latency sweep: by latency, then
// by line.
func latencyScenarios(s scenario) []scenario {
	var out []scenario
	for _, l := range s.latencies {
		for _, line := range latencyLines(s) {
			t := s
			t.algorithms, t.store, t.latency, t.instances = []string{latencyAlgorithm(s)}, line.store, l, line.instances
			t.sweep, t.latencies, t.instSweep = nil, nil, nil
			out = append(out, t)
		}
	}
	return out
}

// casCeiling returns scenario s's compare-and-swap ceiling at latency l, × limit: one
// admission per round trip; +Inf at 0.
func casCeiling(s scenario, l time.Duration) float64 {
	if l <= 0 {
		return math.Inf(1)
	}
	return float64(s.window) / float64(l) / float64(s.limit)
}

// LatencyPoint is one entry of summary.latency_sweep: the sweep's algorithm on Store at
// StoreLatencyMS, as far as the run has got.
type LatencyPoint struct {
	StoreLatencyMS float64 `json:"store_latency_ms"`
	Instances      int     `json:"instances"`
	Store          string  `json:"store"`   // the semantics asked for
	RunsAs         string  `json:"runs_as"` // the semantics it ran with (get_set, local: see the package doc)
	Algorithm      string  `json:"algorithm"`
	Admitted       int64   `json:"admitted"`
	// AdmittedX is the admitted rate × limit: admitted over limit × simulated time / window.
	AdmittedX    float64 `json:"admitted_x"`
	MaxInWindowX float64 `json:"max_in_window_x"`
	OverAdmitted int64   `json:"over_admitted"`
	GaveUp       int64   `json:"gave_up,omitempty"`
}

// CeilingRow is a row of summary.cas_ceiling: an algorithm on compare-and-swap at the chosen
// store latency against the ceiling of one admission per round trip.
type CeilingRow struct {
	StoreLatencyMS float64 `json:"store_latency_ms"`
	CeilingX       float64 `json:"ceiling_x"`  // window/(latency·limit)
	AdmittedX      float64 `json:"admitted_x"` // admitted rate × limit
	SharePct       float64 `json:"share_pct"`  // of the ceiling
	AtCeiling      bool    `json:"at_ceiling"` // SharePct ≥ 90
	Verdict        string  `json:"verdict"`
}

// ceilingRow returns the row of a compare-and-swap run of scenario s that admitted x × limit.
func ceilingRow(s scenario, x float64) CeilingRow {
	c := casCeiling(s, s.latency)
	row := CeilingRow{StoreLatencyMS: msOf(int64(s.latency)), CeilingX: c, AdmittedX: x, SharePct: 100 * x / c, AtCeiling: x >= atCeiling*c}
	row.Verdict = "below the ceiling: the limit binds"
	if row.AtCeiling {
		row.Verdict = "at the ceiling: round trips bind, not the limit"
	}
	return row
}

// admittedX returns admitted requests as a rate × limit over elapsed simulated time.
func admittedX(s scenario, admitted, elapsed int64) float64 {
	if elapsed <= 0 {
		return 0
	}
	return float64(admitted) / (float64(s.limit) * float64(elapsed) / float64(s.window))
}

// addLatency puts into u the latency sweep so far (its chart, whole, and
// summary.latency_sweep) and summary.cas_ceiling: the algorithms on compare-and-swap, or the
// sweep's algorithm on it at the chosen latency.
func (sim *simulation) addLatency(u *lab.Update) {
	s := sim.s
	elapsed := min(sim.batch.end, int64(s.duration))
	worlds := sim.worlds[len(sim.names)+len(s.sweep):]
	ceiling := map[string]CeilingRow{}
	if s.store == "cas" && s.latency > 0 {
		for i, name := range sim.names {
			ceiling[name] = ceilingRow(s, admittedX(s, sim.worlds[i].summary().Admitted, elapsed))
		}
	}
	if len(worlds) > 0 {
		alg := latencyAlgorithm(s)
		lines := latencyLines(s)
		n := len(lines)
		points := make([]LatencyPoint, 0, len(worlds))
		x := make([]float64, len(s.latencies))
		ys := make([][]float64, n)
		offered := admittedX(s, sim.arrived, elapsed)
		top := offered
		for i, l := range s.latencies {
			x[i] = msOf(int64(l))
			for j, line := range lines {
				w := worlds[i*n+j]
				sum := w.summary()
				ax := admittedX(s, sum.Admitted, elapsed)
				points = append(points, LatencyPoint{StoreLatencyMS: x[i], Instances: line.instances, Store: line.store, RunsAs: sum.Store, Algorithm: alg,
					Admitted: sum.Admitted, AdmittedX: ax, MaxInWindowX: sum.MaxInWindowX, OverAdmitted: sum.OverAdmitted, GaveUp: sum.GaveUp})
				ys[j] = append(ys[j], ax)
				top = max(top, ax)
				if line.store == "cas" && l == s.latency && l > 0 && len(ceiling) == 0 {
					ceiling[alg] = ceilingRow(s, ax)
				}
			}
		}
		u.Summary["latency_sweep"] = points
		for j, line := range lines {
			label := line.name(s)
			if st := worlds[j].base().store; st != line.store { // as it runs: get_set or local where the algorithm cannot use the store
				label = strings.Replace(label, line.store, st, 1)
			}
			u.Series = append(u.Series, lab.Series{Name: "latency " + line.name(s), Chart: "latency_admitted", Label: label,
				XUnit: "ms", YUnit: "× limit", X: x, Y: ys[j]})
		}
		ends := []float64{x[0], x[len(x)-1]}
		u.Series = append(u.Series,
			lab.Series{Name: "latency limit", Chart: "latency_admitted", Label: "limit", XUnit: "ms", YUnit: "× limit",
				X: ends, Y: []float64{1, 1}, Tone: lab.Neutral},
			lab.Series{Name: "latency offered", Chart: "latency_admitted", Label: "offered", XUnit: "ms", YUnit: "× limit",
				X: ends, Y: []float64{offered, offered}, Tone: lab.Neutral, Style: "dashed"})
		if cx, cy := ceilingCurve(s, s.latencies[0], s.latencies[len(s.latencies)-1], 1.25*top); len(cx) > 1 {
			u.Series = append(u.Series, lab.Series{Name: "latency cas ceiling", Chart: "latency_admitted", Label: "cas ceiling",
				XUnit: "ms", YUnit: "× limit", X: cx, Y: cy, Style: "dashed"})
		}
	}
	if len(ceiling) > 0 {
		u.Summary["cas_ceiling"] = ceiling
	}
}

// ceilingPoints is how many points draw the compare-and-swap ceiling, a hyperbola.
const ceilingPoints = 64

// ceilingCurve returns points of the compare-and-swap ceiling from latency lo to hi where it
// is at most cap × limit (none if cap is not positive). The ceiling is infinite at latency 0:
// the curve starts at the latency where it comes down to cap, window/(cap·limit).
func ceilingCurve(s scenario, lo, hi time.Duration, cap float64) (x, y []float64) {
	if !(cap > 0) {
		return nil, nil
	}
	from := max(lo, time.Duration(math.Ceil(float64(s.window)/(cap*float64(s.limit)))), 1)
	if from >= hi {
		return nil, nil
	}
	for i := range ceilingPoints {
		l := from + time.Duration(float64(hi-from)*float64(i)/float64(ceilingPoints-1))
		x = append(x, msOf(int64(l)))
		y = append(y, casCeiling(s, l))
	}
	return x, y
}

package retrystorm

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/resilience-playground/playground/algorithms/retry"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Lab returns the retry-storm lab. Each lab value keeps a memo of finished simulations (one
// policy in one scenario, a sweep's points included), keyed by canonical URL (memo.go).
func Lab() *lab.Lab { return newRunner().lab() }

func newRunner() *runner { return &runner{memo: lab.NewCache[*outcome](memoSize)} }

// runner runs the scenarios of one lab value.
type runner struct {
	memo      *lab.Cache[*outcome]
	work      atomic.Int64 // work units done, summed over runs, for tests of the cost model
	sliceWork float64      // work per world per slice; 0 means sliceWorkDefault (tests vary it)
}

func (r *runner) lab() *lab.Lab {
	return &lab.Lab{
		Name:  "retrystorm",
		Title: "Retry storms: budgets, breakers and metastable failures",
		Short: "Retry storms",
		Intro: "Clients retry the calls that fail or time out, as in Marc Brooker's “Fixing retries with token buckets and " +
			"circuit breakers”: a service with a fixed capacity queues the calls, so load raises latency and latency beyond " +
			"the timeout becomes failure. Something goes wrong for a while — an outage, a capacity drop, a load spike — and " +
			"each policy below meets it with the same arrivals. Watch what happens after the trigger ends.",
		Params: Params,
		Check:  check,
		Rules: []lab.Rule{
			{Params: []string{"cap", "base"}, Text: "with a `backoff`, `cap` ≥ `base`", Breaks: "base=100ms&cap=10ms"},
			{Params: []string{"trigger_start", "duration"}, Text: "with a `trigger`, `trigger_start` < `duration`", Breaks: "duration=1m&trigger_start=2m"},
			{Params: []string{"service_time", "capacity", "service"}, Text: "with `service=queue`, `capacity` × `service_time` ≥ 0.5 (at least one worker)", Breaks: "capacity=1&service_time=100ms"},
		},
		View:         view,
		Tours:        tours,
		Cost:         costOf,
		CostBound:    costOf,
		CostParams:   []string{"retries", "layers", "duration", "rate", "policies", "sweep", "client_sweep", "clients"},
		Memory:       memoryOf,
		MemoryParams: []string{"retries", "layers", "duration", "rate", "policies", "sweep", "client_sweep"},
		RefusedEnds:  []string{"layers=3"},
		Light:        "rate=50&capacity=100&duration=5s&trigger_start=2s&trigger_length=1s",
		Progressive:  true,
		Run:          r.Run,
	}
}

// unit is one simulation of a run: a policy of the scenario, or one of a sweep's points.
type unit struct {
	policy    string
	sweep     string // "" for the scenario itself, "sweep" or "client_sweep"
	x         int64  // the sweep's point: a failure share in %, or a client count
	key       string // the memo's key (memoKey)
	scenario  scenario
	env       *environment
	newPolicy policyFor
	world     *world   // while it is simulated
	out       *outcome // its outcome, once final
	sent      int      // samples sent
}

// sliceWorkDefault is about the work one world does in one slice of simulated time: some
// 5 ms of computing, so that a run cancelled by a newer request stops within a few ms.
const sliceWorkDefault = 40_000

// Run simulates scenario v slice by slice of simulated time: first every policy's world side
// by side, with the first batch of the sweeps' points (one point of each sweep for every
// policy, so that the first picture has every chart), then the sweeps' other points, batch by
// batch (sweepBatches: each batch's worlds within half the memory a run may use). After each
// slice it reports the new sampling intervals of the policies' charts, their numbers so far,
// and the sweeps' points so far (over the time simulated), with the time covered as a
// refinement; the last update holds the final numbers, those of a one-shot run, bit for bit.
func (r *runner) Run(ctx context.Context, v param.Values, emit func(lab.Update)) error {
	s := scenarioOf(v)
	var units []*unit
	if err := engine.Pace(ctx, func() error { units = r.units(v, s); return nil }); err != nil {
		return err
	}
	e := units[0].env
	emit(staticUpdate(s, e))
	per := r.sliceWork
	if per == 0 {
		per = sliceWorkDefault
	}
	phases := phasesOf(s, units)
	var plan [][]time.Duration
	total := 0
	for _, ph := range phases {
		work := 0.0
		for _, u := range ph {
			work += simCost(u.scenario, u.policy)
		}
		ends := sliceEnds(s.Duration, work/float64(max(len(ph), 1)), per)
		plan = append(plan, ends)
		total += len(ends)
	}
	tr := lab.NewTracker(emit, int64(total))
	return tr.Stage("simulating", func() error {
		for k, ph := range phases {
			var active []*unit
			for _, u := range ph {
				if u.out == nil {
					if err := engine.Pace(ctx, func() error { u.world = newWorld(u.env, u.newPolicy); return nil }); err != nil {
						return err
					}
					active = append(active, u)
				}
			}
			for i, end := range plan[k] {
				final := i == len(plan[k])-1
				if final {
					end = s.Duration
				}
				err := engine.Trials(ctx, len(active), runtime.GOMAXPROCS(0), func() func(int) error {
					return func(j int) error {
						w := active[j].world
						before := w.Work()
						err := w.advance(end)
						r.work.Add(w.Work() - before)
						return err
					}
				})
				if err != nil {
					return err
				}
				if final {
					for _, u := range active {
						u.out = u.world.outcome()
						u.world = nil // its memory is free for the next batch
						r.memo.Put(u.key, u.out)
					}
				}
				up := r.update(s, e, units, final && k == len(phases)-1)
				done := end
				if k > 0 {
					done = s.Duration // the policies' picture is complete; the sweeps fill in
				}
				up.Refine = &lab.Refinement{Done: int64(done / time.Millisecond), Total: int64(s.Duration / time.Millisecond), Unit: "ms simulated"}
				tr.Add(1)
				tr.Emit(up)
			}
		}
		return nil
	})
}

// units returns the simulations of scenario s, as planOf orders them, with their memo keys,
// environments and policies; those the memo holds have their outcome.
func (r *runner) units(v param.Values, s scenario) []*unit {
	out := planOf(s)
	for _, u := range out {
		var set map[string]string
		switch u.sweep {
		case "sweep":
			set = map[string]string{"trigger": "outage", "failure": strconv.FormatFloat(u.scenario.Failure, 'f', -1, 64)}
		case "client_sweep":
			set = map[string]string{"clients": strconv.Itoa(u.scenario.Clients)}
		}
		u.key = memoKey(v, u.policy, set)
		u.newPolicy = newPolicyFunc(u.policy, u.scenario)
		if o, ok := r.memo.Get(u.key); ok {
			u.out = o
		}
		u.env = u.scenario.env()
	}
	return out
}

// planOf returns the simulations a run of scenario s makes, in order: its policies, then the
// sweeps' points, the two sweeps' interleaved and each in coarse-to-fine order (both ends
// first), every policy at a point before the next point.
func planOf(s scenario) []*unit {
	var out []*unit
	for _, p := range s.Policies {
		out = append(out, &unit{policy: p, scenario: s})
	}
	at := func(sweep string, x int64, t scenario) []*unit {
		var us []*unit
		for _, p := range s.Policies {
			us = append(us, &unit{policy: p, sweep: sweep, x: x, scenario: t})
		}
		return us
	}
	var sweep, clients [][]*unit
	for _, i := range lab.CoarseToFine(len(s.Sweep)) {
		t := s
		t.Trigger, t.Failure = "outage", float64(s.Sweep[i])/100
		sweep = append(sweep, at("sweep", s.Sweep[i], t))
	}
	for _, i := range lab.CoarseToFine(len(s.ClientSweep)) {
		t := s
		t.Clients = int(s.ClientSweep[i])
		clients = append(clients, at("client_sweep", s.ClientSweep[i], t))
	}
	for i := range max(len(sweep), len(clients)) {
		for _, points := range [][][]*unit{sweep, clients} {
			if i < len(points) {
				out = append(out, points[i]...)
			}
		}
	}
	return out
}

// phasesOf cuts the units of a run of scenario s into the groups it simulates side by side:
// the policies with the sweeps' first points, then batches of the other points (sweepBatches).
func phasesOf(s scenario, units []*unit) [][]*unit {
	n := len(s.Policies)
	first := n
	if len(s.Sweep) > 0 {
		first += n
	}
	if len(s.ClientSweep) > 0 {
		first += n
	}
	phases := [][]*unit{units[:first]}
	var batch []*unit
	mem := 0.0
	for _, u := range units[first:] {
		m := simMemory(u.scenario, u.policy)
		if len(batch) > 0 && mem+m > batchMemory {
			phases = append(phases, batch)
			batch, mem = nil, 0
		}
		batch = append(batch, u)
		mem += m
	}
	if len(batch) > 0 {
		phases = append(phases, batch)
	}
	return phases
}

// batchMemory is the most memory, by estimate, the worlds of a batch of a sweep's points may
// hold at once (a point whose worlds need more makes a batch of its own).
const batchMemory = lab.MaxRunMemory / 2

// newPolicyFunc returns the maker of policy p's state in scenario s.
func newPolicyFunc(p string, s scenario) policyFor {
	mk := policyOptions.Make(p)
	return policyFor{atSend: mk.atSend, new: func(src *engine.Source) retry.Policy { return mk.new(s, src) }}
}

// policyFor makes one policy's state for a client at a layer, from its stream of draws.
type policyFor struct {
	new    func(src *engine.Source) retry.Policy
	atSend bool
}

// rampSlices is how many first slices of a heavy run are cut short: a 64th, a 16th and a
// quarter of a slice, so that its first picture comes soon.
var ramps = []int64{64, 16, 4}

// sliceEnds returns the ends of the slices of simulated time of a run of duration d whose
// worlds each do about work units: slices of about per units, at least minSlices and at most
// maxSlices of them, the first one cut in ramps when a slice is heavy.
func sliceEnds(d time.Duration, work, per float64) []time.Duration {
	n := int(min(max(math.Ceil(work/per), minSlices), maxSlices))
	ends := make([]time.Duration, 0, n+len(ramps))
	if work/float64(n) > per {
		for _, f := range ramps {
			if e := time.Duration(int64(d) / int64(n) / f); e > 0 && (len(ends) == 0 || e > ends[len(ends)-1]) {
				ends = append(ends, e)
			}
		}
	}
	for i := 1; i <= n; i++ {
		e := time.Duration(int64(float64(d) * float64(i) / float64(n)))
		if i == n {
			e = d
		}
		if len(ends) == 0 || e > ends[len(ends)-1] {
			ends = append(ends, e)
		}
	}
	return ends
}

// The number of slices of a run.
const (
	minSlices = 12
	maxSlices = 400
)

// outcome is the whole result of one simulation: what the memo keeps.
type outcome struct {
	samples  []sample
	tot      totals
	p50, p99 float64 // latency of the requests that succeeded, ms
}

// outcome returns w's outcome, once it has run to its end.
func (w *world) outcome() *outcome {
	return &outcome{samples: w.samples, tot: w.tot, p50: w.lat.quantile(0.5), p99: w.lat.quantile(0.99)}
}

// current returns u's outcome so far: its final one, its world's so far, or nil when it has
// not started.
func (u *unit) current() *outcome {
	switch {
	case u.out != nil:
		return u.out
	case u.world != nil:
		return u.world.outcome()
	}
	return nil
}

// PolicySummary is summary.policies.<id>: what one policy did over the run.
type PolicySummary struct {
	// Amplification is the calls that reached the service per request (Brooker's "load":
	// total calls over unique calls).
	Amplification float64 `json:"amplification"`
	// Success is the share of the requests that succeeded, as their clients saw it, 0 to 1;
	// SuccessPct the same in %.
	Success    float64 `json:"success"`
	SuccessPct float64 `json:"success_pct"`
	// RecoveryS is the time from the trigger's end until the goodput is back within 5% of its
	// level before the trigger, for good (see recovery); null when it never is.
	RecoveryS *float64 `json:"recovery_s"`
	// State is recovered, metastable (not recovered, the calls reaching the service still over
	// its capacity at the end although the first tries alone are under it), recovering (not
	// yet recovered, the calls under the capacity), overloaded (the first tries alone exceed
	// the capacity), during (the trigger lasts to the end), no_trigger, or running (while the
	// run is under way).
	State   string `json:"state"`
	Verdict string `json:"verdict"` // the state in words

	Requests  int64 `json:"requests"`  // requests the clients made
	Succeeded int64 `json:"succeeded"` // of them, those that succeeded
	Refused   int64 `json:"refused"`   // failed at once: the policy refused the first try
	Attempts  int64 `json:"attempts"`  // calls that reached the service
	Retries   int64 `json:"retries"`   // retries sent, at every layer
	Timeouts  int64 `json:"timeouts"`  // attempts that timed out, at every layer
	Errors    int64 `json:"errors"`    // attempts answered with an error, at every layer
	Denied    int64 `json:"denied"`    // first tries and retries the policy refused, at every layer
	Shed      int64 `json:"shed"`      // calls the service refused at once
	// WastedPct is the share of the calls the service completed whose caller had already given
	// up on them, in %.
	WastedPct    float64 `json:"wasted_pct"`
	LatencyP50MS float64 `json:"latency_p50_ms"` // of the requests that succeeded, first try to answer
	LatencyP99MS float64 `json:"latency_p99_ms"`
	MaxInFlight  int     `json:"max_in_flight"` // most calls at the service at once
	// EndLoadPct is the calls that reached the service in the last window of the run (see
	// recovery), as a share of its capacity, in %.
	EndLoadPct float64 `json:"end_load_pct"`
}

// summarize returns the summary of outcome o in environment e; final says whether the run
// is over (the recovery is then judged).
func summarize(e *environment, o *outcome, final bool) PolicySummary {
	t := o.tot
	ps := PolicySummary{
		Requests: t.Requests, Succeeded: t.Succeeded, Refused: t.Refused, Attempts: t.Attempts, Retries: t.Retries,
		Timeouts: t.Timeouts, Errors: t.Errors, Denied: t.LocalDeny, Shed: t.Shed, MaxInFlight: t.MaxQueue,
		LatencyP50MS: o.p50, LatencyP99MS: o.p99, State: "running", Verdict: "running",
	}
	if t.Requests > 0 {
		ps.Amplification = float64(t.Attempts) / float64(t.Requests)
	}
	if ended := t.Succeeded + t.Failed; ended > 0 {
		ps.Success = float64(t.Succeeded) / float64(ended)
	}
	ps.SuccessPct = 100 * ps.Success
	if t.Served > 0 {
		ps.WastedPct = 100 * float64(t.Wasted) / float64(t.Served)
	}
	if final {
		rec := recoveryOf(e, o.samples)
		ps.RecoveryS, ps.State, ps.Verdict, ps.EndLoadPct = rec.after, rec.state, rec.verdict, rec.endLoadPct
	}
	return ps
}

// rounded returns ps with its numbers rounded as round says (provisional numbers).
func (ps PolicySummary) rounded(round func(float64) float64) PolicySummary {
	for _, p := range []*float64{&ps.Amplification, &ps.Success, &ps.SuccessPct, &ps.WastedPct, &ps.LatencyP50MS, &ps.LatencyP99MS, &ps.EndLoadPct} {
		*p = round(*p)
	}
	return ps
}

// recovery is a policy's recovery after the trigger.
type recovery struct {
	after      *float64 // seconds from the trigger's end, nil when never
	state      string
	verdict    string
	endLoadPct float64
}

// goodTarget is how many successful requests the window that judges the recovery must expect
// at the level before the trigger: enough that chance moves its goodput by about 2.5%, half
// the 5% it is judged by.
const goodTarget = 1600

// recoveryOf judges whether and when the goodput of samples came back after the trigger: the
// first sampling interval, from the trigger's end on, from which the goodput is at least 95%
// of its level before the trigger both over the next window (long enough to expect goodTarget
// successes) and over the rest of the run, so that a dip of chance in one window does not
// push the recovery later and a relapse does not count as recovered. The level is the mean
// goodput of the intervals before the trigger, the first left out (the service fills up);
// when there are fewer than two, the request rate.
func recoveryOf(e *environment, samples []sample) recovery {
	var rec recovery
	n := len(samples)
	secs := e.Sample.Seconds()
	level := e.Rate
	before := min(n, int(e.TriggerStart/e.Sample)) // intervals wholly before the trigger
	if before >= 3 {
		sum := 0.0
		for _, sm := range samples[1:before] {
			sum += float64(sm.Succeeded)
		}
		level = sum / float64(before-1) / secs
	}
	k := min(n, max(1, int(math.Ceil(goodTarget/(max(level, 1e-9)*secs)))))
	// good[j] is the successes of intervals j and later.
	good := make([]float64, n+1)
	for j := n - 1; j >= 0; j-- {
		good[j] = good[j+1] + float64(samples[j].Succeeded)
	}
	rate := func(from, to int) float64 { return (good[from] - good[to]) / (float64(to-from) * secs) }
	if n > 0 {
		calls := 0.0
		for _, sm := range samples[n-k:] {
			calls += float64(sm.Attempts)
		}
		rec.endLoadPct = 100 * calls / (float64(k) * secs) / e.Capacity
	}
	switch {
	case e.Trigger == "none":
		rec.state, rec.verdict = "no_trigger", "no trigger"
		return rec
	case e.TriggerEnd >= e.Duration:
		rec.state, rec.verdict = "during", "the trigger lasts to the end of the run"
		return rec
	case e.Rate >= e.Capacity:
		rec.state, rec.verdict = "overloaded", "the new requests alone exceed the capacity"
		return rec
	}
	for j := int((e.TriggerEnd + e.Sample - 1) / e.Sample); j+k <= n; j++ {
		if rate(j, j+k) >= 0.95*level && rate(j, n) >= 0.95*level {
			after := math.Max(0, (time.Duration(j)*e.Sample - e.TriggerEnd).Seconds())
			rec.after = &after
			rec.state = "recovered"
			rec.verdict = "recovered as soon as the trigger ended"
			if after > 0 {
				rec.verdict = fmt.Sprintf("recovered %s s after the trigger ended", strconv.FormatFloat(math.Round(after*10)/10, 'f', -1, 64))
			}
			return rec
		}
	}
	if rec.endLoadPct >= 100 {
		rec.state = "metastable"
		rec.verdict = fmt.Sprintf("still collapsed at the end: metastable (the calls, retries included, are %.0f%% of the capacity)", rec.endLoadPct)
		return rec
	}
	rec.state, rec.verdict = "recovering", "not recovered by the end of the run"
	if rec.endLoadPct*e.Capacity/100 < 0.5*e.Rate {
		rec.verdict += ": the policy still refuses most requests"
	}
	return rec
}

// staticUpdate is what a run knows before it simulates: the capacity over time, the load
// table, the trigger's end.
func staticUpdate(s scenario, e *environment) lab.Update {
	n := e.Samples()
	x, y := make([]float64, n), make([]float64, n)
	for k := range n {
		end := e.SampleEnd(k)
		x[k] = end.Seconds()
		y[k] = e.capacityAt(end - 1)
	}
	u := lab.Update{
		Summary: map[string]any{"load": []loadRow{loadOf(s, e)}},
		Series:  []lab.Series{{Name: "capacity", Chart: "load", Label: "Capacity", Group: "*", Tone: lab.Neutral, XUnit: "s", YUnit: "/s", X: x, Y: y}},
	}
	if s.Trigger != "none" {
		u.Summary["trigger_end_s"] = min(e.TriggerEnd, s.Duration).Seconds()
	}
	if len(s.Sweep) > 0 {
		u.Series = append(u.Series, theory(s)...)
	}
	return u
}

// loadRow is summary.load: the scenario's load against the service's capacity.
type loadRow struct {
	// NormalPct is the first tries' load, as a share of the capacity, in %.
	NormalPct float64 `json:"normal_pct"`
	// StormPct is the load when every request makes all its attempts, (N+1)^layers of them,
	// as a share of the capacity, in %: above 100, a storm of retries can keep the service
	// overloaded by itself once something has set it off.
	StormPct float64 `json:"storm_pct"`
	Verdict  string  `json:"verdict"`
}

func loadOf(s scenario, e *environment) loadRow {
	row := loadRow{NormalPct: 100 * s.Rate / s.Capacity}
	row.StormPct = row.NormalPct * math.Pow(float64(s.Retries+1), float64(s.Layers))
	switch {
	case row.NormalPct >= 100:
		row.Verdict = "overloaded without any retry: no policy can keep up"
	case row.StormPct > 100:
		row.Verdict = "fine without retries, over capacity if every request retries: a storm can outlive its trigger"
	default:
		row.Verdict = "under capacity even if every request makes all its attempts"
	}
	return row
}

// theory is the reference of the failure sweep's charts: with independent failures at rate x
// and N retries at each of L layers, a request at layer l fails with f_l = f_{l−1}^(N+1)
// (f_0 = x) and makes a(f) = 1 + f + … + f^N attempts; the service sees a(f_0)·…·a(f_{L−1})
// calls per client request, and the client's request succeeds with 1 − f_L. (Brooker's
// post writes x^N for the failure; it is x^(N+1).)
func theory(s scenario) []lab.Series {
	var xs, amp, succ []float64
	for _, p := range s.Sweep {
		x := float64(p) / 100
		a, f := 1.0, x
		for range s.Layers {
			sum := 0.0
			for k := 0; k <= s.Retries; k++ {
				sum += math.Pow(f, float64(k))
			}
			a *= sum
			f = math.Pow(f, float64(s.Retries+1))
		}
		xs, amp, succ = append(xs, float64(p)), append(amp, lab.RoundTo(a, 6)), append(succ, lab.RoundTo(100*(1-f), 6))
	}
	label := fmt.Sprintf("Theory: %d retries, independent failures", s.Retries)
	return []lab.Series{
		{Name: "theory amplification", Chart: "sweep_amp", Label: label, Tone: lab.Neutral, Style: "dashed", XUnit: "%", YUnit: "calls per request", X: xs, Y: amp},
		{Name: "theory success", Chart: "sweep_success", Label: label, Tone: lab.Neutral, Style: "dashed", XUnit: "%", YUnit: "%", X: xs, Y: succ},
	}
}

// update is the update after a slice: the policies' new sampling intervals and numbers so far,
// and the sweeps' points so far.
func (r *runner) update(s scenario, e *environment, units []*unit, final bool) lab.Update {
	round := lab.Provisional(final)
	u := lab.Update{Summary: map[string]any{}}
	pols := map[string]PolicySummary{}
	sweep := map[string][]sweepRow{}
	clients := map[string][]clientRow{}
	sweepSeries := map[string]*[4][]float64{} // by chart and policy: x and y
	for _, un := range units {
		o := un.current()
		if o == nil {
			continue
		}
		done := un.out != nil
		sm := summarize(un.env, o, done)
		switch un.sweep {
		case "":
			pols[un.policy] = sm.rounded(lab.Provisional(final || done))
			u.Series = append(u.Series, timeSeries(un.policy, un.env, o.samples[un.sent:], un.sent)...)
			un.sent = len(o.samples)
		case "sweep":
			row := sweepRow{FailurePct: un.x, Amplification: round(sm.Amplification), SuccessPct: round(sm.SuccessPct)}
			sweep[un.policy] = append(sweep[un.policy], row)
			addPoint(sweepSeries, "sweep_amp "+un.policy, float64(un.x), row.Amplification)
			addPoint(sweepSeries, "sweep_success "+un.policy, float64(un.x), row.SuccessPct)
		case "client_sweep":
			row := clientRow{Clients: un.x, Amplification: round(sm.Amplification), SuccessPct: round(sm.SuccessPct), RecoveryS: sm.RecoveryS, State: sm.State}
			clients[un.policy] = append(clients[un.policy], row)
			addPoint(sweepSeries, "clients_amp "+un.policy, float64(un.x), row.Amplification)
			addPoint(sweepSeries, "clients_success "+un.policy, float64(un.x), row.SuccessPct)
		}
	}
	u.Summary["policies"] = pols
	for _, rows := range sweep {
		slices.SortFunc(rows, func(a, b sweepRow) int { return cmp.Compare(a.FailurePct, b.FailurePct) })
	}
	for _, rows := range clients {
		slices.SortFunc(rows, func(a, b clientRow) int { return cmp.Compare(a.Clients, b.Clients) })
	}
	if len(s.Sweep) > 0 {
		u.Summary["sweep"] = sweep
	}
	if len(s.ClientSweep) > 0 {
		u.Summary["client_sweep"] = clients
	}
	names := make([]string, 0, len(sweepSeries))
	for name := range sweepSeries {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		xy := sweepSeries[name]
		sortPoints(xy[0], xy[1])
		chart, policy, _ := strings.Cut(name, " ")
		yunit := "%"
		if chart == "sweep_amp" || chart == "clients_amp" {
			yunit = "calls per request"
		}
		xunit := "%"
		if chart == "clients_amp" || chart == "clients_success" {
			xunit = "clients"
		}
		u.Series = append(u.Series, lab.Series{Name: name, Chart: chart, Label: policy, XUnit: xunit, YUnit: yunit, X: xy[0], Y: xy[1]})
	}
	return u
}

// sortPoints sorts the points (x[i], y[i]) by x.
func sortPoints(x, y []float64) {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(x[a], x[b]) })
	xs, ys := slices.Clone(x), slices.Clone(y)
	for i, k := range idx {
		x[i], y[i] = xs[k], ys[k]
	}
}

func addPoint(m map[string]*[4][]float64, name string, x, y float64) {
	xy, ok := m[name]
	if !ok {
		xy = &[4][]float64{}
		m[name] = xy
	}
	xy[0], xy[1] = append(xy[0], x), append(xy[1], y)
}

// sweepRow is one point of summary.sweep.<policy>.
type sweepRow struct {
	FailurePct    int64   `json:"failure_pct"`
	Amplification float64 `json:"amplification"`
	SuccessPct    float64 `json:"success_pct"`
}

// clientRow is one point of summary.client_sweep.<policy>.
type clientRow struct {
	Clients       int64    `json:"clients"`
	Amplification float64  `json:"amplification"`
	SuccessPct    float64  `json:"success_pct"`
	RecoveryS     *float64 `json:"recovery_s"`
	State         string   `json:"state"`
}

// timeSeries returns the points of policy p's charts for samples, the intervals from the
// from-th on.
func timeSeries(p string, e *environment, samples []sample, from int) []lab.Series {
	secs := e.Sample.Seconds()
	n := len(samples)
	x, calls, good, inFlight := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	ax, amp, sx, succ, lx, lt := make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n), make([]float64, 0, n)
	for i, sm := range samples {
		t := e.SampleEnd(from + i).Seconds()
		x = append(x, t)
		calls = append(calls, lab.RoundTo(float64(sm.Attempts)/secs, 6))
		good = append(good, lab.RoundTo(float64(sm.Succeeded)/secs, 6))
		inFlight = append(inFlight, float64(sm.InFlight))
		if sm.Requests > 0 {
			ax, amp = append(ax, t), append(amp, lab.RoundTo(float64(sm.Attempts)/float64(sm.Requests), 4))
		}
		if ended := sm.Succeeded + sm.Failed; ended > 0 {
			sx, succ = append(sx, t), append(succ, lab.RoundTo(100*float64(sm.Succeeded)/float64(ended), 4))
		}
		if sm.Succeeded > 0 {
			lx, lt = append(lx, t), append(lt, lab.RoundTo(sm.LatencyMS, 4))
		}
	}
	return []lab.Series{
		{Name: "calls " + p, Chart: "load", Label: "Calls at the service", Group: p, XUnit: "s", YUnit: "/s", X: x, Y: calls, Append: true},
		{Name: "goodput " + p, Chart: "load", Label: "Requests that succeed", Group: p, XUnit: "s", YUnit: "/s", X: x, Y: good, Append: true},
		{Name: "success " + p, Chart: "success", Label: p, XUnit: "s", YUnit: "%", X: sx, Y: succ, Append: true},
		{Name: "amplification " + p, Chart: "amplification", Label: p, XUnit: "s", YUnit: "calls per request", X: ax, Y: amp, Append: true},
		{Name: "in flight " + p, Chart: "in_flight", Label: p, XUnit: "s", YUnit: "calls", X: x, Y: inFlight, Append: true},
		{Name: "latency " + p, Chart: "latency", Label: p, XUnit: "s", YUnit: "ms", X: lx, Y: lt, Append: true},
	}
}

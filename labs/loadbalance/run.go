package loadbalance

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Lab returns the load-balancing lab. Each lab value keeps a memo of finished policy
// simulations (see memoKey), shared by all of its runs.
func Lab() *lab.Lab { return newRunner().lab() }

func newRunner() *runner {
	return &runner{memo: lab.NewCache[outcome](memoSize), rows: lab.NewCache[comparisonRow](rowCacheSize)}
}

type runner struct {
	memo    *lab.Cache[outcome]
	rows    *lab.Cache[comparisonRow] // comparison rows of the subsettings, by compareKey
	work    atomic.Int64              // work units done (World.Work, subsetsWork, compareWork), summed over runs, for tests
	chunk   float64                   // work per step of one simulation; 0 means chunkWork (tests vary it)
	firstBy time.Duration             // when a first picture that may be cut is due; 0 means firstPictureBy (tests vary it)
}

func (r *runner) lab() *lab.Lab {
	return &lab.Lab{
		Name:  "loadbalance",
		Title: "Load balancing in the datacenter",
		Short: "Load balancing",
		Intro: "Clients keep connections to a subset of the backends and pick one of them for every request, as in " +
			"“Site Reliability Engineering”, chapter 20, “Load Balancing in the Datacenter”. How each client picks its subset " +
			"decides how the connections spread over the backends; how it picks a backend for each request decides how evenly " +
			"their CPUs work when queries, machines and clients differ.",
		Params: params,
		Check:  check,
		Rules: []lab.Rule{
			{Params: []string{"subset", "backends"}, Text: "`subset` ≤ `backends`", Breaks: "backends=20"},
			{Params: []string{"failing", "backends"}, Text: "`failing` ≤ `backends`", Breaks: "backends=20&subset=10&failing=30"},
			{Params: []string{"failing", "event_share", "backends", "event"}, Text: "with an `event`, `failing` plus the backends it stops (`event_share` × `backends`, rounded, at least one) ≤ `backends`", Breaks: "backends=20&subset=10&failing=20&event=abrupt_stop"},
		},
		View:         view,
		Tours:        tours,
		Cost:         costOf,
		CostBound:    costOf,
		CostParams:   []string{"clients", "duration", "rate", "policy", "subset", "sweep", "load_sweep"},
		Memory:       memoryOf,
		MemoryParams: []string{"subset", "clients", "backends", "policy", "sweep", "load_sweep"},
		Light:        "clients=10&backends=10&subset=3&duration=2s",
		Progressive:  true,
		Run:          r.Run,
	}
}

// policySummary is summary.policies.<name>: what one policy did over the run. CPU figures are
// per-backend utilisation over the run, in %, fail-fast backends left out.
type policySummary struct {
	Requests     int64   `json:"requests"`
	Errors       int64   `json:"errors"`
	ErrorPct     float64 `json:"error_pct"`
	Rejected     int64   `json:"rejected"`  // no backend of the subset could take it
	FailFast     int64   `json:"fail_fast"` // answered with an error by a fail-fast backend
	Stopped      int64   `json:"stopped"`   // failed by a stop
	Shed         int64   `json:"shed"`      // refused by an overloaded backend, its queue full
	CPUMin       float64 `json:"cpu_min"`
	CPUMean      float64 `json:"cpu_mean"`
	CPUMax       float64 `json:"cpu_max"`
	MaxOverMin   float64 `json:"max_over_min"`
	MaxOverMean  float64 `json:"max_over_mean"`
	P99OverMean  float64 `json:"p99_over_mean"`
	WastedCPUPct float64 `json:"wasted_cpu_pct"`
	LatencyP50MS float64 `json:"latency_p50_ms"` // interpolated within a 4.4%-wide histogram bucket (World.Latency)
	LatencyP99MS float64 `json:"latency_p99_ms"`
	// QueuePct is the share of the latency of the requests that succeeded spent waiting for a
	// core in a backend's queue, in %; the rest is service, on a core.
	QueuePct float64 `json:"queue_pct"`
	// ActivePerClient is how many requests a client has in flight on average (Little's law:
	// the summed latency of the requests that succeeded over clients × simulated time). It
	// says how much a least-loaded client can see: a few requests in flight over a large
	// subset leave most backends looking idle to it.
	ActivePerClient float64 `json:"active_per_client"`
	SimulatedSecs   float64 `json:"simulated_s"`
}

// cpuStats is summary.cpu: the spread of per-backend utilisation (%) under the first policy.
type cpuStats struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Mean float64 `json:"mean"`
}

// backendRow is one entry of summary.backends.
type backendRow struct {
	Connections int                `json:"connections"`
	CPU         float64            `json:"cpu"`           // utilisation over the run under the first policy, %
	ByPolicy    map[string]float64 `json:"cpu_by_policy"` // under each policy
	Failing     bool               `json:"failing,omitempty"`
}

// flushEvery is how often, at most, a run sends what its simulations have added.
const flushEvery = 100 * time.Millisecond

// chunkWork is about the work one step of one policy's simulation does between two looks at
// the clock: a few milliseconds.
const chunkWork = 60_000

// Run computes scenario v: first the subsets (summary.connections, summary.subsettings, the
// connections histogram and, for small sizes, the subsets and rounds), then the traffic
// simulation of every policy side by side, interval by interval, sending the new sampling
// intervals and the numbers so far every flushEvery; the last update holds the final numbers.
func (r *runner) Run(ctx context.Context, v param.Values, emit func(lab.Update)) error {
	began := time.Now()
	run := &lbRun{r: r, v: v, s: scenarioOf(v)}
	if err := run.subsets(ctx, emit); err != nil {
		return err
	}
	// The comparison of the subsettings (the other algorithms' subsets, everyone's churn) is
	// no part of the charts: it is computed beside the simulation once the first picture is
	// out, in paced pieces, and sent when ready, so that the first picture of every chart
	// need not wait for it nor share the CPUs with it. (After the simulation when both would
	// not fit in memory at once.)
	var cancel context.CancelFunc
	run.cctx, cancel = context.WithCancel(ctx)
	setup, compare, sims := memoryParts(run.s)
	run.beside = setup+compare+sims <= lab.MaxRunMemory
	defer func() {
		cancel()
		if run.cmp != nil {
			run.cmp.wait()
		}
	}()
	if err := run.worlds(ctx, emit); err != nil {
		return err
	}
	if len(run.sims) == 0 { // every policy and sweep point from the memo
		u := r.progress(run.s, run.env, run.pols, run.counts, 0, run.samples, true)
		run.sw.add(&u, true)
		run.ls.add(&u, true)
		u.Refine = &lab.Refinement{Done: int64(run.s.Duration / time.Second), Total: int64(run.s.Duration / time.Second), Unit: "s"}
		run.tr.Emit(u)
		return run.sendComparison(true)
	}
	return run.tr.Stage("simulating", func() error { return run.simulate(ctx, began) })
}

// lbRun is one run of the lab, stage by stage: the subsets and their first picture
// (subsets), the worlds to simulate (worlds), their simulation side by side (simulate), and
// the comparison of the subsettings beside them (sendComparison).
type lbRun struct {
	r *runner
	v param.Values
	s scenario

	starts, conns []int32 // the subsets: each client's first backend, its connections
	counts        []int   // connections per backend
	sw            *sweepRun
	ls            *loadSweepRun
	env           *environment
	pols          []policyRun
	sims          []*world // the worlds to simulate: policies not memoised, sweep points
	samples       int
	tr            *lab.Tracker

	cctx   context.Context // the comparison's, cancelled when the run ends
	cmp    *comparison
	beside bool // the comparison runs beside the simulation (else after it)
}

// subsets computes the subsets and sends their picture: summary.connections, the load, the
// connections histogram, for small sizes the subsets and rounds, and the connection sweep.
func (run *lbRun) subsets(ctx context.Context, emit func(lab.Update)) error {
	r, s := run.r, run.s
	var err error
	run.starts, run.conns, err = subsetsPaced(ctx, s.Subsetting, s)
	if err != nil {
		return err
	}
	run.counts = connections(s.Backends, run.conns)
	r.work.Add(subsetsWork(s.Subsetting, s))
	u := lab.Update{
		Summary: map[string]any{"connections": connStats(run.counts), "load_pct": loadPct(s), "load": []loadRow{loadOf(s)}, "overloaded": loadOf(s).Overloaded},
		Series:  []lab.Series{connectionsHistogram(s, run.counts)},
	}
	if rows, rounds := smallTables(s, run.starts, run.conns); rows != nil {
		u.Summary["subsets"] = rows
		if rounds != nil {
			u.Summary["rounds"] = rounds
		}
	}
	emit(u)
	if run.sw, err = r.newSweep(ctx, run.v, s); err != nil {
		return err
	}
	emit(lab.Update{Series: run.sw.connSeries()})
	return nil
}

// worlds sets up the traffic's environment and the worlds to simulate: the policies the memo
// does not hold (it holds final numbers) and the sweeps' points, in the order the workers take
// them; and the tracker of their progress.
func (run *lbRun) worlds(ctx context.Context, emit func(lab.Update)) error {
	r, s, v := run.r, run.s, run.v
	if err := engine.Pace(ctx, func() error { run.env = s.env(run.starts, run.conns); return nil }); err != nil {
		return err
	}
	run.pols = make([]policyRun, len(s.Policies))
	for i, p := range s.Policies {
		run.pols[i].key = memoKey(v, p)
		if o, ok := r.memo.Get(run.pols[i].key); ok {
			run.pols[i].memo = &o
			continue
		}
		run.pols[i].world = newWorld(config{Policy: p, CountErrors: s.CountErrors, Env: run.env}) // set up by its first step
		run.sims = append(run.sims, run.pols[i].world)
	}
	sweepWorlds := run.sw.start(run.pols[0])
	if err := engine.Pace(ctx, func() error {
		var lw []*world
		run.ls, lw = r.newLoadSweep(v, s, run.starts, run.conns, run.pols)
		sweepWorlds = append(sweepWorlds, lw...)
		return nil
	}); err != nil {
		return err
	}
	run.sims = append(run.sims, sweepWorlds...)
	// The workers take the worlds in order: those whose pickers read the whole subset first,
	// since a step of theirs takes longest and the first picture waits for the last.
	slices.SortStableFunc(run.sims, func(a, b *world) int {
		switch sa, sb := scans(a.cfg.Policy), scans(b.cfg.Policy); {
		case sa && !sb:
			return -1
		case sb && !sa:
			return 1
		}
		return 0
	})
	run.samples = run.env.Samples()
	all := run.samples * (len(s.Policies) + len(sweepWorlds))
	run.tr = lab.NewTracker(emit, int64(all))
	run.tr.Add(int64(all - run.samples*len(run.sims)))
	return nil
}

// sendComparison sends the comparison of the subsettings when it is ready; with block, it
// waits for it, first starting it if it has not started (the simulations are done: their
// memory is free for it).
func (run *lbRun) sendComparison(block bool) error {
	if run.cmp == nil && !block {
		return nil
	}
	if run.cmp == nil {
		for i := range run.pols {
			run.pols[i].world = nil
		}
		clear(run.sims)
		run.cmp = run.r.startComparison(run.cctx, run.v, run.s, run.counts)
	}
	rows, err, ok := run.cmp.take(block)
	if ok && err == nil {
		run.tr.Emit(lab.Update{Summary: map[string]any{"subsettings": rows}})
	}
	return err
}

// simulate advances the worlds side by side, step by step, and sends what they add every
// flushEvery: the first picture (the first sampling intervals, simulated in eighths when it
// may be cut to fewer once it is due, firstPictureBy after the run began), then the rest.
func (run *lbRun) simulate(ctx context.Context, began time.Time) error {
	r, s, worlds, samples := run.r, run.s, run.sims, run.samples
	chunk := r.chunk
	if chunk == 0 {
		chunk = chunkWork
	}
	step := stepOf(s, chunk)
	first, least := firstStep(s, samples, step)
	sub := first
	if least < first {
		sub = (first + 7) / 8
	}
	due := began.Add(firstPictureBy)
	if r.firstBy != 0 {
		due = began.Add(r.firstBy)
	}
	sent := 0 // samples sent
	flushed := time.Time{}
	for k := 0; k < samples; {
		next := min(samples, k+step)
		if flushed.IsZero() {
			next = min(first, k+sub)
		}
		err := engine.Trials(ctx, len(worlds), runtime.GOMAXPROCS(0), func() func(int) error {
			return func(i int) error {
				before := worlds[i].Work()
				err := worlds[i].Advance(ctx, next)
				r.work.Add(worlds[i].Work() - before)
				return err
			}
		})
		if err != nil {
			return err
		}
		run.tr.Add(int64((next - k) * len(worlds)))
		k = next
		if flushed.IsZero() && k < first && (k < least || time.Now().Before(due)) {
			continue // the first picture is not due
		}
		final := k == samples
		if final || time.Since(flushed) >= flushEvery {
			u := r.progress(s, run.env, run.pols, run.counts, sent, k, final)
			run.sw.add(&u, final)
			run.ls.add(&u, final)
			u.Refine = &lab.Refinement{Done: int64(run.env.SampleEnd(k-1) / time.Second), Total: int64(s.Duration / time.Second), Unit: "s"}
			run.tr.Emit(u)
			sent, flushed = k, time.Now()
			if run.beside && run.cmp == nil && !final {
				run.cmp = r.startComparison(run.cctx, run.v, s, run.counts)
			}
		}
		if err := run.sendComparison(final); err != nil {
			return err
		}
	}
	return nil
}

// stepOf is how many sampling intervals a run simulates between two looks at the clock:
// about chunk work per policy.
func stepOf(s scenario, chunk float64) int {
	perSample := max(simWork(s)/float64(len(s.Policies))/float64(scenarioSamples(s)), 1)
	return max(1, int(chunk/perSample))
}

// firstStep returns how many sampling intervals a run of scenario s simulates before its
// first update, of samples in steps of step (first): fewer, for a first picture soon — but a
// subset cycle (cycleSamples) when it fits a quarter of the run and firstWork. When even the
// whole run is shorter than a cycle, no picture of it covers one, and the run may send the
// first at fewer intervals (least) once firstPictureBy has passed: firstWork is work, and how
// long it takes depends on the machine and on how the work falls on its cores (a step of
// weighted round robin over large subsets takes longest, and the others wait for it). A first
// picture on the way to a cycle is never cut, so that dragging the subset size moves the
// charts on any machine.
func firstStep(s scenario, samples, step int) (first, least int) {
	fits := int(firstWork / max(simWork(s)/float64(samples), 1))
	first = min(samples, max(1, step/8, min(cycleSamples(s), samples/4, fits)))
	if cycleSamples(s) <= samples {
		return first, first
	}
	return first, min(first, max(1, step/8))
}

// firstPictureBy is how long after a run starts its first picture is due when firstStep lets
// the run cut it: some 80 ms, so that with a last eighth of the first step and sending it, a
// move shows a complete coarse picture within ~150 ms.
const firstPictureBy = 80 * time.Millisecond

// firstWork is the most simulation work (simWork's units) a first picture is made to wait
// for so that it covers a subset cycle: some 100 ms of the two cores here (the default
// scenario's subset of 30: three of its sixty seconds, 0.35 million units; a subset of 150:
// thirteen seconds, each client round 130 backends of its 150).
const firstWork = 4_000_000

// cycleSamples is how many sampling intervals of scenario s it takes a client sending at the
// mean rate to send as many requests as its subset has backends. Until then a client's round
// robin has not been round its subset, and the load a backend gets does not depend on the
// subset size (the default scenario's first second is the same picture at every size from 20
// to 1,000): a first picture shorter than that would show the same numbers through a drag of
// the subset size.
func cycleSamples(s scenario) int {
	cycle := time.Duration(float64(s.Subset) / s.Rate * float64(time.Second))
	every := sampleEvery(s.Duration)
	return int((cycle + every - 1) / every)
}

// policyRun is one policy of a run: simulated (world) or from the memo.
type policyRun struct {
	key   string
	world *world
	memo  *outcome
}

// progress is the update after samples [sent, k) have been simulated: their points, and the
// numbers so far (rounded unless final). Memoised policies send all their points with the
// first update (sent == 0) and final numbers throughout.
func (r *runner) progress(s scenario, env *environment, pols []policyRun, counts []int, sent, k int, final bool) lab.Update {
	u := lab.Update{Summary: map[string]any{}}
	sum := map[string]policySummary{}
	var first []float64
	byPolicy := make([][]float64, len(pols))
	for i, p := range pols {
		name := s.Policies[i]
		round := lab.Provisional(final)
		var o outcome
		from, to := sent, k
		if p.memo != nil {
			o, round = *p.memo, lab.Provisional(true)
			if from, to = 0, len(o.samples); sent > 0 {
				from = to
			}
		} else {
			o = r.fullOutcome(p.world)
			if final {
				r.memo.Put(p.key, o)
			}
		}
		cpu, ps := o.cpu, o.summary
		byPolicy[i] = cpu
		sum[name] = ps.rounded(round)
		if i == 0 {
			first = cpu
			u.Summary["cpu"] = cpuStats{Min: round(ps.CPUMin), Max: round(ps.CPUMax), Mean: round(ps.CPUMean)}
			u.Summary["wasted_cpu_pct"] = round(ps.WastedCPUPct)
			u.Summary["errors"] = ps.Errors
		}
		if to > from {
			u.Series = append(u.Series, timeSeries(name, o.samples[from:to])...)
		}
		u.Series = append(u.Series, cpuHistogram(name, cpu, env.Failing))
		if o.cdfX != nil {
			u.Series = append(u.Series, lab.Series{Name: "latency " + name, Chart: "latency", Label: name, XUnit: "ms", YUnit: "%", X: o.cdfX, Y: o.cdfY})
		}
	}
	u.Summary["policies"] = sum
	if final {
		backends := make([]backendRow, len(counts))
		for b := range backends {
			backends[b] = backendRow{Connections: counts[b], CPU: first[b], ByPolicy: map[string]float64{}, Failing: env.Failing[b]}
			for i, name := range s.Policies {
				backends[b].ByPolicy[name] = byPolicy[i][b]
			}
		}
		u.Summary["backends"] = backends
	}
	return u
}

// cpuSoFar returns each backend's utilisation (%) up to the last sampling interval measured.
func (w *world) cpuSoFar() []float64 {
	out := make([]float64, len(w.backends))
	if w.sampled == 0 {
		return out
	}
	span := float64(w.env.SampleEnd(w.sampled - 1))
	for i := range w.backends {
		out[i] = 100 * w.backends[i].sampleAcc / (cores * span)
	}
	return out
}

// summary returns the policy's numbers so far, given cpuSoFar.
func (w *world) summary(cpu []float64) policySummary {
	ps := policySummary{
		Requests: w.Requests, Errors: w.Errors, Rejected: w.Rejected, FailFast: w.FailFast, Stopped: w.Stopped, Shed: w.Shed,
		LatencyP50MS: w.Latency(0.5), LatencyP99MS: w.Latency(0.99),
	}
	if w.sampled > 0 {
		ps.SimulatedSecs = float64(w.env.SampleEnd(w.sampled-1)) / 1e9
		if w.env.Clients > 0 {
			ps.ActivePerClient = float64(w.busyTime) / 1e9 / (float64(w.env.Clients) * ps.SimulatedSecs)
		}
	}
	if w.busyTime > 0 {
		ps.QueuePct = 100 * float64(w.waitTime) / float64(w.busyTime)
	}
	if ps.Requests > 0 {
		ps.ErrorPct = 100 * float64(ps.Errors) / float64(ps.Requests)
	}
	var xs []float64
	for b, u := range cpu {
		if !w.env.Failing[b] {
			xs = append(xs, u)
		}
	}
	if len(xs) == 0 {
		return ps
	}
	slices.Sort(xs)
	n := len(xs)
	ps.CPUMin, ps.CPUMax = xs[0], xs[n-1]
	total := 0.0
	for _, x := range xs {
		total += x
	}
	ps.CPUMean = total / float64(n)
	p99 := xs[min(n-1, int(math.Ceil(0.99*float64(n)))-1)]
	if ps.CPUMin > 0 {
		ps.MaxOverMin = ps.CPUMax / ps.CPUMin
	}
	if ps.CPUMean > 0 {
		ps.MaxOverMean = ps.CPUMax / ps.CPUMean
		ps.P99OverMean = p99 / ps.CPUMean
	}
	if ps.CPUMax > 0 {
		// The chapter: the busiest task limits the traffic; every other task wastes the
		// difference. As a share of what all tasks would use at the busiest one's level.
		ps.WastedCPUPct = 100 * (1 - ps.CPUMean/ps.CPUMax)
	}
	return ps
}

func (ps policySummary) rounded(round func(float64) float64) policySummary {
	for _, p := range []*float64{&ps.ErrorPct, &ps.CPUMin, &ps.CPUMean, &ps.CPUMax, &ps.MaxOverMin, &ps.MaxOverMean,
		&ps.P99OverMean, &ps.WastedCPUPct, &ps.LatencyP50MS, &ps.LatencyP99MS, &ps.QueuePct, &ps.ActivePerClient} {
		*p = round(*p)
	}
	return ps
}

// timeSeries is samples of one policy: the median utilisation with the min–max band around it,
// and errors per second.
func timeSeries(name string, samples []sample) []lab.Series {
	n := len(samples)
	x, med, lo, hi, errs := make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	for i, sm := range samples {
		x[i], med[i], lo[i], hi[i] = sm.T, lab.RoundTo(sm.Median, 4), lab.RoundTo(sm.Min, 4), lab.RoundTo(sm.Max, 4)
		errs[i] = float64(sm.Errors)
	}
	of := "cpu " + name
	return []lab.Series{
		{Name: of, Chart: "cpu", Label: name, Group: name, XUnit: "s", YUnit: "%", X: x, Y: med, Upsert: true},
		{Name: of + " lo", Chart: "cpu", Label: name, Group: name, XUnit: "s", YUnit: "%", X: x, Y: lo, Upsert: true, Of: of, Bound: "lo"},
		{Name: of + " hi", Chart: "cpu", Label: name, Group: name, XUnit: "s", YUnit: "%", X: x, Y: hi, Upsert: true, Of: of, Bound: "hi"},
		{Name: "errors " + name, Chart: "errors", Label: name, XUnit: "s", YUnit: "errors", X: x, Y: errs, Upsert: true},
	}
}

// cpuBin is the width of the CPU histogram's bins, in percentage points.
const cpuBin = 2.0

// cpuHistogram is the distribution of per-backend utilisation under one policy: backends per
// bin of cpuBin points (x is the bin's start).
func cpuHistogram(name string, cpu []float64, failing []bool) lab.Series {
	counts := []float64{} // never nil: JSON would write null
	for b, u := range cpu {
		if failing[b] {
			continue
		}
		i := int(u / cpuBin)
		for len(counts) <= i {
			counts = append(counts, 0)
		}
		counts[i]++
	}
	x := make([]float64, len(counts))
	for i := range x {
		x[i] = cpuBin * float64(i)
	}
	return lab.Series{Name: "cpu histogram " + name, Chart: "cpu_hist", Label: name, Group: name, XUnit: "%", YUnit: "backends", X: x, Y: counts, Width: cpuBin}
}

// connectionsHistogram is the number of backends with each connection count, from one below
// the least to one above the most connected (those two bins empty, so that even a histogram
// of one count shows its bar one connection wide).
func connectionsHistogram(s scenario, counts []int) lab.Series {
	hi := slices.Max(append([]int{0}, counts...))
	lo := slices.Min(append([]int{hi}, counts...))
	lo = max(lo-1, 0)
	hi++
	n := make([]float64, hi-lo+1)
	for _, c := range counts {
		n[c-lo]++
	}
	x := make([]float64, len(n))
	for i := range x {
		x[i] = float64(lo + i)
	}
	return lab.Series{Name: "connections", Chart: "connections", Label: s.Subsetting, XUnit: "connections", YUnit: "backends", X: x, Y: n, Width: 1}
}

// loadPct is the offered load: the mean utilisation the requests would cause if spread
// perfectly, in %.
func loadPct(s scenario) float64 {
	if s.Backends == 0 {
		return 0
	}
	return 100 * float64(s.Clients) * s.Rate * meanCost.Seconds() / (float64(s.Backends) * cores)
}

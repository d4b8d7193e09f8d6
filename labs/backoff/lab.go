package backoff

import (
	"context"
	"math"
	"runtime"
	"slices"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Strategies are the retry policies the lab compares, in canonical order.
var Strategies = []string{"none", "constant", "linear", "exponential", "full", "equal", "decorrelated"}

// baseline is the strategy the summary table compares against.
const baseline = "exponential"

// Params declares the lab's parameters.
var Params = param.Set{
	{Name: "strategies", Label: "Strategies", Kind: param.EnumList, Options: Strategies,
		Default: "none,exponential,full,equal,decorrelated",
		Help:    "Retry policies to compare; each sees the same network in every trial."},
	{Name: "clients", Label: "Clients", Kind: param.Int, Default: "100", Min: 1, Max: 1000, Step: 1,
		Help: "How many clients race to write the row (N)."},
	{Name: "base", Label: "Base", Kind: param.Duration, Default: "5ms", Min: 0.1, Max: 60000, Step: 0.1, Unit: "ms", Log: true,
		Help: "First sleep: the a of min(cap, a·r^attempt)."},
	{Name: "cap", Label: "Cap", Kind: param.Duration, Default: "2s", Min: 1, Max: 86400000, Step: 1, Unit: "ms", Log: true,
		Help: "Longest sleep."},
	{Name: "multiplier", Group: "Advanced", Label: "Multiplier r", Kind: param.Float, Default: "2", Min: 1, Max: 10, Step: 0.05,
		Help: "Growth per retry; the next sleep is about (r−1)·elapsed time."},
	{Name: "latency_mean", Group: "Advanced", Label: "Latency mean", Kind: param.Duration, Default: "10ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Help: "Mean one-way network delay."},
	{Name: "latency_sd", Group: "Advanced", Label: "Latency sd", Kind: param.Duration, Default: "2ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Help: "Standard deviation of the one-way delay (the post's variance of 4ms)."},
	{Name: "trials", Group: "Advanced", Label: "Trials", Kind: param.Int, Default: "100", Min: 1, Max: 1000, Step: 1,
		Help: "Simulations averaged per point."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
	{Name: "sweep", Group: "Advanced", Label: "Sweep of clients", Kind: param.IntRange, Default: "10:190:10", Min: 1, Max: 1000, MaxLen: 100,
		Help: "Client counts for the work and completion charts, from:to:step, or off."},
	{Name: "retries", Group: "Advanced", Label: "Schedule length", Kind: param.Int, Default: "12", Min: 1, Max: 200, Step: 1,
		Help: "Retries shown in the retry schedule."},
}

// Budget limits, independent of the server's work budget: one simulation may deliver at most
// this many times its estimated events before it is stopped as runaway.
const runawayFactor = 20

// Lab returns the backoff & jitter lab. Each lab value has its own memo of simulated points
// (see pointKey), shared by all of its runs.
func Lab() *lab.Lab {
	r := &runner{points: newMemo(memoSize)}
	return &lab.Lab{
		Name:  "backoff",
		Title: "Exponential backoff and jitter",
		Intro: "N clients race to update one row under optimistic concurrency, as in Marc Brooker's " +
			"“Exponential Backoff and Jitter”. Without jitter, retries stay in lockstep and clients keep colliding; " +
			"with jitter they spread out and the work falls.",
		Params:     Params,
		View:       view,
		Cost:       Cost,
		CostParams: []string{"trials", "clients", "sweep", "strategies"},
		Run:        r.Run,
	}
}

// memoSize is how many points a lab's memo keeps: about 20,000 points, a few megabytes.
const memoSize = 20000

// runner runs scenarios of one lab value.
type runner struct {
	points *memo
}

// scenario is the typed form of the parameters.
type scenario struct {
	strategies []string
	clients    int
	setting
	sweep   []int64
	retries int
}

// setting is everything a simulation depends on besides its policy and client count.
type setting struct {
	base, cap  time.Duration
	multiplier float64
	mean, sd   time.Duration
	trials     int
	seed       uint64
}

func scenarioOf(v param.Values) scenario {
	return scenario{
		strategies: v.List("strategies"),
		clients:    int(v.Int("clients")),
		setting: setting{
			base:       v.Duration("base"),
			cap:        v.Duration("cap"),
			multiplier: v.Float("multiplier"),
			mean:       v.Duration("latency_mean"),
			sd:         v.Duration("latency_sd"),
			trials:     int(v.Int("trials")),
			seed:       uint64(v.Int("seed")),
		},
		sweep:   v.Range("sweep").Points(),
		retries: int(v.Int("retries")),
	}
}

// Policy returns the named strategy's policy for the scenario's base, cap and multiplier.
func Policy(name string, base, cap time.Duration, multiplier float64) backoff.Policy {
	switch name {
	case "none":
		return backoff.None{}
	case "constant":
		return backoff.Constant{Delay: base}
	case "linear":
		return backoff.Linear{Base: base, Cap: cap}
	case "exponential":
		return backoff.Exponential{Base: base, Cap: cap, Multiplier: multiplier}
	case "full":
		return backoff.FullJitter{Base: base, Cap: cap, Multiplier: multiplier}
	case "equal":
		return backoff.EqualJitter{Base: base, Cap: cap, Multiplier: multiplier}
	case "decorrelated":
		return backoff.Decorrelated{Base: base, Cap: cap}
	}
	panic("backoff lab: unknown strategy " + name)
}

// simEvents bounds the events of one simulation of n clients: one per write, and at worst
// (no backoff) one winner per round of the remaining clients, n + (n−1) + … + 1 writes.
// Backoff only lowers it; TestCostIsUpperBound checks the bound.
func simEvents(n int64) int64 { return n*(n+1)/2 + n }

// Cost estimates the simulated events of scenario v.
func Cost(v param.Values) int64 {
	s := scenarioOf(v)
	k := int64(len(s.strategies))
	if !slices.Contains(s.strategies, baseline) {
		k++
	}
	total := k * simEvents(int64(s.clients))
	for _, n := range s.sweep {
		if n != int64(s.clients) {
			total += int64(len(s.strategies)) * simEvents(n)
		}
	}
	return total * int64(s.trials)
}

// StrategySummary is summary.strategies.<name>: means over trials at the chosen client count,
// and the change against no-jitter exponential backoff.
type StrategySummary struct {
	Writes              float64 `json:"writes"`
	CompletionMS        float64 `json:"completion_ms"`
	WritesChangePct     float64 `json:"writes_change_pct"`
	CompletionChangePct float64 `json:"completion_change_pct"`
}

// SweepPoint is one entry of summary.sweep.<name>.
type SweepPoint struct {
	Clients      int64   `json:"clients"`
	Writes       float64 `json:"writes"`
	CompletionMS float64 `json:"completion_ms"`
}

// ScheduleStep is one entry of summary.schedule.
type ScheduleStep struct {
	Retry           int     `json:"retry"`
	SleepMS         float64 `json:"sleep_ms"`
	ElapsedMS       float64 `json:"elapsed_ms"`
	NextFromElapsed float64 `json:"next_sleep_from_elapsed_ms"` // a + (r−1)·T_n, uncapped
	LinearSleepMS   float64 `json:"linear_sleep_ms"`
	LinearElapsedMS float64 `json:"linear_elapsed_ms"`
}

// point is the outcome of every strategy at one client count, averaged over trials.
type point struct {
	writes     []float64 // by strategy
	completion []float64 // ms, by strategy
	hists      []*engine.Histogram
}

// Run simulates scenario v and reports, in order: the retry schedule, the chosen client count
// (summary.strategies and the writes-over-time histograms), then the sweep point by point.
func (r *runner) Run(ctx context.Context, v param.Values, emit func(lab.Update)) error {
	s := scenarioOf(v)
	emit(scheduleUpdate(s))

	// The chosen N, with the baseline even when it is not shown.
	names := append([]string(nil), s.strategies...)
	if !slices.Contains(names, baseline) {
		names = append(names, baseline)
	}
	total := int64(len(names) * s.trials)
	for _, n := range s.sweep {
		if int(n) != s.clients {
			total += int64(len(s.strategies) * s.trials)
		}
	}
	tr := lab.NewTracker(emit, total)
	var chosen point
	err := tr.Stage("clients", func() (err error) {
		chosen, err = r.pointAt(ctx, s, names, s.clients, true, tr)
		return err
	})
	if err != nil {
		return err
	}
	base := len(names) - 1
	for i, n := range names {
		if n == baseline {
			base = i
		}
	}
	sum := map[string]StrategySummary{}
	var series []lab.Series
	for i, name := range s.strategies {
		sum[name] = StrategySummary{
			Writes:              chosen.writes[i],
			CompletionMS:        chosen.completion[i],
			WritesChangePct:     pctChange(chosen.writes[i], chosen.writes[base]),
			CompletionChangePct: pctChange(chosen.completion[i], chosen.completion[base]),
		}
		h := chosen.hists[i] // shared through the memo: read only
		x, y := make([]float64, len(h.Counts)), make([]float64, len(h.Counts))
		for j, c := range h.Counts {
			x[j] = float64(time.Duration(j)*h.Width) / 1e6
			y[j] = float64(c) / float64(s.trials)
		}
		series = append(series, lab.Series{
			Name: "timeline " + name, Chart: "timeline", Label: name,
			XUnit: "ms", YUnit: "writes per " + param.FormatDuration(h.Width), X: x, Y: y,
		})
	}
	tr.Emit(lab.Update{Summary: map[string]any{"strategies": sum}, Series: series})

	// The sweep, point by point.
	sweep := map[string][]SweepPoint{}
	for _, n := range s.sweep {
		p := chosen
		if int(n) != s.clients {
			err := tr.Stage("sweep", func() (err error) {
				p, err = r.pointAt(ctx, s, s.strategies, int(n), false, tr)
				return err
			})
			if err != nil {
				return err
			}
		}
		var series []lab.Series
		next := map[string][]SweepPoint{}
		for i, name := range s.strategies {
			next[name] = append(append([]SweepPoint(nil), sweep[name]...),
				SweepPoint{Clients: n, Writes: p.writes[i], CompletionMS: p.completion[i]})
			series = append(series,
				lab.Series{Name: "work " + name, Chart: "work", Label: name, XUnit: "clients", YUnit: "writes",
					X: []float64{float64(n)}, Y: []float64{p.writes[i]}, Append: true},
				lab.Series{Name: "completion " + name, Chart: "completion", Label: name, XUnit: "clients", YUnit: "ms",
					X: []float64{float64(n)}, Y: []float64{p.completion[i]}, Append: true})
		}
		sweep = next
		tr.Emit(lab.Update{Summary: map[string]any{"sweep": sweep}, Series: series})
	}
	return nil
}

// timelineBins is the most bins a writes-over-time histogram is shown with.
const timelineBins = 300

func pctChange(x, ref float64) float64 {
	if ref == 0 {
		return 0
	}
	return 100 * (x - ref) / ref
}

// pointAt returns every named strategy's outcome at n clients, from the memo where it has
// them and by simulation otherwise, counting each simulation (or memoised one) in tr.
func (r *runner) pointAt(ctx context.Context, s scenario, names []string, n int, withHist bool, tr *lab.Tracker) (point, error) {
	p := point{writes: make([]float64, len(names)), completion: make([]float64, len(names)), hists: make([]*engine.Histogram, len(names))}
	key := func(name string) pointKey { return pointKey{strategy: name, clients: n, setting: s.setting} }
	var missing []string
	var at []int
	for i, name := range names {
		if v, ok := r.points.get(key(name), withHist); ok {
			p.writes[i], p.completion[i], p.hists[i] = v.writes, v.completion, v.hist
			tr.Add(int64(s.trials))
			continue
		}
		missing, at = append(missing, name), append(at, i)
	}
	if len(missing) == 0 {
		return p, nil
	}
	q, err := simulate(ctx, s, missing, n, withHist, tr.Add)
	if err != nil {
		return point{}, err
	}
	for j, i := range at {
		v := pointValue{writes: q.writes[j], completion: q.completion[j]}
		if withHist {
			v.hist = q.hists[j]
			v.hist.Coarsen(timelineBins)
		}
		r.points.put(key(names[i]), v)
		p.writes[i], p.completion[i], p.hists[i] = v.writes, v.completion, v.hist
	}
	return p, nil
}

// simulate runs every trial of every named strategy at n clients on all CPUs and averages
// per strategy in trial order. finished, when not nil, is told of each simulation done.
func simulate(ctx context.Context, s scenario, names []string, n int, withHist bool, finished func(int64)) (point, error) {
	policies := make([]backoff.Policy, len(names))
	for i, name := range names {
		policies[i] = Policy(name, s.base, s.cap, s.multiplier)
	}
	writes := make([]int64, len(names)*s.trials)
	completion := make([]time.Duration, len(names)*s.trials)
	var hists [][]*engine.Histogram // per worker, per strategy
	budget := runawayFactor * simEvents(int64(n))
	err := engine.Trials(ctx, s.trials, runtime.GOMAXPROCS(0), func() func(int) error {
		w := &World{}
		var hs []*engine.Histogram
		if withHist {
			hs = make([]*engine.Histogram, len(names))
			for i := range hs {
				hs[i] = engine.NewHistogram(time.Millisecond, 4096)
			}
			hists = append(hists, hs) // newWorker runs before the workers start
		}
		return func(trial int) error {
			for i, p := range policies {
				var h *engine.Histogram
				if withHist {
					h = hs[i]
				}
				out, err := w.Simulate(ctx, Config{
					Clients: n, Policy: p, LatencyMean: s.mean, LatencySD: s.sd,
					Seed: s.seed, Trial: trial, MaxEvents: budget,
				}, h)
				if err != nil {
					return err
				}
				writes[i*s.trials+trial] = out.Writes
				completion[i*s.trials+trial] = out.Completion
				if finished != nil {
					finished(1)
				}
			}
			return nil
		}
	})
	if err != nil {
		return point{}, err
	}
	p := point{writes: make([]float64, len(names)), completion: make([]float64, len(names))}
	for i := range names {
		var w int64
		var c time.Duration
		for t := 0; t < s.trials; t++ {
			w += writes[i*s.trials+t]
			c += completion[i*s.trials+t]
		}
		p.writes[i] = float64(w) / float64(s.trials)
		p.completion[i] = float64(c) / 1e6 / float64(s.trials)
	}
	if withHist {
		p.hists = make([]*engine.Histogram, len(names))
		for i := range names {
			h := engine.NewHistogram(time.Millisecond, 4096)
			for _, hs := range hists {
				h.Merge(hs[i])
			}
			p.hists[i] = h
		}
	}
	return p, nil
}

// scheduleUpdate is the retry schedule of seeds 001 and 004: exponential t_n = min(cap, a·r^(n−1))
// beside linear t_n = min(cap, a·n), with elapsed T_n and the relation t_{n+1} = a + (r−1)·T_n.
func scheduleUpdate(s scenario) lab.Update {
	exp := backoff.Schedule(s.base, s.cap, s.multiplier, s.retries)
	steps := make([]ScheduleStep, len(exp))
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	var linElapsed time.Duration
	retry := make([]float64, len(exp))
	sleepExp, sleepLin := make([]float64, len(exp)), make([]float64, len(exp))
	elapsed, next, line := make([]float64, len(exp)), make([]float64, len(exp)), make([]float64, len(exp))
	for i, st := range exp {
		lin := backoff.Linear{Base: s.base, Cap: s.cap}.Sleep(st.Retry, 0, nil)
		linElapsed += lin
		nextSleep := backoff.NextSleep(s.base, s.multiplier, st.Elapsed)
		steps[i] = ScheduleStep{
			Retry: st.Retry, SleepMS: ms(st.Sleep), ElapsedMS: ms(st.Elapsed),
			NextFromElapsed: ms(nextSleep), LinearSleepMS: ms(lin), LinearElapsedMS: ms(linElapsed),
		}
		retry[i], sleepExp[i], sleepLin[i] = float64(st.Retry), ms(st.Sleep), ms(lin)
		elapsed[i], line[i] = ms(st.Elapsed), ms(nextSleep)
		if i+1 < len(exp) {
			next[i] = ms(exp[i+1].Sleep)
		} else {
			next[i] = ms(min(nextSleep, capOr(s.cap)))
		}
	}
	return lab.Update{
		Summary: map[string]any{
			"schedule": steps,
			"schedule_relation": map[string]float64{
				"base_ms": ms(s.base), "multiplier": s.multiplier,
				"slope": s.multiplier - 1, "next_pct_of_elapsed": 100 * (s.multiplier - 1),
			},
		},
		Series: []lab.Series{
			{Name: "sleep exponential", Chart: "schedule", Label: "exponential", XUnit: "retry", YUnit: "ms", X: retry, Y: sleepExp},
			{Name: "sleep linear", Chart: "schedule", Label: "linear", XUnit: "retry", YUnit: "ms", X: retry, Y: sleepLin},
			{Name: "next sleep", Chart: "relation", Label: "next sleep t(n+1)", XUnit: "ms", YUnit: "ms", X: elapsed, Y: next},
			{Name: "relation line", Chart: "relation", Label: "a + (r−1)·T", XUnit: "ms", YUnit: "ms", X: elapsed, Y: line},
		},
	}
}

func capOr(c time.Duration) time.Duration {
	if c <= 0 {
		return math.MaxInt64
	}
	return c
}

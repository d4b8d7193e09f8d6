package ratelimit

import (
	"context"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Lab returns the rate-limiter lab. Each lab value has its own runner, with its own memos of
// finished algorithm results and of the cost model's pilot estimates.
func Lab() *lab.Lab { return newRunner(defaultSlices).lab() }

// defaultSlices is how many slices of simulated time a run is cut into.
const defaultSlices = 40

// runner runs scenarios of one lab value. It keeps each algorithm's finished results (see
// memo.go) and the cost model's estimates by canonical query (the budget check of a heavy
// scenario runs a pilot simulation).
type runner struct {
	slices int                   // slices of simulated time per run: 1 is a one-shot run
	work   atomic.Int64          // units of work done by runs, for tests of the cost model
	costs  *lab.Cache[int64]     // by canonical query
	memo   *lab.Cache[*finished] // finished results of each algorithm, see memo.go
}

func newRunner(slices int) *runner {
	return &runner{slices: slices, costs: lab.NewCache[int64](costMemoSize), memo: lab.NewCache[*finished](memoSize)}
}

func (r *runner) lab() *lab.Lab {
	return &lab.Lab{
		Name:  "ratelimit",
		Title: "Rate limiters, measured against the exact count",
		Short: "Rate limiters",
		Intro: "One client's requests reach every classic rate limiter at once, as in Criteo's engineering blog post " +
			"“Distributed Rate-Limiting Algorithms”: the grey line is the exact count of admitted requests in the last window, " +
			"the coloured one what each algorithm believes. Windows, logs and buckets keep different state per client, and " +
			"instances behind a load balancer share it through a store; the table counts what each let through that the exact window would have refused.",
		Params: Params,
		Check:  check,
		Rules: []lab.Rule{
			{Params: []string{"instances", "balancer"}, Text: "with `balancer=sticky`, `instances` = 1 (the client sits on one instance; the scale-out adds a second)", Breaks: "balancer=sticky&instances=4"},
			{Params: []string{"instances_sweep", "latency_sweep"}, Text: "`instances_sweep` needs `latency_sweep` on (its lines are drawn on the latency sweep's chart)", Breaks: "instances_sweep=2:8:2"},
			{Params: []string{"instances_sweep", "balancer"}, Text: "with `balancer=sticky`, `instances_sweep` is off", Breaks: "balancer=sticky&instances=1&latency_sweep=0:50:5&instances_sweep=2:8:2"},
		},
		View:         view,
		Cost:         r.Cost,
		CostBound:    CostBound,
		CostParams:   []string{"limit", "instances", "duration", "load", "algorithms", "sweep", "latency_sweep", "instances_sweep"},
		Memory:       Memory,
		MemoryParams: []string{"limit", "instances", "load", "duration", "algorithms", "sweep", "latency_sweep", "instances_sweep"},
		RefusedEnds:  []string{"duration=168h"},
		Light:        "duration=2s&limit=10",
		Progressive:  true,
		Run:          r.Run,
		Tours:        tours,
	}
}

// AlgorithmSummary is summary.algorithms.<name>.
type AlgorithmSummary struct {
	Admitted int64 `json:"admitted"`
	Rejected int64 `json:"rejected"`
	// OverAdmitted counts the requests admitted while the algorithm's own admitted requests
	// in the last window (the exact sliding window ending at the request) already numbered
	// the limit. It counts moments, not an excess: a fixed window that admits exactly the
	// limit per window under steady overload scores about half its admissions here, since
	// the last window is full whenever a new one starts admitting. The magnitude is in
	// MaxInWindowX and OverLimitRequestS.
	OverAdmitted    int64 `json:"over_admitted"`
	WronglyRejected int64 `json:"wrongly_rejected"` // rejected although the exact window had room
	MaxInWindow     int64 `json:"max_in_window"`    // most admitted in any window of the limit's length
	// MaxInWindowX is MaxInWindow over the limit: 2 for a fixed window at a boundary.
	MaxInWindowX float64 `json:"max_in_window_x"`
	// OverLimitRequestS is the excess over the limit × time: the area between the exact
	// count of admitted requests in the last window and the limit, where the count is above
	// it, in requests × seconds. 100 requests too many for 10 s is 1,000.
	OverLimitRequestS float64 `json:"over_limit_request_s"`
	// OverLimitTimePct is the share of the duration during which that count was above the
	// limit, in %.
	OverLimitTimePct float64 `json:"over_limit_time_pct"`
	// EstimateErrorPct is the mean of |estimate − exact count| over 4,000 instants that fall at
	// every phase of the window whatever the duration (errSampleAt), in % of the limit.
	EstimateErrorPct float64 `json:"estimate_error_pct"`
	StateBytes       int64   `json:"state_bytes"`           // bytes per key in a store (the sliding log: its longest log)
	StoreOps         float64 `json:"store_ops_per_request"` // store operations (or messages) per request
	Store            string  `json:"store"`                 // the semantics it ran with
	Burst            int64   `json:"burst,omitempty"`       // capacity of the bucket family
	GaveUp           int64   `json:"gave_up,omitempty"`     // compare-and-swap: requests refused after too many failed swaps
	// MeanWaitMS is the leaky bucket queue's mean wait of an admitted request before it
	// leaves, in ms (with the atomic store or local counters, where the queue is one place).
	MeanWaitMS float64 `json:"mean_wait_ms,omitempty"`
}

// Run simulates scenario v slice by slice of simulated time and reports, after each slice,
// the new points of every series, the summary so far and the simulated time covered (as a
// refinement in ms). The fold of all updates is the result of a one-shot run, bit for bit.
func (r *runner) Run(ctx context.Context, v param.Values, emit func(lab.Update)) error {
	s := scenarioOf(v)
	sim := newSimulation(s, func(name string) (*finished, bool) { return r.memo.Get(memoKey(v, name)) })
	initial := make([]float64, len(sim.worlds))
	for i, w := range sim.worlds {
		initial[i] = w.initial()
	}
	emit(sim.staticUpdate())
	ends := sliceEnds(s.duration, r.slices, float64(CostBound(v)))
	tr := lab.NewTracker(emit, int64(len(ends)))
	return tr.Stage("simulating", func() error {
		for i, end := range ends {
			final := i == len(ends)-1
			if err := engine.Pace(ctx, func() error { sim.arrive(end, final); return nil }); err != nil {
				return err
			}
			err := engine.Trials(ctx, len(sim.worlds), runtime.GOMAXPROCS(0), func() func(int) error {
				return func(k int) error {
					sim.worlds[k].advance(sim.batch, final)
					return nil
				}
			})
			if err != nil {
				return err
			}
			u := sim.update(final)
			r.work.Add(sim.takeWork(nil))
			tr.Add(1)
			u.Refine = &lab.Refinement{Done: int64(end / time.Millisecond), Total: int64(s.duration / time.Millisecond), Unit: "ms simulated"}
			tr.Emit(u)
		}
		for i, w := range sim.worlds[:len(sim.names)] { // the sweep's worlds follow
			if f, ok := w.(interface{ result(float64) *finished }); ok {
				r.memo.Put(memoKey(v, sim.names[i]), f.result(initial[i]))
			}
		}
		return nil
	})
}

// rampWork is the most work units a slice may be bounded by (CostBound, which counts every
// world, the sweeps' included, and is some 3–9 times the work done) when the run's first
// slice is not cut into ramps (see sliceEnds): at most some 10 ms of computing.
const rampWork = 1 << 21

// sliceEnds returns the ends of n equal slices of d, the last one d; when a slice's share of
// bound, the run's work bound, is more than rampWork, the first one is cut in growing ramps.
// The bound counts the work of every world: a scenario of few arrivals with sweeps of many
// worlds (limit 1 at load 10 for an hour, with every sweep: 31,000 arrivals, 180 million
// units) is as heavy a slice as one of many arrivals.
func sliceEnds(d time.Duration, n int, bound float64) []time.Duration {
	ends := make([]time.Duration, 0, n+3)
	if n > 1 && bound/float64(n) > rampWork {
		// The first slice of a heavy scenario comes in ramps of a 64th, a 16th and a quarter:
		// its first picture then takes a 64th of a slice's computing, so that a viewer's new
		// value is shown, and a newer one may supersede it, at once.
		for _, f := range []int64{64, 16, 4} {
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

// ordered returns the names in the canonical order of Algorithms.
func ordered(names []string) []string {
	out := slices.Clone(names)
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Algorithms, a) - slices.Index(Algorithms, b) })
	return out
}

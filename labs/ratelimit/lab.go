// Package ratelimit is the rate-limiter lab: every classic algorithm of
// algorithms/ratelimit fed the same random traffic, each measured against
// the exact answer, alone and distributed over several API instances that
// share a store.
//
// It follows Jean-Baptiste Muscat's "Distributed Rate-Limiting Algorithms"
// on Criteo's engineering blog (also translated into Japanese as
// "分散フロー制御アルゴリズムを5分で理解する"): the post plots, under the same
// random traffic, the count of the "perfect" sliding window (a grey line)
// against the count each algorithm works with (dashed), and explains why
// the store — Redis with atomic scripts, or Memcached with only atomic
// increments — decides which algorithm one can build. The lab draws those
// charts for every algorithm at once and counts, request by request, what
// each admitted that the exact sliding window would have refused.
//
// # The simulation
//
// Requests of one client arrive over duration (traffic: Poisson, on/off
// bursts, the post's boundary case of a full limit just before a window
// boundary and another just after, or a linear ramp), at load times the
// limit on average. Every algorithm sees the same arrivals. A load balancer
// (round robin, random, or sticky with a scale-out event halfway) sends
// each request to one of instances API instances, whose clocks are skewed
// by up to skew; the instances keep the client's state in a store whose
// round trip takes store_latency, with one of six semantics:
//
//   - atomic: a script runs read, decide and write as one step at the store
//     (Redis with Lua); the decisions are those of one in-process limiter.
//   - incr: atomic increments only (Memcached): the window algorithms INCR
//     the current counter, read the earlier ones in the same round trip,
//     decide, and DECR after a refusal; the others, which need an atomic
//     read-modify-write, fall back to GET then SET (summary store
//     "get_set").
//   - racy: GET, decide, SET: requests whose round trips overlap decide on
//     the same state and the last write wins.
//   - cas: GET, decide, compare-and-swap on a version; a failed swap reads
//     again (at most 8 attempts, then the request is refused). A retry
//     decides with its own clock, so the exact window counts the request
//     when its deciding attempt left the instance, not when it arrived:
//     counted by arrival, the serialised decisions of an exact limiter
//     would seem to over-admit.
//   - async: each instance decides on its own copy and sends what it
//     admitted to the others, who merge it after store_latency (the post's
//     Kafka idea); algorithms whose state cannot be merged (the bucket
//     family) stay local.
//   - local: each instance counts alone (the post's sticky sessions).
//
// # Results
//
// Every algorithm is measured against the exact sliding window of its own
// admitted requests, counted when they reach the service: at their arrival
// (or, for a compare-and-swap retry, when the deciding attempt left the
// instance), and for the leaky bucket as a queue when the queue lets them
// out, so that its smoothing shows.
//
// summary.algorithms.<name> (see [AlgorithmSummary]) holds what each
// algorithm admitted and rejected, how many it admitted while its own
// admitted requests already filled the exact sliding window ending at that
// request (over_admitted: a count of moments, not an excess) and how many it
// wrongly rejected (refused although that window had room), the most
// admitted requests in any window of the limit's length (also as × limit),
// the excess over the limit × time (the area between the exact count and
// the limit where it is above, and the share of time it is), its
// estimate's mean error against the exact count, its
// state per key and its store operations per request (and the leaky queue's
// mean wait). summary.offered is the number of requests that arrived,
// summary.limit and summary.window_ms the limit. The series are, per
// algorithm, the exact sliding-window count of its admitted requests ("exact
// <name>", a neutral reference) and its own estimate ("estimate <name>",
// dashed) at 1001 instants from 0 to the duration (chart "count", one panel
// per algorithm with the limit in each), and its admitted rate in 120 bins
// ("admitted <name>") beside the offered rate ("offered"; chart "rate").
//
// Runs are progressive: they simulate the duration in 40 slices of simulated
// time and send each slice's new points (appended counts, upserted rate
// bins) and the summary so far, with a refinement counting the simulated
// milliseconds done, so the first frame comes at once and the final result
// equals a one-shot run bit for bit. Algorithms run in parallel within a
// slice, each on its own state, so results do not depend on GOMAXPROCS.
// A lab value keeps each algorithm's finished result per scenario (memo.go):
// the algorithms do not affect one another, so ticking one on simulates only
// that one.
//
// # Cost
//
// A run's work is counted as it runs, in the units of the server's budget (12–80 ns of CPU each
// on the reference machine, BenchmarkWorkUnit): arrivals, decisions, store operations, sliding
// log copies and merges (see cost.go). Cost simulates a bounded prefix of the scenario and
// extrapolates it: within 2× of the count over a grid of every slider's extremes
// (TestCostWithinTwice, worst ×1.4). So the duration is bounded by work, not time: up to a
// week at a low rate. Memory estimates a run's big allocations (exact windows, pending
// requests, sliding logs in every instance), bounded per run (lab.MaxRunMemory).
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Algorithms are the algorithms the lab compares, in canonical order.
var Algorithms = []string{"fixed_window", "sliding_log", "sliding_window", "subwindows", "token_bucket", "leaky_queue", "leaky_meter", "gcra"}

// Traffics are the traffic shapes.
var Traffics = []string{"poisson", "bursty", "boundary", "ramp"}

// Stores are the store semantics of the distributed mode.
var Stores = []string{"local", "atomic", "incr", "racy", "cas", "async"}

// Balancers are the load balancers in front of the instances.
var Balancers = []string{"round_robin", "random", "sticky"}

var bucketFamily = []string{"token_bucket", "leaky_queue", "leaky_meter", "gcra"}

// two is the instances from which clock skew matters.
var two = 2.0

// Params declares the lab's parameters.
var Params = param.Set{
	{Name: "algorithms", Label: "Algorithms", Kind: param.EnumList, Options: Algorithms,
		Default: "fixed_window,sliding_log,sliding_window,subwindows,token_bucket,leaky_queue,leaky_meter,gcra",
		Help:    "Rate limiters to compare; each sees the same requests."},
	{Name: "limit", Label: "Limit", Kind: param.Int, Default: "1000", Min: 1, Max: 100000, Step: 1, Log: true, Unit: "requests",
		Help: "Most requests admitted per window (for the buckets: the rate, limit per window)."},
	{Name: "window", Label: "Window", Kind: param.Duration, Default: "1s", Min: 10, Max: 3600000, Step: 10, Unit: "ms", Log: true,
		Help: "Length of the window the limit applies to."},
	{Name: "subwindows", Group: "Algorithms", Label: "Sub-windows k", Kind: param.Int, Default: "4", Min: 2, Max: ratelimit.MaxSubWindows, Step: 1,
		Applies: &param.When{Param: "algorithms", Values: []string{"subwindows"}},
		Help:    "Sub-windows per window of the generalised sliding window: it reads k+1 counters (4: the post's five 15-second windows)."},
	{Name: "burst", Group: "Algorithms", Label: "Burst", Kind: param.Int, Default: "0", Min: 0, Max: 100000, Step: 1, Unit: "requests",
		Applies: &param.When{Param: "algorithms", Values: bucketFamily},
		Help:    "Bucket capacity: requests admitted at one instant from rest (0: equal to the limit, the fair comparison)."},
	{Name: "leak", Group: "Algorithms", Label: "Leak rate", Kind: param.Float, Default: "1", Min: 0.1, Max: 10, Step: 0.05, Unit: "× limit",
		Applies: &param.When{Param: "algorithms", Values: []string{"leaky_queue", "leaky_meter"}},
		Help:    "How fast the leaky buckets drain, relative to limit per window."},
	{Name: "traffic", Label: "Traffic", Kind: param.Enum, Options: Traffics, Default: "poisson",
		Help: "Poisson arrivals, on/off bursts across window boundaries, a full limit just before and just after boundaries, or a ramp from 0 to twice the load."},
	{Name: "load", Label: "Offered load", Kind: param.Float, Default: "1.1", Min: 0.1, Max: 10, Step: 0.05, Unit: "× limit",
		Help: "Mean arrival rate relative to the limit (boundary traffic: each burst's size relative to the limit)."},
	{Name: "duration", Label: "Duration", Kind: param.Duration, Default: "30s", Min: 1000, Max: 7 * 24 * 3600000, Step: 1000, Unit: "ms", Log: true,
		Help: "Simulated time (up to a week: the work budget decides how long at a given rate)."},
	{Name: "instances", Group: "Distributed", Label: "Instances", Kind: param.Int, Default: "1", Min: 1, Max: 64, Step: 1,
		Help: "API instances behind the load balancer, sharing the client's state through the store (with the sticky balancer: 1, and a second at the scale-out)."},
	{Name: "balancer", Group: "Distributed", Label: "Balancer", Kind: param.Enum, Options: Balancers, Default: "round_robin",
		Help: "How requests reach instances; sticky pins the client to one instance and moves it to a new one halfway (a scale-out)."},
	{Name: "store", Group: "Distributed", Label: "Store", Kind: param.Enum, Options: Stores, Default: "atomic",
		Help: "atomic script (Redis + Lua), incr only (Memcached), racy read-then-write, compare-and-swap, async propagation (Kafka), or local counters."},
	{Name: "store_latency", Group: "Distributed", Label: "Store latency", Kind: param.Duration, Default: "1ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Applies: &param.When{Param: "store", Values: []string{"incr", "racy", "cas", "async"}},
		Help:    "Round trip to the store (async: the propagation lag)."},
	{Name: "skew", Group: "Distributed", Label: "Clock skew", Kind: param.Duration, Default: "0s", Min: 0, Max: 60000, Step: 1, Unit: "ms",
		Applies: &param.When{Param: "instances", Min: &two},
		Help:    "Instance i's clock runs i/(instances−1)·skew ahead of true time (with the sticky balancer, the instance the scale-out adds runs skew ahead)."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
}

// check enforces the rule across the lab's parameters (see lab.Lab.Check): the sticky
// balancer pins the client to one instance and adds a second at the scale-out, so it starts
// with one; more would change nothing but the clocks' spacing.
func check(v param.Values) error {
	if n := v.Int("instances"); v.String("balancer") == "sticky" && n != 1 {
		return lab.Relation(fmt.Sprintf("instances must be 1 with balancer sticky, which pins the client to one instance and adds a second at the scale-out halfway; got %d", n),
			"instances", "balancer")
	}
	return nil
}

// Lab returns the rate-limiter lab. Each lab value has its own runner, with its own memos of
// finished algorithm results and of the cost model's pilot estimates.
func Lab() *lab.Lab { return newRunner(defaultSlices).lab() }

// defaultSlices is how many slices of simulated time a run is cut into.
const defaultSlices = 40

// runner runs scenarios of one lab value. It keeps each algorithm's finished results (see
// memo.go) and the cost model's estimates by canonical query (the budget check of a heavy
// scenario runs a pilot simulation).
type runner struct {
	slices int          // slices of simulated time per run: 1 is a one-shot run
	work   atomic.Int64 // units of work done by runs, for tests of the cost model
	mu     sync.Mutex
	costs  map[string]int64
	memo   *memo // finished results of each algorithm, see memo.go
}

func newRunner(slices int) *runner {
	return &runner{slices: slices, costs: map[string]int64{}, memo: newMemo()}
}

func (r *runner) lab() *lab.Lab {
	return &lab.Lab{
		Name:  "ratelimit",
		Title: "Rate limiters, measured against the exact count",
		Intro: "One client's requests reach every classic rate limiter at once, as in Criteo's engineering blog post " +
			"“Distributed Rate-Limiting Algorithms”: the grey line is the exact count of admitted requests in the last window, " +
			"the dashed one what each algorithm believes. Fixed windows forget at every boundary, a full token bucket lets " +
			"nearly twice the limit through, and instances racing on a shared store over-admit.",
		Params:       Params,
		Check:        check,
		View:         view,
		Cost:         r.Cost,
		CostBound:    CostBound,
		CostParams:   []string{"limit", "instances", "duration", "load", "algorithms"},
		Memory:       Memory,
		MemoryParams: []string{"limit", "instances", "load", "duration", "algorithms"},
		Progressive:  true,
		Run:          r.Run,
		Tours:        tours,
	}
}

// scenario is the typed form of the parameters.
type scenario struct {
	algorithms []string
	limit      int64
	window     time.Duration
	subwindows int
	burst      int64 // effective: the limit when the parameter is 0
	leak       float64
	traffic    string
	load       float64
	duration   time.Duration
	instances  int
	balancer   string
	store      string
	latency    time.Duration
	skew       time.Duration
	seed       uint64
}

func scenarioOf(v param.Values) scenario {
	s := scenario{
		algorithms: v.List("algorithms"),
		limit:      v.Int("limit"),
		window:     v.Duration("window"),
		subwindows: int(v.Int("subwindows")),
		burst:      v.Int("burst"),
		leak:       v.Float("leak"),
		traffic:    v.String("traffic"),
		load:       v.Float("load"),
		duration:   v.Duration("duration"),
		instances:  int(v.Int("instances")),
		balancer:   v.String("balancer"),
		store:      v.String("store"),
		latency:    v.Duration("store_latency"),
		skew:       v.Duration("skew"),
		seed:       uint64(v.Int("seed")),
	}
	if s.burst == 0 {
		s.burst = s.limit
	}
	return s
}

// limitOf is the scenario's limit as the algorithms take it.
func (s scenario) limitOf() ratelimit.Limit {
	return ratelimit.Limit{Count: int(s.limit), Per: s.window}
}

// leakLimit is the leaky buckets' rate: the limit drained leak times as fast.
func (s scenario) leakLimit() ratelimit.Limit {
	return ratelimit.Limit{Count: int(s.limit), Per: time.Duration(math.Max(1, math.Round(float64(s.window)/s.leak)))}
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
	// EstimateErrorPct is the mean of |estimate − exact count| over the samples, in % of the limit.
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
	sim := newSimulation(s, func(name string) (*finished, bool) { return r.memo.get(memoKey(v, name)) })
	initial := make([]float64, len(sim.worlds))
	for i, w := range sim.worlds {
		initial[i] = w.initial()
	}
	emit(sim.staticUpdate())
	ends := sliceEnds(s.duration, r.slices, expectedArrivals(s))
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
			r.work.Add(sim.takeWork())
			tr.Add(1)
			u.Refine = &lab.Refinement{Done: int64(end / time.Millisecond), Total: int64(s.duration / time.Millisecond), Unit: "ms simulated"}
			tr.Emit(u)
		}
		for i, w := range sim.worlds {
			if f, ok := w.(interface{ result(float64) *finished }); ok {
				r.memo.put(memoKey(v, sim.names[i]), f.result(initial[i]))
			}
		}
		return nil
	})
}

// rampArrivals is the most arrivals expected in a slice whose run's first slice is not cut
// into ramps (see sliceEnds): some tens of milliseconds of computing.
const rampArrivals = 1 << 16

// sliceEnds returns the ends of n equal slices of d, the last one d; when a slice is expected
// to hold more than rampArrivals of the run's arrivals, the first one is cut in growing ramps.
func sliceEnds(d time.Duration, n int, arrivals float64) []time.Duration {
	ends := make([]time.Duration, 0, n+3)
	if n > 1 && arrivals/float64(n) > rampArrivals {
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

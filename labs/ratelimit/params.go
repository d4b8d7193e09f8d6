package ratelimit

import (
	"fmt"
	"math"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Algorithms are the algorithms the lab compares, in canonical order (algorithmOptions).
var Algorithms = algorithmOptions.Names()

// trafficOptions are the traffic shapes; the lab reads them by name.
var trafficOptions = lab.Options[struct{}]{
	{Name: "poisson", Label: "Poisson"}, {Name: "bursty", Label: "Bursty (on/off)"},
	{Name: "boundary", Label: "At window boundaries"}, {Name: "ramp", Label: "Ramp"},
}

// storeOptions are the store semantics of the distributed mode.
var storeOptions = lab.Options[struct{}]{
	{Name: "local", Label: "Local counters"}, {Name: "atomic", Label: "Atomic script (Redis + Lua)"},
	{Name: "incr", Label: "Increment only (Memcached)"}, {Name: "racy", Label: "Racy read-then-write"},
	{Name: "cas", Label: "Compare-and-swap"}, {Name: "async", Label: "Async propagation (Kafka)"},
}

// balancerOptions are the load balancers in front of the instances.
var balancerOptions = lab.Options[struct{}]{
	{Name: "round_robin", Label: "Round robin"}, {Name: "random", Label: "Random"}, {Name: "sticky", Label: "Sticky sessions"},
}

// Traffics are the traffic shapes.
var Traffics = trafficOptions.Names()

// Stores are the store semantics of the distributed mode.
var Stores = storeOptions.Names()

// Balancers are the load balancers in front of the instances.
var Balancers = balancerOptions.Names()

var bucketFamily = []string{"token_bucket", "leaky_queue", "leaky_meter", "gcra"}

// two is the instances from which clock skew matters.
var two = 2.0

// Params declares the lab's parameters.
var Params = param.Set{
	{Name: "algorithms", Label: "Algorithms", Kind: param.EnumList, Options: Algorithms, OptionLabels: algorithmOptions.Labels(),
		Default: "fixed_window,sliding_log,sliding_window,subwindows,token_bucket,leaky_queue,leaky_meter,gcra",
		Help:    "Rate limiters to compare; each sees the same requests."},
	{Name: "limit", Label: "Limit", Kind: param.Int, Default: "1000", Min: 1, Max: 100000, Step: 1, Log: true, Unit: "requests",
		Help: "Most requests admitted per window (for the buckets: the rate, limit per window)."},
	{Name: "window", Label: "Window", Kind: param.Duration, Default: "1s", Min: 10, Max: 3600000, Step: 10, Unit: "ms", Log: true,
		Help: "Length of the window the limit applies to."},
	{Name: "subwindows", Group: "Algorithms", Label: "Sub-windows k", Kind: param.Int, Default: "4", Min: 2, Max: ratelimit.MaxSubWindows, Step: 1,
		Applies: &param.When{Param: "algorithms", Values: []string{"subwindows"}},
		Help:    "Sub-windows per window of the generalised sliding window: it reads k+1 counters (4 on a 1-minute window: the five 15-second windows of Criteo's post “Distributed Rate-Limiting Algorithms”)."},
	{Name: "burst", Group: "Algorithms", Label: "Burst", Kind: param.Int, Default: "0", Min: 0, Max: 100000, Step: 1, Unit: "requests",
		Applies: &param.When{Param: "algorithms", Values: bucketFamily},
		Help:    "Bucket capacity: requests admitted at one instant from rest (0: equal to the limit, the fair comparison)."},
	{Name: "leak", Group: "Algorithms", Label: "Leak rate", Kind: param.Float, Default: "1", Min: 0.1, Max: 10, Step: 0.05, Unit: "× limit",
		Applies: &param.When{Param: "algorithms", Values: []string{"leaky_queue", "leaky_meter"}},
		Help:    "How fast the leaky buckets drain, relative to limit per window."},
	{Name: "traffic", Label: "Traffic", Kind: param.Enum, Options: Traffics, OptionLabels: trafficOptions.Labels(), Default: "poisson",
		Help: "Poisson arrivals, on/off bursts across window boundaries, a full limit just before and just after boundaries, or a ramp from 0 to twice the load."},
	{Name: "load", Label: "Offered load", Kind: param.Float, Default: "1.1", Min: 0.1, Max: 10, Step: 0.05, Unit: "× limit",
		Help: "Mean arrival rate relative to the limit (boundary traffic: each burst's size relative to the limit)."},
	{Name: "duration", Label: "Duration", Kind: param.Duration, Default: "30s", Min: 1000, Max: 7 * 24 * 3600000, Step: 1000, Unit: "ms", Log: true,
		Help: "Simulated time (up to a week: the work budget decides how long at a given rate)."},
	{Name: "instances", Group: "Distributed", Label: "Instances", Kind: param.Int, Default: "1", Min: 1, Max: 64, Step: 1,
		Help: "API instances behind the load balancer, sharing the client's state through the store (with the sticky balancer: 1, and a second at the scale-out)."},
	{Name: "balancer", Group: "Distributed", Label: "Balancer", Kind: param.Enum, Options: Balancers, OptionLabels: balancerOptions.Labels(), Default: "round_robin",
		Help: "How requests reach instances; sticky pins the client to one instance and moves it to a new one halfway (a scale-out)."},
	{Name: "store", Group: "Distributed", Label: "Store", Kind: param.Enum, Options: Stores, OptionLabels: storeOptions.Labels(), Default: "atomic",
		Help: "atomic script (Redis + Lua), incr only (Memcached), racy read-then-write, compare-and-swap, async propagation (Kafka), or local counters."},
	{Name: "store_latency", Group: "Distributed", Label: "Store latency", Kind: param.Duration, Default: "1ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Applies: &param.When{Param: "store", Values: []string{"incr", "racy", "cas", "async"}},
		Help:    "Round trip to the store (async: the propagation lag)."},
	{Name: "skew", Group: "Distributed", Label: "Clock skew", Kind: param.Duration, Default: "0s", Min: 0, Max: 60000, Step: 1, Unit: "ms",
		Applies: &param.When{Param: "instances", Min: &two},
		Help:    "Instance i's clock runs i/(instances−1)·skew ahead of true time (with the sticky balancer, the instance the scale-out adds runs skew ahead)."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
	{Name: "sweep", Group: "Advanced", Label: "Sweep of sub-windows", Kind: param.IntRange, Default: "off", Min: 1, Max: ratelimit.MaxSubWindows, MaxLen: ratelimit.MaxSubWindows, On: "1:31:6",
		Help: "Sub-window counts k for the error-vs-sub-windows charts, from:to:step (1:31:6, say), or off: each k simulates the sliding-window approximation with k sub-windows (1: the classic two counters) on the same requests."},
	{Name: "latency_sweep", Group: "Advanced", Label: "Sweep of store latency", Kind: param.IntRange, Default: "off", Min: 0, Max: 1000, MaxLen: maxLatencyPoints, Unit: "ms", On: "0:50:5",
		Help: "Store latencies in ms for the admitted-vs-store-latency chart, from:to:step (0:50:5, say), or off: at each latency, and at the chosen store latency, the first algorithm runs on every store whose decisions depend on the latency (incr, racy, cas, async), on the same requests."},
	{Name: "instances_sweep", Group: "Advanced", Label: "Sweep of instances", Kind: param.IntRange, Default: "off", Min: 1, Max: 64, MaxLen: maxInstancePoints,
		Help: "Instance counts for more asynchronous-propagation lines on the admitted-vs-store-latency chart, from:to:step (2:8:2, say), or off: with latency_sweep on, asynchronous propagation also runs with each of these numbers of instances, one line each."},
}

// check enforces the rule across the lab's parameters (see lab.Lab.Check): the sticky
// balancer pins the client to one instance and adds a second at the scale-out, so it starts
// with one; more would change nothing but the clocks' spacing.
func check(v param.Values) error {
	if n := v.Int("instances"); v.String("balancer") == "sticky" && n != 1 {
		return lab.Relation(fmt.Sprintf("instances must be 1 with balancer sticky, which pins the client to one instance and adds a second at the scale-out halfway; got %d", n),
			"instances", "balancer")
	}
	if !v.Range("instances_sweep").Off {
		if v.Range("latency_sweep").Off {
			return lab.Relation("instances_sweep draws lines on the latency sweep's chart: it needs latency_sweep on (0:200:20, say), got off",
				"instances_sweep", "latency_sweep")
		}
		if v.String("balancer") == "sticky" {
			return lab.Relation("instances_sweep must be off with balancer sticky, which runs on one instance and a second after the scale-out",
				"instances_sweep", "balancer")
		}
	}
	return nil
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
	sweep      []int64         // sub-window counts of the sweep (sweep.go)
	latencies  []time.Duration // store latencies of the latency sweep (latency.go), the chosen one included
	instSweep  []int64         // instance counts of the latency sweep's extra async lines
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
		sweep:      v.Range("sweep").Points(),
		seed:       uint64(v.Int("seed")),
	}
	s.latencies = latencyPoints(v.Range("latency_sweep"), s.latency)
	if len(s.latencies) > 0 {
		s.instSweep = v.Range("instances_sweep").Points()
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

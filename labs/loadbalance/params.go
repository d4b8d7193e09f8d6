package loadbalance

import (
	"fmt"
	"math"
	"time"

	"github.com/resilience-playground/playground/algorithms/balance"
	"github.com/resilience-playground/playground/algorithms/subset"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// subsettingOptions are the subsetting algorithms, in canonical order, each with the
// algorithm it makes for a seed.
var subsettingOptions = lab.Options[func(seed uint64) subset.Algorithm]{
	{Name: "random", Label: "Random", New: func(seed uint64) subset.Algorithm { return &subset.Random{Seed: seed} }},
	{Name: "deterministic", Label: "Deterministic", New: func(seed uint64) subset.Algorithm { return &subset.Deterministic{Seed: seed} }},
	{Name: "rendezvous", Label: "Rendezvous hashing", New: func(seed uint64) subset.Algorithm { return subset.Rendezvous{Seed: seed} }},
	{Name: "aperture", Label: "Aperture", New: func(uint64) subset.Algorithm { return subset.Aperture{} }},
}

// policyOptions are the load-balancing policies the lab compares, in canonical order, each
// with the picker it makes for a client (whether least-loaded policies count recent errors as
// active requests, and the client's stream of random choices).
var policyOptions = lab.Options[func(countErrors bool, src *engine.Source) balance.Picker]{
	{Name: "round_robin", Label: "Round robin", New: func(bool, *engine.Source) balance.Picker { return &balance.RoundRobin{} }},
	{Name: "least_loaded", Label: "Least loaded", New: func(countErrors bool, _ *engine.Source) balance.Picker {
		return &balance.LeastLoaded{CountErrors: countErrors}
	}},
	{Name: "weighted", Label: "Weighted round robin", New: func(bool, *engine.Source) balance.Picker { return &balance.Weighted{ErrorPenalty: errorPenalty} }},
	{Name: "random", Label: "Random", New: func(_ bool, src *engine.Source) balance.Picker { return &balance.Random{Src: src} }},
	{Name: "p2c", Label: "Power of two choices", New: func(countErrors bool, src *engine.Source) balance.Picker {
		return &balance.TwoChoices{Src: src, CountErrors: countErrors}
	}},
}

// subsettingNames are the subsetting algorithms, in canonical order.
var subsettingNames = subsettingOptions.Names()

// policyNames are the load-balancing policies the lab compares, in canonical order.
var policyNames = policyOptions.Names()

// eventOptions are what can happen to some backends a third of the way through a run.
var eventOptions = lab.Options[struct{}]{{Name: "none", Label: "None"}, {Name: "lame_duck", Label: "Lame duck"}, {Name: "abrupt_stop", Label: "Abrupt stop"}}

// eventNames are the events' names.
var eventNames = eventOptions.Names()

var whenEvent = &param.When{Param: "event", Values: []string{"lame_duck", "abrupt_stop"}}

// params declares the lab's parameters.
var params = param.Set{
	{Name: "clients", Label: "Clients", Kind: param.Int, Default: "300", Min: 1, Max: 3000, Step: 1,
		Help: "Client tasks, each keeping connections to a subset of the backends."},
	{Name: "backends", Label: "Backends", Kind: param.Int, Default: "300", Min: 1, Max: 3000, Step: 1,
		Help: "Backend tasks of the service."},
	{Name: "subset", Label: "Subset size", Kind: param.Int, Default: "30", Min: 1, Max: 1000, Step: 1,
		Help: "Backends each client connects to: at most the number of backends."},
	{Name: "subsetting", Label: "Subsetting", Kind: param.Enum, Options: subsettingNames, OptionLabels: subsettingOptions.Labels(), Default: "random",
		Help: "How each client chooses its subset: random shuffle, the chapter's deterministic subsetting, rendezvous hashing (gRPC) or a deterministic aperture (Finagle). " +
			"Deterministic is the chapter's code when the subset size divides the backends; otherwise it keeps the chapter's promise of counts within one, " +
			"which its printed code breaks (a note below the charts shows how)."},
	{Name: "policy", Label: "Policies", Kind: param.EnumList, Options: policyNames, OptionLabels: policyOptions.Labels(), Default: "round_robin,least_loaded,weighted",
		Help: "Load-balancing policies to compare; each sees the same subsets, machines and requests."},
	{Name: "cost_spread", Label: "Query cost spread", Kind: param.Float, Default: "100", Min: 1, Max: 1000, Step: 1, Unit: "×", Log: true,
		Help: "Most expensive query / cheapest (log-uniform between them, mean 0.4 s of CPU); Google's “Load Balancing in the Datacenter” reports 1000× and more."},
	{Name: "machine_spread", Label: "Machine diversity", Kind: param.Float, Default: "1.5", Min: 1, Max: 4, Step: 0.05, Unit: "×",
		Help: "Fastest machine / slowest (log-uniform between them, mean speed 1)."},
	{Name: "antagonists", Label: "Antagonists", Kind: param.Float, Default: "0.1", Min: 0, Max: 1, Step: 0.01,
		Help: "Share of backends with a noisy neighbour at any time, each slowed by up to 20% for 10 s."},
	{Name: "rate", Label: "Request rate", Kind: param.Float, Default: "10", Min: 0.1, Max: 100, Step: 0.1, Unit: "/s", Log: true,
		Help: "Mean requests per second per client (10/s loads the default service to about 50%)."},
	{Name: "duration", Group: "Advanced", Label: "Duration", Kind: param.Duration, Default: "1m", Min: 1000, Max: 600000, Step: 1000, Unit: "ms",
		Help: "Simulated time."},
	{Name: "max_active", Group: "Advanced", Label: "Flow-control limit", Kind: param.Int, Default: "100", Min: 1, Max: 1000, Step: 1,
		Help: "Active requests on one connection above which the client stops sending to that backend."},
	{Name: "client_spread", Group: "Advanced", Label: "Client rate spread", Kind: param.Float, Default: "1", Min: 1, Max: 100, Step: 0.1, Unit: "×", Log: true,
		Help: "Busiest client's rate / quietest's (log-uniform, same mean)."},
	{Name: "event", Label: "Event", Kind: param.Enum, Options: eventNames, OptionLabels: eventOptions.Labels(), Default: "none",
		Help: "A third of the way through, some backends stop: after a lame-duck period (10 s) or abruptly. They restart 10 s later and warm up at half speed for 30 s."},
	{Name: "event_share", Label: "Backends stopped", Kind: param.Float, Default: "0.1", Min: 0.01, Max: 0.5, Step: 0.01, Applies: whenEvent,
		Help: "Share of the backends the event stops."},
	{Name: "failing", Group: "Advanced", Label: "Fail-fast backends", Kind: param.Int, Default: "0", Min: 0, Max: 100, Step: 1,
		Help: "Backends that answer every request at once with an error. Least-loaded policies sinkhole into them when a client's requests in flight cover most of its subset, " +
			"so that an idle-looking backend stands out. At 50 clients, 50 backends, deterministic subsetting with subsets of 5, 30 s and one fail-fast backend " +
			"(about 4 requests in flight per client), least-loaded sends it 559 requests where round robin sends 303, and weighted round robin, which counts the errors it reports against it, 45; " +
			"with random subsetting instead, 708, 354 and 53. At the defaults with one fail-fast backend, the same 4 requests in flight spread over subsets of 30, most look idle anyway, " +
			"and the sinkhole hardly shows: in a minute least-loaded sends it 609 requests, round robin 608 and weighted round robin 75."},
	{Name: "count_errors", Group: "Advanced", Label: "Count errors as active", Kind: param.Bool, Default: "false",
		Help: "The chapter's fix for sinkholing: least-loaded and two-choices count recent errors as active requests."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
	{Name: "sweep", Group: "Advanced", Label: "Sweep of subset size", Kind: param.IntRange, Default: "off", Min: 1, Max: 1000, MaxLen: 50, On: "20:300:40",
		Help: "Subset sizes for the spread-vs-subset-size charts, from:to:step (20:300:40, say), or off; sizes above the number of backends are not drawn. Each size simulates the first policy under random and deterministic subsetting (and the chosen one)."},
	{Name: "load_sweep", Group: "Advanced", Label: "Sweep of load", Kind: param.IntRange, Default: "off", Min: 1, Max: 200, MaxLen: 40, On: "50:100:10",
		Help: "Offered loads, in % of the backends' capacity, for the latency-vs-load charts, from:to:step (50:100:10, say), or off. At each load every policy is simulated with the request rate scaled to it, everything else as it is; loads that would need a rate outside 0.1–100 a second are not drawn."},
}

// check enforces the rules across the lab's parameters (see lab.Lab.Check): a client cannot
// connect to more backends than there are, more backends cannot fail than there are, and the
// fail-fast backends and those the event stops are different backends.
func check(v param.Values) error {
	backends := v.Int("backends")
	if k := v.Int("subset"); k > backends {
		return lab.Relation(fmt.Sprintf("subset must be at most backends (%d), got %d", backends, k), "subset", "backends")
	}
	failing := v.Int("failing")
	if failing > backends {
		return lab.Relation(fmt.Sprintf("failing must be at most backends (%d), got %d", backends, failing), "failing", "backends")
	}
	if v.String("event") != "none" {
		share := v.Float("event_share")
		if n := int64(eventBackends(share, int(backends))); failing+n > backends {
			return lab.Relation(fmt.Sprintf("failing (%d) plus the backends the event stops (event_share %g of %d backends: %d) must be at most backends (%d)",
				failing, share, backends, n, backends), "failing", "event_share", "backends", "event")
		}
	}
	return nil
}

// eventBackends is how many of the backends the event stops: the share, rounded, at least one.
func eventBackends(share float64, backends int) int {
	return max(1, int(math.Round(share*float64(backends))))
}

// scenario is the typed form of the parameters.
type scenario struct {
	Clients, Backends, Subset int
	Subsetting                string
	Policies                  []string
	CostSpread, MachineSpread float64
	Antagonists, Rate         float64
	Duration                  time.Duration
	MaxActive                 int
	ClientSpread              float64
	Event                     string
	EventShare                float64
	Failing                   int
	CountErrors               bool
	Seed                      uint64
	Sweep                     []int64 // subset sizes of the sweep (see sweepSizes)
	LoadSweep                 []int64 // offered loads (%) of the load sweep (see loadPoints)
}

// scenarioOf returns the typed scenario of v, which keeps the lab's rules across parameters (check).
func scenarioOf(v param.Values) scenario {
	s := scenario{
		Clients:       int(v.Int("clients")),
		Backends:      int(v.Int("backends")),
		Subset:        int(v.Int("subset")),
		Subsetting:    v.String("subsetting"),
		Policies:      v.List("policy"),
		CostSpread:    v.Float("cost_spread"),
		MachineSpread: v.Float("machine_spread"),
		Antagonists:   v.Float("antagonists"),
		Rate:          v.Float("rate"),
		Duration:      v.Duration("duration"),
		MaxActive:     int(v.Int("max_active")),
		ClientSpread:  v.Float("client_spread"),
		Event:         v.String("event"),
		EventShare:    v.Float("event_share"),
		Failing:       int(v.Int("failing")),
		CountErrors:   v.Bool("count_errors"),
		Seed:          uint64(v.Int("seed")),
		Sweep:         v.Range("sweep").Points(),
		LoadSweep:     v.Range("load_sweep").Points(),
	}
	return s
}

// Timing of the event and of sampling.
const (
	grace     = 10 * time.Second // lame-duck period (the chapter suggests 10 to 150 s)
	downtime  = 10 * time.Second // a stopped backend restarts after this long
	warmup    = 30 * time.Second // and runs at half speed for this long
	maxPoints = 300              // most sampling intervals
)

// sampleEvery is the sampling interval: a second, or longer so that there are at most
// maxPoints.
func sampleEvery(d time.Duration) time.Duration {
	s := time.Second
	for d > maxPoints*s {
		s *= 2
	}
	return s
}

// logUniformMean returns the mean of a log-uniform variable between 1 and r.
func logUniformMean(r float64) float64 {
	if r <= 1 {
		return 1
	}
	return (r - 1) / math.Log(r)
}

// env builds the environment of scenario s over the given subsets. Machine speeds, client
// rates and the event's backends are drawn from their own streams of the seed.
func (s scenario) env(starts, conns []int32) *environment {
	e := &environment{
		Seed: s.Seed, Clients: s.Clients, Backends: s.Backends, Starts: starts, Conns: conns,
		CostMin:   float64(meanCost) / logUniformMean(s.CostSpread),
		CostRatio: s.CostSpread,
		Antag:     s.Antagonists,
		MaxActive: s.MaxActive,
		Duration:  s.Duration,
		Sample:    sampleEvery(s.Duration),
		Event:     s.Event,
		EventAt:   s.Duration / 3,
		Grace:     grace,
		Down:      downtime,
		Warm:      warmup,
	}
	// Machines: log-uniform between 1 and the spread, scaled to mean 1.
	var src engine.Source
	engine.Seed(&src, s.Seed, engine.Choices, 1<<32, 0)
	e.Speed = make([]float64, s.Backends)
	sum := 0.0
	for i := range e.Speed {
		e.Speed[i] = math.Pow(s.MachineSpread, src.Float64())
		sum += e.Speed[i]
	}
	for i := range e.Speed {
		e.Speed[i] *= float64(s.Backends) / sum
	}
	// Clients' rates likewise, scaled to mean Rate.
	engine.Seed(&src, s.Seed, engine.Arrivals, 1<<32, 0)
	e.Rate = make([]float64, s.Clients)
	sum = 0
	for i := range e.Rate {
		e.Rate[i] = math.Pow(s.ClientSpread, src.Float64())
		sum += e.Rate[i]
	}
	for i := range e.Rate {
		e.Rate[i] *= s.Rate * float64(s.Clients) / sum
	}
	// The fail-fast backends and the event's: a shuffle of the backends, the first ones fail
	// fast, the next ones are stopped.
	engine.Seed(&src, s.Seed, engine.Choices, 1<<32+1, 0)
	perm := make([]int32, s.Backends)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := len(perm) - 1; i > 0; i-- {
		j := int(src.Uint64() % uint64(i+1))
		perm[i], perm[j] = perm[j], perm[i]
	}
	e.Failing = make([]bool, s.Backends)
	for _, b := range perm[:s.Failing] {
		e.Failing[b] = true
	}
	if s.Event != "none" {
		e.Affected = perm[s.Failing : s.Failing+eventBackends(s.EventShare, s.Backends)]
	}
	return e
}

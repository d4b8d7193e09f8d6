package retrystorm

import (
	"fmt"
	"math"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/algorithms/retry"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// policyOptions are the retry policies the lab compares, in canonical order, each with what
// it makes for one client at one layer (see newPolicy). Only the budget's ratio and floor are
// the scenario's; every other policy runs with its project's documented defaults.
var policyOptions = lab.Options[policyMaker]{
	{Name: "none", Label: "No retries", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.None{} }}},
	{Name: "retries", Label: "N retries", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.Retries{} }}},
	{Name: "adaptive", Label: "Retry token bucket", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.DefaultAdaptive() }}},
	{Name: "grpc", Label: "gRPC throttling", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.DefaultGRPC() }}},
	{Name: "aws", Label: "AWS SDK quota", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.DefaultAWS() }}},
	{Name: "budget", Label: "Retry budget", New: policyMaker{new: func(s scenario, _ *engine.Source) retry.Policy {
		return retry.NewBudget(retry.DefaultBudgetTTL, s.BudgetFloor, s.BudgetRatio)
	}}},
	{Name: "breaker", Label: "Retry breaker", New: policyMaker{new: func(scenario, *engine.Source) retry.Policy { return retry.DefaultBreaker() }}},
	{Name: "circuit", Label: "Circuit breaker", New: policyMaker{atSend: true, new: func(scenario, *engine.Source) retry.Policy { return retry.DefaultCircuit() }}},
	{Name: "throttle", Label: "Client-side throttling", New: policyMaker{atSend: true, new: func(_ scenario, src *engine.Source) retry.Policy {
		return retry.DefaultThrottle(src)
	}}},
}

// policyMaker makes a policy's state for one client at one layer from the scenario and the
// client's stream of draws for its policy (only throttling draws). atSend says when the policy
// decides on a retry: when it is due, after the backoff sleep (the breakers that watch the
// calls as they go), rather than as the attempt before it fails (the token buckets and
// budgets, as their sources do).
type policyMaker struct {
	new    func(s scenario, src *engine.Source) retry.Policy
	atSend bool
}

// Policies are the names of the retry policies, in canonical order.
var Policies = policyOptions.Names()

// backoffOptions are the backoff policies of the sleep before a retry (those of the backoff
// lab), each made from the scenario's base and cap.
var backoffOptions = lab.Options[func(base, cap time.Duration) backoff.Policy]{
	{Name: "none", Label: "No backoff", New: func(_, _ time.Duration) backoff.Policy { return backoff.None{} }},
	{Name: "constant", Label: "Constant", New: func(base, _ time.Duration) backoff.Policy { return backoff.Constant{Delay: base} }},
	{Name: "linear", Label: "Linear", New: func(base, cap time.Duration) backoff.Policy { return backoff.Linear{Base: base, Cap: cap} }},
	{Name: "exponential", Label: "Exponential", New: func(base, cap time.Duration) backoff.Policy {
		return backoff.Exponential{Base: base, Cap: cap}
	}},
	{Name: "full", Label: "Full jitter", New: func(base, cap time.Duration) backoff.Policy { return backoff.FullJitter{Base: base, Cap: cap} }},
	{Name: "equal", Label: "Equal jitter", New: func(base, cap time.Duration) backoff.Policy { return backoff.EqualJitter{Base: base, Cap: cap} }},
	{Name: "decorrelated", Label: "Decorrelated jitter", New: func(base, cap time.Duration) backoff.Policy {
		return backoff.Decorrelated{Base: base, Cap: cap}
	}},
}

var triggerOptions = lab.Options[struct{}]{
	{Name: "none", Label: "None"},
	{Name: "outage", Label: "Outage"},
	{Name: "capacity", Label: "Capacity drop"},
	{Name: "spike", Label: "Load spike"},
}

var serviceOptions = lab.Options[struct{}]{
	{Name: "queue", Label: "Queue, fixed workers"},
	{Name: "concurrency", Label: "Slower with concurrency (Brooker)"},
}

var shedOptions = lab.Options[struct{}]{
	{Name: "none", Label: "None"},
	{Name: "deadline", Label: "Past the caller's deadline"},
	{Name: "limit", Label: "Over a queue limit"},
}

var (
	whenTrigger  = &param.When{Param: "trigger", Values: []string{"outage", "capacity", "spike"}}
	whenOutage   = &param.When{Param: "trigger", Values: []string{"outage"}}
	whenCapacity = &param.When{Param: "trigger", Values: []string{"capacity"}}
	whenSpike    = &param.When{Param: "trigger", Values: []string{"spike"}}
	whenBudget   = &param.When{Param: "policies", Values: []string{"budget"}}
	whenLimit    = &param.When{Param: "shed", Values: []string{"limit"}}
	whenSleep    = &param.When{Param: "backoff", Values: []string{"constant", "linear", "exponential", "full", "equal", "decorrelated"}}
)

// Params declares the lab's parameters.
var Params = param.Set{
	{Name: "policies", Label: "Policies", Kind: param.EnumList, Options: Policies, OptionLabels: policyOptions.Labels(),
		Default: "none,retries,adaptive,budget,circuit",
		Help: "Retry policies to compare, each with its source's defaults; each sees the same arrivals, network and service, attempt by attempt. " +
			"Retry token bucket and retry breaker: Marc Brooker's, from “Fixing retries with token buckets and circuit breakers”: each request adds 0.1 token to a bucket of 5 and a retry takes 1 while more than 1 is left; " +
			"the breaker allows no retry while failed attempts exceed a tenth of the requests. " +
			"gRPC throttling: the example of gRFC A6, “gRPC Retry Design”: 10 tokens, a failure takes 1, a success gives back 0.1, no retry at half or less. " +
			"AWS SDK quota: the AWS SDKs' standard retry mode: 500 tokens, a retry takes 5 (10 after a timeout), a success gives back 1. " +
			"Retry budget: Finagle's and Linkerd's, with the Budget ratio and floor. " +
			"Circuit breaker: resilience4j's: opens at 50% failures of the last 100 calls, then refuses every call for 60 s. " +
			"Client-side throttling: from the SRE book, Google's “Site Reliability Engineering”: refuses requests locally as they outnumber twice the accepted ones over two minutes."},
	{Name: "retries", Label: "Retries N", Kind: param.Int, Default: "3", Min: 0, Max: 10, Step: 1,
		Help: "Most retries per request, under every policy but No retries; the budgets and breakers may allow fewer."},
	{Name: "trigger", Label: "Trigger", Kind: param.Enum, Options: triggerOptions.Names(), OptionLabels: triggerOptions.Labels(), Default: "outage",
		Help: "What goes wrong for a while: an outage (the service fails a share of its calls, whatever its load), a capacity drop, or a load spike."},
	{Name: "failure", Label: "Failure share", Kind: param.Float, Default: "1", Min: 0, Max: 1, Step: 0.01, Applies: whenOutage,
		Help: "Share of the calls the outage fails; a failing call still takes the service's time (its dependency fails it late)."},
	{Name: "degraded", Label: "Capacity left", Kind: param.Float, Default: "0.5", Min: 0.05, Max: 1, Step: 0.01, Applies: whenCapacity,
		Help: "The service's capacity during the drop, as a share of its normal capacity."},
	{Name: "spike", Label: "Spike", Kind: param.Float, Default: "2", Min: 1, Max: 10, Step: 0.1, Unit: "×", Applies: whenSpike,
		Help: "The request rate during the spike, as a multiple of the normal rate."},
	{Name: "trigger_start", Label: "Trigger starts", Kind: param.Duration, Default: "10s", Min: 0, Max: 299900, Step: 100, Unit: "ms", Applies: whenTrigger,
		Help: "When the trigger begins, from the start of the run."},
	{Name: "trigger_length", Label: "Trigger lasts", Kind: param.Duration, Default: "10s", Min: 100, Max: 600000, Step: 100, Unit: "ms", Applies: whenTrigger,
		Help: "How long the trigger lasts."},
	{Name: "clients", Label: "Clients", Kind: param.Int, Default: "10", Min: 1, Max: 1000, Step: 1, Log: true,
		Help: "Clients sharing the request rate, each with a policy of its own (its own bucket, budget or breaker)."},
	{Name: "rate", Label: "Request rate", Kind: param.Float, Default: "600", Min: 0.1, Max: 2000, Step: 0.1, Unit: "/s", Log: true,
		Help: "New requests a second from all the clients together (Poisson arrivals), retries not counted."},
	{Name: "capacity", Label: "Capacity", Kind: param.Float, Default: "1000", Min: 1, Max: 100000, Step: 1, Unit: "/s", Log: true,
		Help: "Calls a second the service completes at most."},
	{Name: "timeout", Label: "Timeout", Kind: param.Duration, Default: "1s", Min: 1, Max: 60000, Step: 1, Unit: "ms", Log: true,
		Help: "How long a caller waits for an answer before it counts the attempt as failed; the service still works on the call."},
	{Name: "backoff", Label: "Backoff", Kind: param.Enum, Options: backoffOptions.Names(), OptionLabels: backoffOptions.Labels(), Default: "full",
		Help: "The sleep before a retry, as in the backoff lab: exponential is min(cap, base·2^n) before retry n, full jitter a uniform draw below it."},
	{Name: "base", Label: "Backoff base", Kind: param.Duration, Default: "100ms", Min: 0.1, Max: 60000, Step: 0.1, Unit: "ms", Log: true, Applies: whenSleep,
		Help: "The base of the backoff sleep."},
	{Name: "cap", Label: "Backoff cap", Kind: param.Duration, Default: "10s", Min: 1, Max: 3600000, Step: 1, Unit: "ms", Log: true, Applies: whenSleep,
		Help: "The longest backoff sleep: at least the base."},
	{Name: "layers", Group: "Advanced", Label: "Layers", Kind: param.Int, Default: "1", Min: 1, Max: 3, Step: 1,
		Help: "Tiers between a client and the service, each retrying its own calls with the same policy: 1 is a client calling the service, 3 a client calling a tier calling a tier calling the service."},
	{Name: "service", Group: "Advanced", Label: "Service model", Kind: param.Enum, Options: serviceOptions.Names(), OptionLabels: serviceOptions.Labels(), Default: "queue",
		Help: "A queue served in order by capacity × service time workers, each call taking an exponential service time; or Marc Brooker's model, where a call's latency is the service time plus the calls in flight divided by the capacity (0.01 s per call in flight at 100/s)."},
	{Name: "service_time", Group: "Advanced", Label: "Service time", Kind: param.Duration, Default: "100ms", Min: 0, Max: 10000, Step: 1, Unit: "ms",
		Help: "Mean time a worker spends on a call (queue), or the latency of an idle service (Brooker's model)."},
	{Name: "network", Group: "Advanced", Label: "Network delay", Kind: param.Duration, Default: "10ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Help: "Mean one-way network delay between tiers (exponential)."},
	{Name: "shed", Group: "Advanced", Label: "Load shedding", Kind: param.Enum, Options: shedOptions.Names(), OptionLabels: shedOptions.Labels(), Default: "none",
		Help: "Whether the service refuses work at once: calls whose caller has already given up (it knows their deadline), or calls that find the queue over a limit."},
	{Name: "queue_limit", Group: "Advanced", Label: "Queue limit", Kind: param.Int, Default: "1000", Min: 1, Max: 100000, Step: 1, Log: true, Applies: whenLimit,
		Help: "Calls at the service (waiting or in service) beyond which it refuses new ones."},
	{Name: "budget_ratio", Group: "Advanced", Label: "Budget ratio", Kind: param.Float, Default: "0.2", Min: 0, Max: 1, Step: 0.01, Applies: whenBudget,
		Help: "The retry budget's share: a client's retries may be this share of its requests of the last 10 s, plus the floor. " +
			"Finagle's RetryBudget and Linkerd allow 20%, Envoy's retry budget 20% of the requests in flight; Google's “Site Reliability Engineering” keeps a client's retries below 10% of its requests."},
	{Name: "budget_floor", Group: "Advanced", Label: "Budget floor", Kind: param.Int, Default: "10", Min: 0, Max: 1000, Step: 1, Unit: "/s", Applies: whenBudget,
		Help: "Retries a second each client may make whatever its requests (Finagle's RetryBudget and Linkerd: 10)."},
	{Name: "duration", Group: "Advanced", Label: "Duration", Kind: param.Duration, Default: "1m", Min: 1000, Max: 300000, Step: 1000, Unit: "ms",
		Help: "Simulated time during which requests arrive; every request then runs to its end."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
	{Name: "sweep", Group: "Advanced", Label: "Sweep of failure", Kind: param.IntRange, Default: "off", Min: 0, Max: 100, MaxLen: 21, On: "0:100:10",
		Help: "Failure shares, in %, for the amplification-vs-failure charts, from:to:step, or off. Each point runs this scenario with an outage that fails that share of the calls over the trigger's window."},
	{Name: "client_sweep", Group: "Advanced", Label: "Sweep of clients", Kind: param.IntRange, Default: "off", Min: 1, Max: 1000, MaxLen: 12, On: "10:1000:90",
		Help: "Client counts, at the same total rate, for the amplification-vs-clients charts, from:to:step (10:1000:90 is 10, 100, 190, … 1,000), or off."},
}

// check enforces the rules across the lab's parameters (see lab.Lab.Check).
func check(v param.Values) error {
	if v.String("backoff") != "none" {
		if base, c := v.Duration("base"), v.Duration("cap"); c < base {
			return lab.Relation(fmt.Sprintf("cap must be at least base (%s), got %s", param.FormatDuration(base), param.FormatDuration(c)), "cap", "base")
		}
	}
	if v.String("trigger") != "none" {
		if start, d := v.Duration("trigger_start"), v.Duration("duration"); start >= d {
			return lab.Relation(fmt.Sprintf("trigger_start must be before the end of the run (duration %s), got %s",
				param.FormatDuration(d), param.FormatDuration(start)), "trigger_start", "duration")
		}
	}
	if v.String("service") == "queue" {
		if c, st := v.Float("capacity"), v.Duration("service_time"); st > 0 && c*st.Seconds() < 0.5 {
			return lab.Relation(fmt.Sprintf("capacity × service_time must be at least 0.5 (one worker) with the queue model, got %g/s × %s = %.3g",
				c, param.FormatDuration(st), c*st.Seconds()), "service_time", "capacity", "service")
		}
	}
	return nil
}

// scenario is the typed form of the parameters.
type scenario struct {
	Policies      []string
	Retries       int
	Trigger       string
	Failure       float64
	Degraded      float64
	Spike         float64
	TriggerStart  time.Duration
	TriggerLength time.Duration
	Clients       int
	Rate          float64
	Capacity      float64
	Timeout       time.Duration
	Backoff       string
	Base, Cap     time.Duration
	Layers        int
	Service       string
	ServiceTime   time.Duration
	Network       time.Duration
	Shed          string
	QueueLimit    int
	BudgetRatio   float64
	BudgetFloor   int
	Duration      time.Duration
	Seed          uint64
	Sweep         []int64 // failure shares of the sweep, in %
	ClientSweep   []int64 // client counts of the client sweep
}

// scenarioOf returns the typed scenario of v, which keeps the lab's rules.
func scenarioOf(v param.Values) scenario {
	return scenario{
		Policies:      v.List("policies"),
		Retries:       int(v.Int("retries")),
		Trigger:       v.String("trigger"),
		Failure:       v.Float("failure"),
		Degraded:      v.Float("degraded"),
		Spike:         v.Float("spike"),
		TriggerStart:  v.Duration("trigger_start"),
		TriggerLength: v.Duration("trigger_length"),
		Clients:       int(v.Int("clients")),
		Rate:          v.Float("rate"),
		Capacity:      v.Float("capacity"),
		Timeout:       v.Duration("timeout"),
		Backoff:       v.String("backoff"),
		Base:          v.Duration("base"),
		Cap:           v.Duration("cap"),
		Layers:        int(v.Int("layers")),
		Service:       v.String("service"),
		ServiceTime:   v.Duration("service_time"),
		Network:       v.Duration("network"),
		Shed:          v.String("shed"),
		QueueLimit:    int(v.Int("queue_limit")),
		BudgetRatio:   v.Float("budget_ratio"),
		BudgetFloor:   int(v.Int("budget_floor")),
		Duration:      v.Duration("duration"),
		Seed:          uint64(v.Int("seed")),
		Sweep:         v.Range("sweep").Points(),
		ClientSweep:   v.Range("client_sweep").Points(),
	}
}

// environment is what every policy's world of a scenario shares: the scenario's numbers in the
// form the simulation uses.
type environment struct {
	scenario
	Workers      int           // the queue model's workers
	MeanService  time.Duration // their mean service time: Workers / Capacity
	TriggerEnd   time.Duration
	Sample       time.Duration // the sampling interval
	samples      int
	backoff      backoff.Prepared
	clientRate   float64 // requests a second of one client, normally
	triggerStart time.Duration
}

// env returns the environment of scenario s.
func (s scenario) env() *environment {
	e := &environment{scenario: s, Sample: sampleEvery(s.Duration)}
	e.samples = int((s.Duration + e.Sample - 1) / e.Sample)
	e.TriggerEnd = s.TriggerStart + s.TriggerLength
	if s.Trigger == "none" {
		e.TriggerStart, e.TriggerEnd = s.Duration, s.Duration
	}
	e.triggerStart = e.TriggerStart
	e.clientRate = s.Rate / float64(s.Clients)
	if s.Service == "queue" {
		e.Workers = max(1, int(math.Round(s.Capacity*s.ServiceTime.Seconds())))
		e.MeanService = time.Duration(float64(e.Workers) / s.Capacity * 1e9)
		if s.ServiceTime == 0 {
			e.MeanService = 0
		}
		e.ServiceTime = e.MeanService
	}
	e.backoff.Reset(backoffOptions.Make(s.Backoff)(s.Base, s.Cap))
	return e
}

// sampleSteps are the sampling intervals a run may use: the shortest that gives at most
// maxSamples.
var sampleSteps = []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second}

// maxSamples is the most sampling intervals a run has.
const maxSamples = 120

func sampleEvery(d time.Duration) time.Duration {
	for _, s := range sampleSteps {
		if d <= maxSamples*s {
			return s
		}
	}
	return sampleSteps[len(sampleSteps)-1]
}

// Samples returns the number of sampling intervals.
func (e *environment) Samples() int { return e.samples }

// SampleEnd returns the end of sampling interval k.
func (e *environment) SampleEnd(k int) time.Duration {
	return min(time.Duration(k+1)*e.Sample, e.Duration)
}

// inTrigger reports whether t is within the trigger's window.
func (e *environment) inTrigger(t time.Duration) bool { return t >= e.TriggerStart && t < e.TriggerEnd }

// inOutage reports whether the outage fails calls at t.
func (e *environment) inOutage(t time.Duration) bool { return e.Trigger == "outage" && e.inTrigger(t) }

// capacityFactor is the share of its capacity the service has at t.
func (e *environment) capacityFactor(t time.Duration) float64 {
	if e.Trigger == "capacity" && e.inTrigger(t) {
		return e.Degraded
	}
	return 1
}

// capacityAt is the service's capacity at t, in calls a second.
func (e *environment) capacityAt(t time.Duration) float64 { return e.Capacity * e.capacityFactor(t) }

// rateAt returns one client's request rate at t and the time until which it holds.
func (e *environment) rateAt(t time.Duration) (float64, time.Duration) {
	if e.Trigger != "spike" {
		return e.clientRate, e.Duration
	}
	switch {
	case t < e.TriggerStart:
		return e.clientRate, e.TriggerStart
	case t < e.TriggerEnd:
		return e.clientRate * e.Spike, e.TriggerEnd
	}
	return e.clientRate, e.Duration
}

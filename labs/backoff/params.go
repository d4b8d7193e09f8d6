package backoff

import (
	"fmt"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// strategyOptions are the retry policies the lab compares, in canonical order, each with the
// policy it makes from the scenario's base, cap and multiplier.
var strategyOptions = lab.Options[func(base, cap time.Duration, multiplier float64) backoff.Policy]{
	{Name: "none", Label: "No backoff", New: func(_, _ time.Duration, _ float64) backoff.Policy { return backoff.None{} }},
	{Name: "constant", Label: "Constant", New: func(base, _ time.Duration, _ float64) backoff.Policy { return backoff.Constant{Delay: base} }},
	{Name: "linear", Label: "Linear", New: func(base, cap time.Duration, _ float64) backoff.Policy { return backoff.Linear{Base: base, Cap: cap} }},
	{Name: "exponential", Label: "Exponential", New: func(base, cap time.Duration, m float64) backoff.Policy {
		return backoff.Exponential{Base: base, Cap: cap, Multiplier: m}
	}},
	{Name: "full", Label: "Full jitter", New: func(base, cap time.Duration, m float64) backoff.Policy {
		return backoff.FullJitter{Base: base, Cap: cap, Multiplier: m}
	}},
	{Name: "equal", Label: "Equal jitter", New: func(base, cap time.Duration, m float64) backoff.Policy {
		return backoff.EqualJitter{Base: base, Cap: cap, Multiplier: m}
	}},
	{Name: "decorrelated", Label: "Decorrelated jitter", New: func(base, cap time.Duration, _ float64) backoff.Policy {
		return backoff.Decorrelated{Base: base, Cap: cap}
	}},
}

// Strategies are the names of the retry policies the lab compares, in canonical order.
var Strategies = strategyOptions.Names()

// baseline is the strategy the summary table compares against.
const baseline = "exponential"

// Params declares the lab's parameters.
var Params = param.Set{
	{Name: "strategies", Label: "Strategies", Kind: param.EnumList, Options: Strategies, OptionLabels: strategyOptions.Labels(),
		Default: "none,exponential,full,equal,decorrelated",
		Help:    "Retry policies to compare; each sees the same network in every trial."},
	{Name: "clients", Label: "Clients", Kind: param.Int, Default: "100", Min: 1, Max: 1000, Step: 1,
		Help: "How many clients race to write the row (N)."},
	{Name: "base", Label: "Base a", Kind: param.Duration, Default: "5ms", Min: 0.1, Max: 60000, Step: 0.1, Unit: "ms", Log: true,
		Help: "The a of min(cap, a·r^attempt). The simulated strategies count as Brooker's simulator does: the first retry is attempt 1, so exponential backoff first sleeps a·r and full and equal jitter up to a·r (decorrelated between a and 3a, constant and linear a). The retry schedule counts as the Qiita post does: its retry 1 sleeps a."},
	{Name: "cap", Label: "Cap", Kind: param.Duration, Default: "2s", Min: 1, Max: 86400000, Step: 1, Unit: "ms", Log: true,
		Help: "Longest sleep: at least the base."},
	{Name: "multiplier", Group: "Advanced", Label: "Multiplier r", Kind: param.Float, Default: "2", Min: 1, Max: 10, Step: 0.05,
		Help: "Growth per retry; the next sleep is about (r−1)·elapsed time."},
	{Name: "latency_mean", Group: "Advanced", Label: "Latency mean", Kind: param.Duration, Default: "10ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Help: "Mean one-way network delay."},
	{Name: "latency_sd", Group: "Advanced", Label: "Latency sd", Kind: param.Duration, Default: "2ms", Min: 0, Max: 1000, Step: 0.1, Unit: "ms",
		Help: "Standard deviation of the one-way delay: 2 ms by default, as in Marc Brooker's simulator for “Exponential Backoff and Jitter”, whose post calls it a variance of 4ms."},
	{Name: "trials", Group: "Advanced", Label: "Trials", Kind: param.Int, Default: "100", Min: 1, Max: 1000, Step: 1,
		Help: "Simulations averaged per point."},
	{Name: "seed", Group: "Advanced", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true,
		Help: "All randomness comes from the seed: the same seed gives the same numbers."},
	{Name: "sweep", Group: "Advanced", Label: "Sweep of clients", Kind: param.IntRange, Default: "10:190:10", Min: 1, Max: 1000, MaxLen: 100, On: "10:190:10",
		Help: "Client counts for the work and completion charts, from:to:step, or off."},
	{Name: "retries", Group: "Advanced", Label: "Schedule length", Kind: param.Int, Default: "12", Min: 1, Max: 200, Step: 1,
		Help: "Retries shown in the retry schedule."},
}

// check enforces the rule across the lab's parameters (see lab.Lab.Check): the longest sleep
// is no shorter than the base every sleep grows from.
func check(v param.Values) error {
	if base, c := v.Duration("base"), v.Duration("cap"); c < base {
		return lab.Relation(fmt.Sprintf("cap must be at least base (%s), got %s", param.FormatDuration(base), param.FormatDuration(c)), "cap", "base")
	}
	return nil
}

// scenario is the typed form of the parameters.
type scenario struct {
	v          param.Values // the scenario itself, for memo keys
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
		v:          v,
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
	return strategyOptions.Make(name)(base, cap, multiplier)
}

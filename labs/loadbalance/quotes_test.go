package loadbalance

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// Measures for the quotes.
func conns(f func(connStatsRow) int) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return fmt.Sprint(f(connSummary(tb, r))) }
}

func policy(name string, f func(policySummary) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return f(policies(tb, r)[name]) }
}

func failFast(p policySummary) string { return labtest.Thousands(p.FailFast) }

// threeFailFast returns what least-loaded, round robin and weighted round robin send a
// fail-fast backend, as the failing help writes them.
func threeFailFast(tb testing.TB, r *lab.Result) string {
	ps := policies(tb, r)
	return fmt.Sprintf("%s, %s and %s", failFast(ps["least_loaded"]), failFast(ps["round_robin"]), failFast(ps["weighted"]))
}

func maxOverMin(p policySummary) string { return fmt.Sprintf("%.2f", p.MaxOverMin) }

// quotes are the figures the lab's texts state, each with the scenario that measures it.
var quotes = []labtest.Quote{
	{In: "predict:subsetting/1", Says: "300 clients each pick 90 of 300 backends", Why: "the scenario's sizes"},
	{In: "explain:subsetting/1", Says: "the first 90", Why: "the scenario's subset size"},
	{In: "explain:subsetting/1", Says: "from 66", Measure: conns(func(c connStatsRow) int { return c.Min })},
	{In: "explain:subsetting/1", Says: "to 116", Measure: conns(func(c connStatsRow) int { return c.Max })},
	{In: "explain:subsetting/1", Says: "a mean of 90", Measure: conns(func(c connStatsRow) int { return int(c.Mean) })},
	{In: "tour:subsetting/2", Says: "(30 of 300)", Why: "the scenario's sizes"},
	{In: "tour:subsetting/2", Says: "from 14", Measure: conns(func(c connStatsRow) int { return c.Min })},
	{In: "tour:subsetting/2", Says: "to 46", Measure: conns(func(c connStatsRow) int { return c.Max })},
	{In: "tour:subsetting/2", Says: "a mean of 30", Measure: conns(func(c connStatsRow) int { return int(c.Mean) })},
	{In: "tour:subsetting/2", Says: "half again the mean's connections", Measure: func(tb testing.TB, r *lab.Result) string {
		if c := connSummary(tb, r); float64(c.Max)/c.Mean < 1.45 || float64(c.Max)/c.Mean > 1.55 {
			return fmt.Sprintf("%.2f× the mean", float64(c.Max)/c.Mean)
		}
		return "half again"
	}},
	{In: "tour:subsetting/2", Says: "others half of it", Measure: func(tb testing.TB, r *lab.Result) string {
		if c := connSummary(tb, r); float64(c.Min)/c.Mean < 0.45 || float64(c.Min)/c.Mean > 0.55 {
			return fmt.Sprintf("%.2f× the mean", float64(c.Min)/c.Mean)
		}
		return "half"
	}},
	{In: "tour:subsetting/3", Says: "exactly 30", Measure: conns(func(c connStatsRow) int {
		if c.Min != c.Max {
			return -1
		}
		return c.Max
	})},
	{In: "tour:subsetting/4", Says: "Twelve backends, subsets of three, ten clients", Why: "the chapter's example: the scenario's sizes"},
	{In: "tour:subsetting/4", Says: "2 or 3", Measure: func(tb testing.TB, r *lab.Result) string {
		c := connSummary(tb, r)
		return fmt.Sprintf("%d or %d", c.Min, c.Max)
	}},
	{In: "explain:policies/1", Says: "2.80 times as hard", Measure: policy("round_robin", maxOverMin)},
	{In: "explain:policies/1", Says: "(the chapter saw up to twice)", Why: "the chapter's own figure"},
	{In: "explain:policies/1", Says: "40.3% of the CPU", Measure: policy("round_robin", func(p policySummary) string { return fmt.Sprintf("%.1f", p.WastedCPUPct) })},
	{In: "tour:policies/2", Says: "round robin's 2.80×", Scenario: policyScenario + "&policy=round_robin", Measure: policy("round_robin", maxOverMin)},
	{In: "tour:policies/2", Says: "least-loaded to 1.80×", Measure: policy("least_loaded", maxOverMin)},
	{In: "tour:policies/2", Says: "to 1.35×", Measure: policy("weighted", maxOverMin)},
	{In: "explain:policies/3", Says: "sends it 559 requests", Measure: policy("least_loaded", failFast)},
	{In: "explain:policies/3", Says: "sends 303", Measure: policy("round_robin", failFast)},
	{In: "explain:policies/3", Says: "sends it 45", Measure: policy("weighted", failFast)},
	{In: "explain:policies/3", Says: "least-loaded sends it 124", Scenario: failFastScenario + "&count_errors=true", Measure: policy("least_loaded", failFast)},
	{In: "explain:policies/3", Says: "about 4 requests in flight", Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "explain:policies/3", Says: "subsets of 5", Why: "the scenario's subset size"},
	{In: "explain:policies/3", Says: "default subsets of 30", Why: "the default subset size"},
	{In: "tour:policies/4", Says: "A fifth of the backends are stopped a third of the way in", Why: "the scenario's event_share (0.2) and the event's time (a third of the duration)"},
	{In: "tour:policies/4", Says: "71 under round robin", Scenario: "clients=100&backends=100&subset=10&subsetting=deterministic&duration=40s&event=abrupt_stop&event_share=0.2",
		Measure: policy("round_robin", func(p policySummary) string { return fmt.Sprint(p.Errors) })},

	{In: "help:rate", Says: "10/s loads the default service to about 50%", Measure: func(tb testing.TB, r *lab.Result) string {
		return fmt.Sprintf("about %.0f%%", r.Summary["load_pct"].(float64))
	}},
	{In: "help:failing", Says: "(about 4 requests in flight per client)", Scenario: failFastScenario, Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "help:failing", Says: "least-loaded sends it 559 requests", Scenario: failFastScenario, Measure: policy("least_loaded", failFast)},
	{In: "help:failing", Says: "round robin sends 303", Scenario: failFastScenario, Measure: policy("round_robin", failFast)},
	{In: "help:failing", Says: "reports against it, 45;", Scenario: failFastScenario, Measure: policy("weighted", failFast)},
	{In: "help:failing", Says: "with random subsetting instead, 708, 354 and 53", Scenario: strings.Replace(failFastScenario, "&subsetting=deterministic", "", 1), Measure: threeFailFast},
	{In: "help:failing", Says: "the same 4 requests in flight", Scenario: "failing=1", Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "help:failing", Says: "least-loaded sends it 609 requests, round robin 608 and weighted round robin 75", Scenario: "failing=1", Measure: func(tb testing.TB, r *lab.Result) string {
		ps := policies(tb, r)
		return fmt.Sprintf("least-loaded sends it %s requests, round robin %s and weighted round robin %s", failFast(ps["least_loaded"]), failFast(ps["round_robin"]), failFast(ps["weighted"]))
	}},
	{In: "chart:load_p99", Says: "round robin and random already fail 0.11% and 0.09% of the requests at 70%", Scenario: loadSheds, Measure: loadErrors(70, "round_robin", "random")},
	{In: "chart:load_p99", Says: "0.81% and 0.83% at 80%", Scenario: loadSheds, Measure: loadErrors(80, "round_robin", "random")},
	{In: "chart:load_p99", Says: "weighted round robin 0.06% at 80%", Scenario: loadSheds, Measure: loadErrors(80, "weighted")},
	{In: "chart:load_p99", Says: "least-loaded and two choices fail under 0.01% up to 100%", Scenario: loadSheds, Measure: func(tb testing.TB, r *lab.Result) string {
		for _, p := range []string{"least_loaded", "p2c"} {
			for _, pt := range r.Summary["load_sweep"].(map[string][]loadPoint)[p] {
				if pt.LoadPct <= 100 && pt.ErrorPct >= 0.01 {
					return fmt.Sprintf("%s fails %.2f%% at %.0f%%", p, pt.ErrorPct, pt.LoadPct)
				}
			}
		}
		return "under 0.01% up to 100%"
	}},
	{In: "chart:load_p99", Says: "(3.96% and 4.34% at 110%)", Scenario: loadSheds, Measure: loadErrors(110, "least_loaded", "p2c")},
}

// loadSheds is the scenario of the load sweep's figures on shedding: the defaults with every
// policy, swept from 70% to 110% of capacity.
const loadSheds = "policy=round_robin,least_loaded,weighted,random,p2c&load_sweep=70:110:10"

// loadErrors returns the load sweep's error shares of the policies at load pct, as the load
// chart's help writes them: "0.11% and 0.09%".
func loadErrors(pct float64, policies ...string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		var out []string
		for _, p := range policies {
			for _, pt := range r.Summary["load_sweep"].(map[string][]loadPoint)[p] {
				if pt.LoadPct == pct {
					out = append(out, fmt.Sprintf("%.2f%%", pt.ErrorPct))
				}
			}
		}
		return strings.Join(out, " and ")
	}
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	t.Parallel() // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), append(append(quotes, sweepQuotes...), answerQuotes...))
}

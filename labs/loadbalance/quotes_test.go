package loadbalance

import (
	"fmt"
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

func failFast(p policySummary) string   { return labtest.Thousands(p.FailFast) }
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
	{In: "help:failing", Says: "559 requests in 30 s", Scenario: failFastScenario, Measure: policy("least_loaded", failFast)},
	{In: "help:failing", Says: "round robin sends 303", Scenario: failFastScenario, Measure: policy("round_robin", failFast)},
	{In: "help:failing", Says: "the same 4 requests in flight", Scenario: "failing=1", Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "help:failing", Says: "(609 vs 608 in a minute)", Scenario: "failing=1", Measure: func(tb testing.TB, r *lab.Result) string {
		ps := policies(tb, r)
		return fmt.Sprintf("%d vs %d", ps["least_loaded"].FailFast, ps["round_robin"].FailFast)
	}},
	{In: "help:failing", Says: "(45 and 75)", Scenario: failFastScenario, Measure: policy("weighted", failFast)},
	{In: "help:failing", Says: "(45 and 75)", Scenario: "failing=1", Measure: policy("weighted", failFast)},
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), append(append(quotes, sweepQuotes...), answerQuotes...))
}

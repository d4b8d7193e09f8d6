package backoff

import (
	"fmt"
	"math"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// strategy returns a measure of one strategy's summary at the chosen N.
func strategy(name string, f func(StrategySummary) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		m, ok := r.Summary["strategies"].(map[string]StrategySummary)
		if !ok {
			tb.Fatalf("summary.strategies is %T", r.Summary["strategies"])
		}
		return f(m[name])
	}
}

func writes(s StrategySummary) string { return labtest.Thousands(int64(math.Round(s.Writes))) }

// seconds writes a strategy's completion time as the page's table does.
func seconds(s StrategySummary) string { return lab.FormatDuration(s.CompletionMS) }
func fewer(s StrategySummary) string   { return fmt.Sprintf("%.0f%%", -s.WritesChangePct) }

// quotes are the figures the lab's texts state, each with the scenario that measures it.
var quotes = []labtest.Quote{
	{In: "explain:jitter/1", Says: "the same doubling schedule", Why: "the default multiplier, 2"},
	{In: "tour:jitter/2", Says: "falls by 57%", Measure: strategy("full", fewer)},
	{In: "tour:jitter/2", Says: "795 writes", Measure: strategy("full", writes)},
	{In: "tour:jitter/2", Says: "backoff's 1,855", Measure: strategy("exponential", writes)},
	{In: "explain:jitter/3", Says: "(795 and", Measure: strategy("full", writes)},
	{In: "explain:jitter/3", Says: "and 811 writes at 100 clients)", Measure: strategy("equal", writes)},
	{In: "explain:jitter/3", Says: "(1,004)", Measure: strategy("decorrelated", writes)},
	{In: "explain:jitter/3", Says: "backoff 1,855", Measure: strategy("exponential", writes)},
	{In: "explain:jitter/3", Says: "no backoff 2,421", Measure: strategy("none", writes)},
	{In: "tour:jitter/4", Says: "the longest, 63.3 s", Measure: strategy("exponential", seconds)},
	{In: "tour:jitter/4", Says: "(6.71 s)", Measure: strategy("equal", seconds)},
	{In: "tour:jitter/4", Says: "(4.84 s)", Measure: strategy("full", seconds)},
	{In: "tour:jitter/4", Says: "(4.52 s)", Measure: strategy("decorrelated", seconds)},
	{In: "tour:jitter/5", Says: "five times as many clients", Why: "500 clients against the default 100"},
	{In: "tour:jitter/5", Says: "74% fewer", Scenario: "strategies=exponential,full&clients=500&sweep=off", Measure: strategy("full", fewer)},
	{In: "tour:jitter/5", Says: "(6,277 against", Scenario: "strategies=exponential,full&clients=500&sweep=off", Measure: strategy("full", writes)},
	{In: "tour:jitter/5", Says: "against 24,391)", Scenario: "strategies=exponential,full&clients=500&sweep=off", Measure: strategy("exponential", writes)},
	{In: "tour:jitter/5", Says: "57% fewer at 100 clients", Scenario: "strategies=exponential,full&sweep=off", Measure: strategy("full", fewer)},
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), append(quotes, answerQuotes...))
}

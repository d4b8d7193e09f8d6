package backoff

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// pointAt returns a measure of a strategy's point at the given clients on chart "work" or
// "completion" — what the chart's readout shows there —, written by f.
func pointAt(chart, name string, clients float64, f func(float64) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		for _, s := range r.Series {
			if s.Name == chart+" "+name {
				if i := slices.Index(s.X, clients); i >= 0 {
					return f(s.Y[i])
				}
			}
		}
		return fmt.Sprintf("no point of %s %s at %g clients", chart, name, clients)
	}
}

// work writes a point of the work chart as the texts do; ms, of the completion chart.
func work(y float64) string { return labtest.Thousands(int64(math.Round(y))) }
func ms(y float64) string   { return lab.FormatDuration(y) }

// quotes are the figures the lab's texts state, each with the scenario that measures it.
var quotes = []labtest.Quote{
	{In: "explain:jitter/1", Says: "the same doubling schedule", Why: "the default multiplier, 2"},
	{In: "explain:jitter/3", Says: "(795 and", Measure: pointAt("work", "full", 100, work), Shown: "work"},
	{In: "explain:jitter/3", Says: "and 811 writes at 100 clients)", Measure: pointAt("work", "equal", 100, work), Shown: "work"},
	{In: "explain:jitter/3", Says: "(1,004)", Measure: pointAt("work", "decorrelated", 100, work), Shown: "work"},
	{In: "explain:jitter/3", Says: "backoff 1,855", Measure: pointAt("work", "exponential", 100, work), Shown: "work"},
	{In: "explain:jitter/3", Says: "no backoff 2,421", Measure: pointAt("work", "none", 100, work), Shown: "work"},
	{In: "tour:jitter/4", Says: "the longest, 63.3 s", Measure: pointAt("completion", "exponential", 100, ms), Shown: "completion"},
	{In: "tour:jitter/4", Says: "(6.71 s)", Measure: pointAt("completion", "equal", 100, ms), Shown: "completion"},
	{In: "tour:jitter/4", Says: "(4.84 s)", Measure: pointAt("completion", "full", 100, ms), Shown: "completion"},
	{In: "tour:jitter/4", Says: "(4.52 s)", Measure: pointAt("completion", "decorrelated", 100, ms), Shown: "completion"},
	{In: "tour:jitter/5", Says: "five times as many clients", Why: "500 clients against the default 100"},
	{In: "tour:jitter/5", Says: "at 500 clients", Why: "the scenario's clients, marked on the work chart"},
	{In: "tour:jitter/5", Says: "6,277 writes", Measure: pointAt("work", "full", 500, work), Shown: "work"},
	{In: "tour:jitter/5", Says: "backoff's 24,391", Measure: pointAt("work", "exponential", 500, work), Shown: "work"},
	{In: "tour:jitter/5", Says: "at 100 clients", Why: "a point of the scenario's sweep (50:950:50), the default clients of the steps before"},
	{In: "tour:jitter/5", Says: "795 against 1,855", Measure: func(tb testing.TB, r *lab.Result) string {
		return pointAt("work", "full", 100, work)(tb, r) + " against " + pointAt("work", "exponential", 100, work)(tb, r)
	}, Shown: "work"},

	// The parameters', charts', tables' and notes' figures are definitions: the two conventions
	// for counting retries and the formulas of the schedule.
	{In: "help:base", Says: "the first retry is attempt 1", Why: "the definition of Brooker's simulator's convention (World's attempt count)"},
	{In: "help:base", Says: "decorrelated between a and 3a", Why: "the definition of decorrelated jitter, min(cap, U(a, 3·prev)) with prev = a at first (algorithms/backoff.Decorrelated)"},
	{In: "help:base", Says: "its retry 1 sleeps a", Why: "the definition of the Qiita post's convention, t_n = a·r^(n−1)"},
	{In: "help:multiplier", Says: "(r−1)·elapsed time", Why: "the formula t_(n+1) = a + (r−1)·T_n, without the a"},
	{In: "help:latency_sd", Says: "2 ms by default, as in Marc Brooker's simulator", Why: "the parameter's default, the standard deviation of Brooker's simulator's Net(10, 2)"},
	{In: "help:latency_sd", Says: "a variance of 4ms", Why: "the post's own words for that spread, which the text names by title and author"},
	{In: "chart:schedule", Says: "retry 1 sleeping the base", Why: "the definition of the Qiita post's convention"},
	{In: "chart:schedule", Says: "t_n = min(cap, a·r^(n−1))", Why: "the formula of the schedule"},
	{In: "chart:relation", Says: "t_(n+1) = a + (r−1)·T_n", Why: "the Qiita post's relation, an identity of the uncapped schedule"},
	{In: "chart:relation", Says: "(r−1)·100%", Why: "the relation without the a, as a share"},
	{In: "table:schedule", Says: "retry 1 sleeps a", Why: "the definition of the Qiita post's convention"},
	{In: "table:schedule", Says: "the first retry being attempt 1", Why: "the definition of Brooker's simulator's convention"},
	{In: "note:0", Says: "Two conventions", Why: "the two the note defines, Brooker's simulator's and the Qiita post's"},
	{In: "note:0", Says: "the first retry already uses attempt 1", Why: "the definition of Brooker's simulator's convention"},
	{In: "note:0", Says: "t_n = min(cap, a·r^(n−1))", Why: "the formula of the schedule"},
	{In: "note:1", Says: "r = 1 + X/100 (r = 1.1 for 10%)", Why: "(r−1)·100% = X% solved for r, and its value at X = 10"},
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), append(quotes, answerQuotes...))
}

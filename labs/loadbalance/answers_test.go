package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// answerQuotes hold the true answers of the tours' predictions to their scenarios.
var answerQuotes = []labtest.Quote{
	{In: "answer:subsetting/1", Says: "116", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "subsetting/1", float64(connSummary(tb, r).Max))
	}},
	// The least subset size of the sweep at which random subsetting's busiest backend holds
	// within 10% of the mean's connections.
	{In: "answer:subsetting/5", Says: "210", Measure: func(tb testing.TB, r *lab.Result) string {
		sweep, ok := r.Summary["subset_sweep"].(map[string][]sweepPoint)
		if !ok {
			tb.Fatalf("summary.subset_sweep is %T", r.Summary["subset_sweep"])
		}
		for _, p := range sweep["random"] {
			if p.ConnMaxOverMean <= 1.10+1e-9 {
				return labtest.AnswerOf(tb, Lab(), "subsetting/5", float64(p.Subset))
			}
		}
		return "no size of the sweep"
	}},
	{In: "answer:policies/1", Says: "2.80", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "policies/1", policies(tb, r)["round_robin"].MaxOverMin)
	}},
	// The policy that sends the failing backend the most requests.
	{In: "answer:policies/3", Says: "least_loaded", Measure: func(tb testing.TB, r *lab.Result) string {
		best := ""
		ps := policies(tb, r)
		for _, n := range []string{"round_robin", "least_loaded", "weighted"} {
			if best == "" || ps[n].FailFast > ps[best].FailFast {
				best = n
			}
		}
		return best
	}},
}

package retrystorm

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// back reports whether a policy's service came back after the trigger ended.
func back(p PolicySummary) bool { return p.RecoveryS != nil }

// answerQuotes hold the true answers of the tours' predictions to their scenarios.
var answerQuotes = []labtest.Quote{
	{In: "answer:storm/1", Says: "without", Measure: func(tb testing.TB, r *lab.Result) string {
		ps := policies(tb, r)
		return map[[2]bool]string{{true, true}: "both", {true, false}: "without", {false, true}: "with", {false, false}: "neither"}[[2]bool{back(ps["none"]), back(ps["retries"])}]
	}},
	// Which of the three policies that limit retries bring the service back.
	{In: "answer:storm/3", Says: "bucket_budget", Measure: func(tb testing.TB, r *lab.Result) string {
		ps := policies(tb, r)
		switch a, b, c := back(ps["adaptive"]), back(ps["budget"]), back(ps["circuit"]); {
		case a && b && c:
			return "all"
		case a && b && !c:
			return "bucket_budget"
		case !a && !b && c:
			return "circuit"
		case !a && !b && !c:
			return "none"
		}
		return "another set of the three"
	}},
	{In: "answer:brooker/1", Says: "1.88", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "brooker/1", policies(tb, r)["retries"].Amplification)
	}},
	{In: "answer:layers/1", Says: "64", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "layers/1", policies(tb, r)["retries"].Amplification)
	}},
	{In: "answer:collapse/1", Says: "stays_down", Measure: func(tb testing.TB, r *lab.Result) string {
		if back(policies(tb, r)["retries"]) {
			return "recovers"
		}
		return "stays_down"
	}},
}

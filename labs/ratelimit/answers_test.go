package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// answerQuotes hold the true answers of the tours' predictions to their scenarios.
var answerQuotes = []labtest.Quote{
	// What the fixed window counts at each minute mark after the first: zero, or half (or
	// more) of what it counted just before.
	{In: "answer:criteo/1", Says: "zero", Measure: func(tb testing.TB, r *lab.Result) string {
		for _, s := range r.Series {
			if s.Name != "estimate fixed_window" {
				continue
			}
			verdict := ""
			for i := 1; i < len(s.X); i++ {
				if int64(s.X[i])%60000 != 0 || s.X[i] == 0 {
					continue
				}
				before, at := s.Y[i-1], s.Y[i]
				v := "carries"
				switch {
				case at == 0:
					v = "zero"
				case at < before*0.75:
					v = "halves"
				}
				if verdict != "" && v != verdict {
					return "not the same at every minute mark"
				}
				verdict = v
			}
			return verdict
		}
		return "no estimate of the fixed window"
	}},
	{In: "answer:criteo/3", Says: "2.6", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "criteo/3", algorithms(tb, r)["sliding_window"].EstimateErrorPct)
	}},
	{In: "answer:criteo/5", Says: "199", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "criteo/5", float64(algorithms(tb, r)["token_bucket"].MaxInWindow))
	}},
	{In: "answer:distributed/2", Says: "247", Measure: func(tb testing.TB, r *lab.Result) string {
		return labtest.AnswerOf(tb, Lab(), "distributed/2", float64(algorithms(tb, r)["sliding_log"].MaxInWindow))
	}},
}

package backoff

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// answerQuotes hold the true answers of the tours' predictions to their scenarios.
var answerQuotes = []labtest.Quote{
	// The writes of exponential backoff come in clusters: most 10-ms slots of the timeline,
	// between its first and last write, see none.
	{In: "answer:jitter/1", Says: "cluster", Measure: func(tb testing.TB, r *lab.Result) string {
		for _, s := range r.Series {
			if s.Name != "timeline exponential" {
				continue
			}
			first, last, empty := -1, -1, 0
			for i, y := range s.Y {
				if y > 0 {
					if first < 0 {
						first = i
					}
					last = i
				}
			}
			for _, y := range s.Y[first : last+1] {
				if y == 0 {
					empty++
				}
			}
			if 2*empty > last+1-first {
				return "cluster"
			}
			return "spread"
		}
		return "no timeline of exponential backoff"
	}},
	// The strategy of the three with the fewest writes.
	{In: "answer:jitter/3", Says: "full", Measure: func(tb testing.TB, r *lab.Result) string {
		m := r.Summary["strategies"].(map[string]StrategySummary)
		best := ""
		for _, n := range strings.Split("full,equal,decorrelated", ",") {
			if best == "" || m[n].Writes < m[best].Writes {
				best = n
			}
		}
		return best
	}},
}

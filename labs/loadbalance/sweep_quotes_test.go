package loadbalance

import (
	"fmt"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// sweepAt measures one figure of the subset-size sweep: f of the point of subsetting name at
// the given size, written with two decimals.
func sweepAt(name string, size int, f func(sweepPoint) float64) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		sweep, ok := r.Summary["subset_sweep"].(map[string][]sweepPoint)
		if !ok {
			tb.Fatalf("summary.subset_sweep is %T", r.Summary["subset_sweep"])
		}
		for _, p := range sweep[name] {
			if p.Subset == size {
				return fmt.Sprintf("%.2f", f(p))
			}
		}
		return fmt.Sprintf("no %s point at %d", name, size)
	}
}

func connSpread(p sweepPoint) float64 { return p.ConnMaxOverMean }

// sweepQuotes are the figures of the sweep's tour step.
var sweepQuotes = []labtest.Quote{
	{In: "explain:subsetting/5", Says: "from 30 to 300 backends", Why: "the sweep's range (sweep=30:300:45)"},
	{In: "explain:subsetting/5", Says: "the chosen 30", Why: "the scenario's subset size (the default)"},
	{In: "explain:subsetting/5", Says: "1.53× the mean's connections at subsets of 30", Measure: sweepAt("random", 30, connSpread), Shown: "sweep_conn"},
	{In: "explain:subsetting/5", Says: "1.22× at 120", Measure: sweepAt("random", 120, connSpread), Shown: "sweep_conn"},
	{In: "explain:subsetting/5", Says: "1.10× at 210", Measure: sweepAt("random", 210, connSpread), Shown: "sweep_conn"},
	{In: "explain:subsetting/5", Says: "70% of the backends", Why: "210 of the 300 backends"},
	{In: "explain:subsetting/5", Says: "deterministic subsetting holds 1.00× at every size", Measure: func(tb testing.TB, r *lab.Result) string {
		worst := 0.0
		for _, p := range r.Summary["subset_sweep"].(map[string][]sweepPoint)["deterministic"] {
			worst = max(worst, p.ConnMaxOverMean)
		}
		return fmt.Sprintf("%.2f", worst)
	}, Shown: "sweep_conn"},
	{In: "explain:subsetting/5", Says: "over 20 s", Why: "the scenario's duration"},
}

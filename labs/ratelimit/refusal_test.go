package ratelimit

import (
	"errors"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// refusals are over-budget scenarios whose refusal must stay cheap: the one that cost 1.34
// CPU-seconds to refuse when the value to suggest was found by a binary search of full
// estimates, and others over budget in each cost parameter.
var refusals = []string{
	"algorithms=sliding_log&store=racy&instances=16&limit=100000",
	"limit=100000&window=10ms&load=10&duration=1h",
	"store=async&instances=64&limit=100000&store_latency=1s&duration=10m",
	"store=cas&instances=64&limit=100000&store_latency=1s&window=1h&duration=1h&load=10",
}

// TestRefusalEstimates counts the estimates a refusal computes: at most one, and
// lab.FitEstimates for each cost parameter, however far over the budget; the pilot simulations they run are
// bounded (pilotWork), so a refusal costs milliseconds.
func TestRefusalEstimates(t *testing.T) {
	heavy.Test(t)
	for _, q := range refusals {
		r := newRunner(defaultSlices)
		l := r.lab()
		n := 0
		cost := l.Cost
		l.Cost = func(v param.Values) int64 { n++; return cost(v) }
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		cpu0 := labtest.ProcessCPU(t)
		err = l.CheckBudget(v, 200_000_000)
		cpu := labtest.ProcessCPU(t) - cpu0
		var pe *param.Error
		if !errors.As(err, &pe) {
			t.Fatalf("%s: CheckBudget = %v, want a refusal", q, err)
		}
		if limit := 1 + lab.FitEstimates*len(l.CostParams); n > limit {
			t.Errorf("%s: %d estimates for one refusal, want at most %d", q, n, limit)
		}
		t.Logf("%s: %d estimates, %v of CPU: %s", q, n, cpu, pe.Msg)
		// The suggestion fits: "lower <param> to <value>[ or less]".
		_, after, _ := strings.Cut(pe.Msg, "lower "+pe.Param+" to ")
		raw, _, _ := strings.Cut(after, " ")
		w, err := v.With(pe.Param, raw)
		if err != nil {
			t.Fatalf("%s: the suggested %s=%q does not parse: %v", q, pe.Param, raw, err)
		}
		if err := newRunner(defaultSlices).lab().CheckBudget(w, 200_000_000); err != nil {
			t.Errorf("%s: with the suggested %s=%s: %v", q, pe.Param, raw, err)
		}
	}
}

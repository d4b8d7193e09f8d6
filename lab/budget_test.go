package lab_test

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// budgetLab has a cost that grows as n², linearly with rate and with the duration, and a
// memory that grows with n, and counts the estimates it is asked for.
func budgetLab(estimates *int) *lab.Lab {
	return &lab.Lab{
		Name: "budget",
		Params: param.Set{
			{Name: "n", Kind: param.Int, Default: "10", Min: 1, Max: 1e6},
			{Name: "rate", Kind: param.Float, Default: "1", Min: 0.1, Max: 100, Step: 0.05},
			{Name: "duration", Kind: param.Duration, Default: "1m", Min: 1000, Max: 7 * 24 * 3600 * 1000, Step: 1000},
		},
		Cost: func(v param.Values) int64 {
			*estimates++
			n := float64(v.Int("n"))
			return int64(n * n * v.Float("rate") * v.Duration("duration").Seconds())
		},
		CostParams:   []string{"n", "rate", "duration"},
		Memory:       func(v param.Values) int64 { return v.Int("n") << 10 },
		MemoryParams: []string{"n"},
	}
}

// TestCheckBudgetEstimates checks that a refusal computes a bounded number of estimates, however
// far over the budget the scenario is, and that the value it suggests fits and is not far
// below the largest that does.
func TestCheckBudgetEstimates(t *testing.T) {
	tests := []struct {
		query  string
		budget int64
		param  string
		best   float64 // the largest value that fits
	}{
		{"n=30000&rate=100&duration=168h", 1e10, "n", math.Floor(math.Sqrt(1e10 / (100 * 604800)))},
		{"n=1000&rate=1&duration=1m", 1e6, "n", math.Floor(math.Sqrt(1e6 / 60))},
		{"n=1001&duration=1m", 1000 * 1000 * 60, "n", 1000},
		{"n=1&rate=100&duration=1m", 1000, "rate", 16.65},
		{"n=1&rate=0.1&duration=168h", 3600, "duration", 36000},
	}
	for _, tt := range tests {
		estimates := 0
		l := budgetLab(&estimates)
		v, err := l.Params.ParseQuery(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		err = l.CheckBudget(v, tt.budget)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != tt.param {
			t.Fatalf("%s: CheckBudget = %v, want an error naming %s", tt.query, err, tt.param)
		}
		if limit := 1 + lab.FitEstimates*len(l.CostParams); estimates > limit {
			t.Errorf("%s: %d estimates for one refusal, want at most %d", tt.query, estimates, limit)
		}
		// The suggestion: "lower <param> to <value> or less".
		_, after, _ := strings.Cut(pe.Msg, "lower "+tt.param+" to ")
		raw, _, _ := strings.Cut(after, " ")
		w, err := v.With(tt.param, raw)
		if err != nil {
			t.Fatalf("%s: the suggested %s=%q does not parse: %v (%s)", tt.query, tt.param, raw, err, pe.Msg)
		}
		if c := l.Cost(w); c > tt.budget {
			t.Errorf("%s: the suggested %s=%s costs %d, over the budget %d", tt.query, tt.param, raw, c, tt.budget)
		}
		var got float64
		switch tt.param {
		case "n":
			got = float64(w.Int("n"))
		case "rate":
			got = w.Float("rate")
		case "duration":
			got = w.Duration("duration").Seconds()
		}
		if got < 0.8*tt.best {
			t.Errorf("%s: suggested %s=%s, far below the largest that fits, %v (%s)", tt.query, tt.param, raw, tt.best, pe.Msg)
		}
		t.Logf("%s: %d estimates: %s", tt.query, estimates, pe.Msg)
	}
}

// TestCheckBudgetMovedFirst: the refusal names first a parameter the scenario moved from its
// default, in the lab's order among those.
func TestCheckBudgetMovedFirst(t *testing.T) {
	estimates := 0
	l := budgetLab(&estimates)
	v, err := l.Params.ParseQuery("duration=168h")
	if err != nil {
		t.Fatal(err)
	}
	var pe *param.Error
	if err := l.CheckBudget(v, 1e5); !errors.As(err, &pe) || pe.Param != "duration" ||
		!strings.Contains(pe.Msg, "lower duration to 16m40s or less (or lower n or rate)") {
		t.Errorf("CheckBudget = %v, want duration named first", err)
	}
}

// TestCheckBudgetMemory checks that a scenario within the work budget but over MaxRunMemory is
// refused, naming the memory parameter and a value that fits.
func TestCheckBudgetMemory(t *testing.T) {
	estimates := 0
	l := budgetLab(&estimates)
	l.Cost = func(param.Values) int64 { return 1 }
	v, err := l.Params.ParseQuery("n=1000000&rate=0.1&duration=1s")
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckBudget(v, 1000)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "n" || !strings.Contains(pe.Msg, "of memory") {
		t.Fatalf("CheckBudget = %v, want a memory refusal naming n", err)
	}
	fits := strconv.Itoa(lab.MaxRunMemory >> 10) // a KiB per n
	if want := "lower n to " + fits + " or less"; !strings.Contains(pe.Msg, want) {
		t.Errorf("Msg = %q, want it to contain %q", pe.Msg, want)
	}
	if w, _ := v.With("n", fits); l.CheckBudget(w, 1000) != nil {
		t.Errorf("n=%s (MaxRunMemory) is refused", fits)
	}
}

// TestCheckBudgetBoth: a scenario over the work budget and the memory bound alike is told so,
// and is suggested a value that fits both — the tighter of the two (here the memory's), not the
// one the work alone would fit with, which the memory refuses.
func TestCheckBudgetBoth(t *testing.T) {
	estimates := 0
	l := budgetLab(&estimates)
	v, err := l.Params.ParseQuery("n=100000&rate=0.1&duration=1s")
	if err != nil {
		t.Fatal(err)
	}
	const budget = 50000 * 50000 / 10 // the work alone fits up to n=50000; the memory up to 40960
	err = l.CheckBudget(v, budget)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "n" {
		t.Fatalf("CheckBudget = %v, want a refusal naming n", err)
	}
	for _, want := range []string{"1e+09 work units", "and about 102 MB of memory", "lower n to 40960 or less"} {
		if !strings.Contains(pe.Msg, want) {
			t.Errorf("Msg = %q, want it to contain %q", pe.Msg, want)
		}
	}
	if w, _ := v.With("n", "40960"); l.CheckBudget(w, budget) != nil {
		t.Errorf("n=40960 is refused")
	}
}

// TestStopped: a run stopped by the CPU safety net a share of the way is suggested a value
// whose estimated work fits in nine tenths of that share of its own, kept by the lab's rules
// (not "lower n to 474" where the rules refuse n under 600), and with no share done it names
// the parameters to lower without a value.
func TestStopped(t *testing.T) {
	estimates := 0
	l := budgetLab(&estimates)
	v, err := l.Params.ParseQuery("n=1000&rate=1&duration=1m") // 6e7 units
	if err != nil {
		t.Fatal(err)
	}
	const share = 0.25
	allowed := 0.9 * share * float64(l.Cost(v))
	stopped := func(l *lab.Lab) *param.Error {
		t.Helper()
		var pe *param.Error
		if err := l.Stopped(v, share, "stopped 25% of the way"); !errors.As(err, &pe) {
			t.Fatalf("Stopped = %v, want a *param.Error", err)
		}
		t.Log(pe.Msg)
		if !strings.HasPrefix(pe.Msg, "stopped 25% of the way; lower "+pe.Param+" to "+pe.Fit) {
			t.Errorf("Msg = %q, want the reason, then the parameter %q and its value %q", pe.Msg, pe.Param, pe.Fit)
		}
		w, err := v.With(pe.Param, pe.Fit)
		if err != nil {
			t.Fatalf("the value suggested, %s=%s: %v", pe.Param, pe.Fit, err)
		}
		if l.Check != nil && l.Check(w) != nil {
			t.Errorf("%s=%s breaks the lab's rules: %v", pe.Param, pe.Fit, l.Check(w))
		}
		if c := float64(l.Cost(w)); c > allowed {
			t.Errorf("%s=%s costs %.3g, more than the %.3g allowed", pe.Param, pe.Fit, c, allowed)
		}
		return pe
	}
	pe := stopped(l)
	best := math.Floor(math.Sqrt(allowed / 60)) // 474
	if n, _ := strconv.ParseFloat(pe.Fit, 64); pe.Param != "n" || n < 0.85*best {
		t.Errorf("suggested %s=%s, want n close to %v", pe.Param, pe.Fit, best)
	}

	l.Check = func(v param.Values) error {
		if v.Int("n") < 600 {
			return &param.Error{Param: "n", Msg: "n must be at least 600"}
		}
		return nil
	}
	if pe := stopped(l); pe.Param == "n" {
		t.Errorf("suggested n=%s, which the rules refuse", pe.Fit)
	}

	var pe0 *param.Error
	if err := l.Stopped(v, 0, "stopped 0% of the way"); !errors.As(err, &pe0) || pe0.Fit != "" ||
		pe0.Msg != "stopped 0% of the way; lower n, rate or duration" {
		t.Errorf("Stopped with no share done = %#v, want the parameters without a value", pe0)
	}
}

// TestCheckBudgetLeastLeftOut: a refusal does not tell the viewer to lower a parameter already
// at its least ("or lower n" where n is 1), unless none other is left to name.
func TestCheckBudgetLeastLeftOut(t *testing.T) {
	estimates := 0
	l := budgetLab(&estimates)
	v, _ := l.Params.ParseQuery("n=1&rate=100&duration=1m")
	var pe *param.Error
	if err := l.CheckBudget(v, 1000); !errors.As(err, &pe) || !strings.HasSuffix(pe.Msg, "lower rate to 16.65 or less (or lower duration)") {
		t.Errorf("CheckBudget = %v, want rate suggested and only duration besides", err)
	}
	l.Cost = func(param.Values) int64 { return 1e9 }       // nothing fits
	v, _ = l.Params.ParseQuery("n=1&rate=0.1&duration=1s") // every parameter at its least
	if err := l.CheckBudget(v, 1000); !errors.As(err, &pe) || !strings.HasSuffix(pe.Msg, "; lower n, rate or duration") {
		t.Errorf("CheckBudget = %v, want every parameter named when all are at their least", err)
	}
}

package api_test

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestHeaviestAdmittedFinishes: a run the budget admits finishes. For each lab it builds the
// heaviest scenario the budget admits from the corner where every cost parameter is at its
// largest (every option of a list, the longest range): the first integer cost parameter is
// lowered to the largest value that fits the budget, by the lab's own estimate. That scenario
// must run to completion through the JSON API of a server configured as `playground serve`
// is, not be stopped by the per-run CPU limit, the safety net under the estimates. Its CPU
// time and estimated events are logged, with the margin to the limit:
//
//	backoff?strategies=…&clients=1000&trials=10&sweep=10:1000:10: 2e+08 estimated work units, 15.79 CPU-s (wall 1m45.14s), 81 ns each; the CPU limit 1m0s is 3.8× that
//
// (Skipped under the race detector, which slows these runs tenfold, and with -short; CI runs
// it without either.)
func TestHeaviestAdmittedFinishes(t *testing.T) {
	srv := mustOpenServed(t)
	for _, l := range srv.Labs.All() {
		t.Run(l.Name, func(t *testing.T) {
			v, ok := heaviestAdmitted(t, l, api.DefaultBudget)
			if !ok {
				t.Fatalf("no cost parameter of %s, lowered alone from the heaviest corner, fits the budget", l.Name)
			}
			srv.mustFinish(t, l, v)
		})
	}
}

// heaviestAdmitted returns the scenario of TestHeaviestAdmittedFinishes: every cost parameter
// of l at its largest, then the first integer or duration one that, lowered alone, can make the scenario
// fit budget lowered to the largest value with which it fits (those before it that cannot,
// alone, at their least). It reports false when none can.
func heaviestAdmitted(tb testing.TB, l *lab.Lab, budget int64) (param.Values, bool) {
	tb.Helper()
	v := l.Params.Defaults()
	// valid: the scenario passes the lab's rules across parameters too (subset ≤ backends).
	valid := func(w param.Values) bool { _, err := l.Parse(w.Encode()); return err == nil }
	for _, name := range l.CostParams {
		sp, _ := l.Params.Lookup(name)
		if w, err := v.With(name, largest(sp)); err == nil && valid(w) {
			v = w
			continue
		}
		if sp.Kind != param.Int {
			continue
		}
		// The largest value the rules across parameters allow.
		lo, hi := v.Int(name), int64(sp.Max)
		for lo < hi {
			mid := lo + (hi-lo+1)/2
			if w, err := v.With(name, strconv.FormatInt(mid, 10)); err == nil && valid(w) {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		v, _ = v.With(name, strconv.FormatInt(lo, 10))
	}
	if err := l.CheckBudget(v, budget); err == nil {
		return v, true // the heaviest corner fits
	}
	for _, name := range l.CostParams {
		sp, _ := l.Params.Lookup(name)
		// Integers count from their minimum, durations in whole milliseconds.
		format, cur := func(n int64) string { return strconv.FormatInt(n, 10) }, func(v param.Values) int64 { return v.Int(name) }
		switch sp.Kind {
		case param.Int:
		case param.Duration:
			format = func(n int64) string { return param.FormatDuration(time.Duration(n) * time.Millisecond) }
			cur = func(v param.Values) int64 { return v.Duration(name).Milliseconds() }
		default:
			continue
		}
		with := func(n int64) param.Values {
			w, err := v.With(name, format(n))
			if err != nil {
				tb.Fatal(err)
			}
			return w
		}
		lo, hi := int64(sp.Min), cur(v)
		if l.CheckBudget(with(lo), budget) != nil {
			// Even at its least this one does not make the corner fit: keep it there and
			// lower the next one too.
			v = with(lo)
			continue
		}
		for lo < hi { // the largest n in [lo, hi] that fits
			mid := lo + (hi-lo+1)/2
			if l.CheckBudget(with(mid), budget) == nil {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return with(lo), true
	}
	return v, false
}

// largest is the heaviest value of a parameter as a URL writes it: its maximum, every option
// of a list, the longest range up to its maximum; the default for other kinds.
func largest(sp param.Spec) string {
	switch sp.Kind {
	case param.Int, param.Float, param.Duration:
		return sp.Format(sp.Max)
	case param.EnumList:
		return strings.Join(sp.Options, ",")
	case param.IntRange:
		to := int64(sp.Max)
		step := max(1, (to-int64(sp.Min))/int64(max(sp.MaxLen-1, 1)))
		from := max(int64(sp.Min), to-int64(sp.MaxLen-1)*step)
		return strconv.FormatInt(from, 10) + ":" + strconv.FormatInt(to, 10) + ":" + strconv.FormatInt(step, 10)
	}
	return sp.Default
}

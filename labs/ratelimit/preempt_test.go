package ratelimit

import (
	"bytes"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestPreempted: a run cancelled in any stage — drawing arrivals, the algorithms' slices —
// stops within a piece of paced work.
func TestPreempted(t *testing.T) {
	labtest.CheckPreempted(t, "", 12, 0.15, func() (*lab.Lab, func() int64) {
		r := newRunner(defaultSlices)
		return r.lab(), r.work.Load
	})
}

// TestCoarseFirst: the first coarse picture has every series.
func TestCoarseFirst(t *testing.T) {
	for _, q := range []string{"", "duration=10m&limit=1000&load=2"} {
		labtest.CheckCoarseFirst(t, newRunner(defaultSlices).lab(), q)
	}
}

// TestRampsEqualOneShot: a heavy scenario, whose first slice is cut in ramps (sliceEnds),
// gives the one-shot result byte for byte.
func TestRampsEqualOneShot(t *testing.T) {
	q := "duration=3m&limit=1000&load=1.5&algorithms=fixed_window,sliding_log,token_bucket"
	v, err := Params.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	s := scenarioOf(v)
	if n := expectedArrivals(s) / 2; n <= rampArrivals {
		t.Fatalf("%s: %.0f arrivals a slice of two, want more than %d", q, n, rampArrivals)
	}
	want := marshal(t, mustRunOn(t, newRunner(1).lab(), q))
	if got := marshal(t, mustRunOn(t, newRunner(2).lab(), q)); !bytes.Equal(got, want) {
		t.Errorf("%s: with ramps the result differs from the one-shot result", q)
	}
}

package ratelimit

import (
	"bytes"
	"context"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
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
	heavy.Test(t)
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
	if n := CostBound(v) / 2; n <= rampWork {
		t.Fatalf("%s: a work bound of %d a slice of two, want more than %d", q, n, rampWork)
	}
	want := marshal(t, mustRunOn(t, newRunner(1).lab(), q))
	if got := marshal(t, mustRunOn(t, newRunner(2).lab(), q)); !bytes.Equal(got, want) {
		t.Errorf("%s: with ramps the result differs from the one-shot result", q)
	}
}

// TestFirstPictureCheap: the first picture of a run whose slices are heavy takes a small
// share of a slice's work, whether the work is in its arrivals or in its sweeps' worlds (here
// 1,200 arrivals and 41 worlds of the latency sweep: before the ramps counted the worlds, its
// first picture was a whole slice).
func TestFirstPictureCheap(t *testing.T) {
	const slices = 2
	for _, q := range []string{
		"duration=3m&limit=1000&load=1.5&algorithms=fixed_window,sliding_log,token_bucket",
		"limit=1&load=10&duration=2m&latency_sweep=0:1000:25",
	} {
		r := newRunner(slices)
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		first := int64(-1)
		if _, err := r.lab().Execute(context.Background(), v, func(u lab.Update) {
			if first < 0 && u.Refine != nil {
				first = r.work.Load()
			}
		}); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		total := r.work.Load()
		if first < 0 || first > total/slices/4 {
			t.Errorf("%s: the first picture took %d work units of the run's %d, want at most a quarter of a slice's (%d)",
				q, first, total, total/slices/4)
		}
	}
}

package ratelimit

import (
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

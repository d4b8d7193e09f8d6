package backoff

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestPreempted: a run cancelled in any stage — the chosen client count's trials, the sweep
// points — stops within a piece of paced work.
func TestPreempted(t *testing.T) {
	labtest.CheckPreempted(t, "clients=100&trials=20", 10, 0.15, func() (*lab.Lab, func() int64) {
		r := newRunner()
		return r.lab(), r.work.Load
	})
}

// TestCoarseFirst: the first coarse picture has every series, small multiples included.
func TestCoarseFirst(t *testing.T) {
	heavy.Test(t)
	for _, q := range []string{"", "clients=500"} {
		labtest.CheckCoarseFirst(t, newRunner().lab(), q)
	}
}

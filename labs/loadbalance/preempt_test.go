package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestPreempted: a run cancelled in any stage — subsets, the subsettings' comparison and
// churn, the simulation — stops within a piece of paced work, so a viewer's new value never
// waits for the old run's setup.
func TestPreempted(t *testing.T) {
	for _, q := range []string{
		"clients=300&backends=300&subset=60&duration=10s",
		"subsetting=rendezvous&clients=400&backends=400&subset=40&duration=5s&policy=least_loaded",
	} {
		labtest.CheckPreempted(t, q, 12, 0.15, func() (*lab.Lab, func() int64) {
			r := newRunner()
			return r.lab(), r.work.Load
		})
	}
}

// TestCoarseFirst: the first coarse picture has every series.
func TestCoarseFirst(t *testing.T) {
	queries := []string{"", "clients=901&backends=901&subset=301&rate=0.8&duration=20s"}
	if raceEnabled || testing.Short() {
		queries = queries[:1] // the heavy one takes minutes under the race detector
	}
	for _, q := range queries {
		labtest.CheckCoarseFirst(t, newRunner().lab(), q)
	}
}

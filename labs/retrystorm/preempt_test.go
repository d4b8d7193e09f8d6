package retrystorm

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// TestPreempted: a run cancelled in any slice — setting its worlds up, simulating — stops
// within a piece of paced work.
func TestPreempted(t *testing.T) {
	for _, q := range []string{"", "policies=retries,budget&sweep=0:100:50&duration=20s"} {
		labtest.CheckPreempted(t, q, 12, 0.15, func() (*lab.Lab, func() int64) {
			r := newRunner()
			return r.lab(), r.work.Load
		})
	}
}

// TestCoarseFirst: the first coarse picture has every series, the sweeps' included.
func TestCoarseFirst(t *testing.T) {
	for _, q := range []string{"", allPolicies + "&sweep=0:100:50&client_sweep=10:100:90&duration=20s"} {
		labtest.CheckCoarseFirst(t, newRunner().lab(), q)
	}
}

// TestMemoKey: moving any parameter changes the key of every policy's memoised simulation, and
// equal scenarios written differently share them.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), labtest.PerChoice("policies", func(v param.Values, p string) string { return memoKey(v, p, nil) }), "sweep", "client_sweep")
}

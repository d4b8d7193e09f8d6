package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestMemoKey: moving any parameter changes the key of every algorithm's memoised result and
// of the cost estimate, and equal scenarios written differently share them.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), labtest.PerChoice("algorithms", memoKey), "sweep", "latency_sweep")
}

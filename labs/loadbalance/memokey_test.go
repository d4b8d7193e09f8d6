package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestMemoKey: moving any parameter changes the key of every policy's memoised outcome, and
// equal scenarios written differently share it.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), labtest.PerChoice("policy", memoKey), sweeps...)
}

package backoff

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// TestMemoKey: moving any parameter a point depends on (all but the sweep it is part of and
// the retry schedule's length) changes the key of every strategy's point at the chosen N, and
// equal scenarios written differently share it.
func TestMemoKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), labtest.PerChoice("strategies", func(v param.Values, name string) string {
		return memoKey(v, name, int(v.Int("clients")))
	}), "sweep", "retries")
}

// TestPilotKey: the same for the cost model's pilots, which depend on neither the clients,
// the trials, the seed, the sweep nor the retries.
func TestPilotKey(t *testing.T) {
	labtest.CheckMemoKey(t, Lab(), labtest.PerChoice("strategies", func(v param.Values, name string) string {
		return pilotKeyOf(scenarioOf(v), name).url
	}), "clients", "trials", "seed", "sweep", "retries")
}

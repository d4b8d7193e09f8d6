package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestMemory compares the memory estimate with the heap runs really hold at their peak, for the
// heaviest scenarios in memory the work budget admits: the estimate must not be below it (with
// a margin, labtest.CheckMemory).
func TestMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the heap of large runs; not under -race or -short")
	}
	labtest.CheckMemory(t, func() *lab.Lab { return newRunner(defaultSlices).lab() },
		"limit=100000&load=10&window=1h&duration=1h",
		"limit=100000&load=10&window=10s&duration=20s",
		"algorithms=sliding_log&store=async&instances=16&limit=2000&window=10s&duration=5s",
		"algorithms=sliding_log&store=local&instances=64&limit=100000&load=2&window=1h&duration=2m&balancer=random",
		"store=cas&instances=8&store_latency=1s&limit=100000&window=1h&duration=10m&algorithms=fixed_window,token_bucket",
		"algorithms=sliding_log&instances=8&limit=2000&window=10s&duration=5s&latency_sweep=0:1000:250&instances_sweep=16:64:16",
	)
}

package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestMemory compares the memory estimate with the heap runs really hold at their peak, for the
// heaviest scenarios in memory the work budget admits: the estimate must not be below it (with
// a margin, 4 MB, for what the collector has not reclaimed when it is sampled).
func TestMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the heap of large runs; not under -race or -short")
	}
	for _, q := range []string{
		"limit=100000&load=10&window=1h&duration=1h",
		"limit=100000&load=10&window=10s&duration=20s",
		"algorithms=sliding_log&store=async&instances=16&limit=2000&window=10s&duration=5s",
		"algorithms=sliding_log&store=local&instances=64&limit=100000&load=2&window=1h&duration=2m&balancer=random",
		"store=cas&instances=8&store_latency=1s&limit=100000&window=1h&duration=10m&algorithms=fixed_window,token_bucket",
	} {
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		est := Memory(v)
		peak := labtest.PeakHeap(t, newRunner(defaultSlices).lab(), q)
		t.Logf("%-110s estimate %5.1f MB, peak heap %5.1f MB (×%.2f), cost %d", q, float64(est)/1e6, float64(peak)/1e6, float64(est)/float64(peak), Lab().Cost(v))
		if float64(peak) > 1.2*float64(est)+4e6 {
			t.Errorf("%s: the run held %d bytes at its peak, over the estimate %d", q, peak, est)
		}
	}
}

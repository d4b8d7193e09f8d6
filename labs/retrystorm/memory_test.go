package retrystorm

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestMemory compares the memory estimate with the heap runs really hold at their peak
// (labtest.PeakHeap), for scenarios that hold much: a collapsed service's queue over five
// minutes, a fast rate, many clients and layers, Brooker's model (whose every call in service
// has its event), long sleeps and the sweeps' worlds. The estimate must not be below the peak
// (with a margin of 20% and 4 MB for what the collector has not reclaimed); where the service
// collapses, as the estimate assumes it may, it must be within 2× of it. (Where a storm could
// happen and does not, the estimate is its bound, above the peak by up to an order of
// magnitude: the long sleeps and the sweep below. And Brooker's model, whose calls in service
// each have an event, is counted at three times what they hold, as the arrays grow.)
func TestMemory(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the heap of large runs; not under -race or -short")
	}
	for _, c := range []struct {
		q     string
		tight bool
	}{
		{"policies=retries&duration=5m", true},
		{"policies=none,retries&rate=3000&capacity=2000&duration=1m", true},
		{"policies=retries&clients=1000&layers=2&duration=1m", true},
		{"policies=retries&service=concurrency&service_time=1s&capacity=100&rate=80&timeout=3s&duration=2m", false},
		{"policies=retries,budget&backoff=exponential&base=1s&cap=1m&timeout=10s&duration=2m", false},
		{allPolicies + "&sweep=0:100:20&duration=20s", false},
	} {
		l := newRunner().lab()
		v, err := l.Parse(c.q)
		if err != nil {
			t.Fatal(err)
		}
		est, peak := float64(l.Memory(v)), float64(labtest.PeakHeap(t, l, c.q))
		t.Logf("%-100s estimate %5.1f MB, peak heap %5.1f MB (×%.2f)", c.q, est/1e6, peak/1e6, est/peak)
		if peak > 1.2*est+4e6 {
			t.Errorf("%s: the run held %.1f MB at its peak, over the estimate %.1f MB", c.q, peak/1e6, est/1e6)
		}
		if c.tight && est > 2*peak {
			t.Errorf("%s: the estimate %.1f MB is more than twice the peak %.1f MB", c.q, est/1e6, peak/1e6)
		}
	}
}

package loadbalance

import (
	"math"
	"slices"
	"testing"
	"time"
)

// TestLatencyInterpolated: the latency percentiles come from a histogram of 16 buckets per
// octave (about 4.4% wide); within its bucket a percentile is interpolated, so it lands close
// to the exact value rather than on the bucket's edge, and two policies whose latencies differ
// do not show the same figure.
func TestLatencyInterpolated(t *testing.T) {
	var w world
	var all []float64
	const n = 10000
	for i := range n { // exponentially distributed, mean 200 ms, by its quantiles
		d := time.Duration(-200e6 * math.Log(1-(float64(i)+0.5)/n))
		w.latency[latencyBucket(d)]++
		w.succeeded++
		all = append(all, float64(d)/1e6)
	}
	slices.Sort(all)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		exact := all[int(math.Ceil(q*float64(len(all))))-1]
		got := w.Latency(q)
		t.Logf("p%.0f: exact %.3f ms, from the histogram %.3f ms", 100*q, exact, got)
		if math.Abs(got-exact)/exact > 0.005 {
			t.Errorf("p%.0f: %.3f ms, exact %.3f ms: want within 0.5%%", 100*q, got, exact)
		}
	}

	ps := policies(t, mustRun(t, "policy=round_robin,least_loaded"))
	rr, ll := ps["round_robin"], ps["least_loaded"]
	t.Logf("default: round robin p50 %.2f p99 %.2f ms; least-loaded p50 %.2f p99 %.2f ms", rr.LatencyP50MS, rr.LatencyP99MS, ll.LatencyP50MS, ll.LatencyP99MS)
	if rr.LatencyP50MS == ll.LatencyP50MS || rr.LatencyP99MS == ll.LatencyP99MS {
		t.Errorf("round robin and least-loaded show the same latency percentiles (%.2f/%.2f ms): bucket edges, not measurements",
			rr.LatencyP50MS, rr.LatencyP99MS)
	}
}

package ratelimit

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
)

// costScenarios span the parameter space: event rates from a few per second to a hundred
// thousand, every store (the copying ones with long sliding logs), many instances, and
// durations long enough that Cost extrapolates from its pilot.
var costScenarios = []string{
	"",
	"duration=1s",
	"duration=1m&sweep=1:60:1",
	"algorithms=sliding_log&store=async&instances=4&limit=100&load=3&duration=1m&latency_sweep=0:200:25",
	"algorithms=fixed_window,gcra&instances=8&duration=10s&latency_sweep=0:1000:125",
	"algorithms=sliding_log&store=async&instances=2&limit=100&load=3&duration=20s&latency_sweep=0:200:100&instances_sweep=4:16:4",
	"algorithms=sliding_window&instances=4&load=3&duration=10s&latency_sweep=0:500:250&instances_sweep=1:64:9",
	"algorithms=sliding_log&store=async&limit=200&load=3&duration=10s&latency_sweep=0:200:100&instances_sweep=16:64:16", // once ×3.46
	"algorithms=fixed_window&instances=8&duration=20s&store=cas&store_latency=1s",                                       // retry chains longer than the pilot
	"store=cas&instances=4&store_latency=20ms&limit=100&load=2&duration=1m&latency_sweep=0:50:10",
	"store=incr&instances=4&duration=20s&sweep=1:31:6",
	"duration=5m",
	"window=10ms&duration=3s",
	"window=1h&limit=1",
	"limit=100000&duration=2s",
	"load=10&duration=10s",
	"traffic=boundary&duration=2m",
	"traffic=bursty&duration=2m&load=3",
	"traffic=ramp&duration=2m",
	"store=racy&instances=8&limit=5000&duration=20s&store_latency=20ms",
	"store=cas&instances=8&store_latency=5ms&duration=20s",
	"store=cas&instances=8&store_latency=200ms&limit=1000&duration=10s",
	"store=incr&instances=4&subwindows=60&duration=1m",
	"store=async&instances=64&store_latency=50ms&duration=20s",
	"store=async&instances=8&limit=2000&store_latency=500ms&duration=2s&algorithms=sliding_log",
	"store=local&instances=64&balancer=random&duration=1m",
	"store=local&balancer=sticky&duration=2m&skew=1m",
	"algorithms=sliding_log&store=racy&limit=50000&duration=4s&store_latency=1s",
	// Every slider's extremes.
	"limit=1&window=10ms&load=10&duration=1m",
	"limit=100000&window=10ms&load=0.1&duration=1s",
	"algorithms=subwindows&subwindows=60&window=1h&limit=100000&load=10&duration=1h",
	"algorithms=token_bucket,leaky_queue,leaky_meter,gcra&burst=100000&limit=10&load=10&duration=1m",
	"algorithms=leaky_queue,leaky_meter&leak=0.1&duration=1m",
	"algorithms=leaky_queue,leaky_meter&leak=10&duration=1m",
	"load=0.1&duration=1h&window=1s&limit=10",
	"instances=64&store=atomic&balancer=random&skew=1m&duration=30s",
	"instances=64&store=racy&store_latency=0s&duration=10s",
	"instances=64&store=cas&store_latency=1s&limit=100&duration=1m",
	"instances=64&store=incr&store_latency=1s&duration=30s&subwindows=60",
	"instances=2&store=async&store_latency=0s&duration=30s",
	"traffic=boundary&limit=100000&window=1h&load=10&duration=1h",
	"limit=100&window=1m&duration=6h", // a long run at a low rate
	"limit=10&window=1h&duration=168h&traffic=bursty",
}

// TestCostWithinTwice compares the cost estimate with the work runs really do: within 2×
// either way. CostBound must never be below the work.
func TestCostWithinTwice(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t) // the estimate's arithmetic: nothing for the race detector
	worst := 1.0
	scenarios := costScenarios
	for _, q := range scenarios {
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner(defaultSlices)
		l := r.lab()
		est, bound := l.Cost(v), l.CostBound(v)
		start := time.Now()
		if _, err := l.Execute(context.Background(), v, nil); err != nil {
			t.Fatal(err)
		}
		took := time.Since(start)
		real := r.work.Load()
		ratio := float64(max(est, 1000)) / float64(max(real, 1000)) // a few thousand units are nothing
		worst = math.Max(worst, math.Max(ratio, 1/ratio))
		t.Logf("%-90s estimate %10d real %10d (×%.2f) bound ×%.1f, %.0f ns/unit", q, est, real, ratio, float64(bound)/float64(real),
			float64(took.Nanoseconds())/float64(real))
		if ratio > 2 || ratio < 0.5 {
			t.Errorf("%s: estimate %d units, real %d (×%.2f)", q, est, real, ratio)
		}
		if bound < real {
			t.Errorf("%s: bound %d below the real work %d", q, bound, real)
		}
	}
	t.Logf("worst estimate off by ×%.2f", worst)
}

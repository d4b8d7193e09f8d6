package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// testBudget is the server's default work budget (api.DefaultBudget).
const testBudget = 200_000_000

// memoryCorners is a grid over what the memory estimate grows with — the algorithms, the
// limit over a long window and the load, the instances and how they share the store (the
// longest round trip of compare-and-swap among them), the sweeps — each corner taken to the
// budget: the heaviest scenarios admitted there. Among them
// is issue 33's, a long window with many instances and both store sweeps, whose estimate was
// 7× low.
var memoryCorners = append(labtest.Grid(
	[]string{"", "algorithms=sliding_log"},
	[]string{"limit=100000&load=10&window=1h&duration=1h", "window=1s&duration=10m"},
	[]string{"", "instances=64&store=async", "instances=64&store=local&balancer=random", "instances=8&store=cas&store_latency=1s"},
	[]string{"", "latency_sweep=0:1000:25&instances_sweep=8:64:8", "sweep=1:60:1&latency_sweep=0:1000:25"},
),
	// Stores whose round trips keep requests in flight, at the longest round trip.
	"algorithms=sliding_log&store=racy&store_latency=1s&instances=8&duration=5m",
	"algorithms=subwindows&subwindows=60&store=cas&store_latency=1s&instances=8&duration=5m",
	"store=incr&store_latency=1s&instances=8&duration=5m",
	// The heaviest scenarios in memory found before the grid (issue 18's among them).
	"limit=100000&load=10&window=10s&duration=20s",
	"algorithms=sliding_log&store=async&instances=16&limit=2000&window=10s&duration=5s",
	"store=cas&instances=8&store_latency=1s&limit=100000&window=1h&duration=10m&algorithms=fixed_window,token_bucket",
	"algorithms=sliding_log&instances=8&limit=2000&window=10s&duration=5s&latency_sweep=0:1000:250&instances_sweep=16:64:16",
)

// TestMemoryCorners: the memory estimate is within 2× of the heap runs really hold at their
// peak over memoryCorners (labtest.CheckMemoryCorners), as the work estimate is of the work
// (TestCostWithinTwice).
func TestMemoryCorners(t *testing.T) {
	heavy.Test(t)
	labtest.CheckMemoryCorners(t, func() *lab.Lab { return newRunner(defaultSlices).lab() }, testBudget, memoryCorners...)
}

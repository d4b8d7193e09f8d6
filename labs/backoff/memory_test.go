package backoff

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// memoryCorners is a grid over what the memory estimate grows with — the clients, the
// strategies (with the baseline, each its histograms), the trials and the schedule's length —
// each corner taken to the work budget (labtest.Admitted): the heaviest scenarios admitted.
var memoryCorners = labtest.Grid(
	[]string{"clients=1", "clients=1000"},
	[]string{"strategies=full", "strategies=none,constant,linear,exponential,full,equal,decorrelated"},
	[]string{"trials=1", "trials=1000"},
	[]string{"", "retries=200&sweep=10:1000:10"},
)

// TestMemoryCorners: the memory estimate is within 2× of the heap runs really hold at their
// peak over memoryCorners (labtest.CheckMemoryCorners), as the work estimate is of the work.
func TestMemoryCorners(t *testing.T) {
	heavy.Test(t)
	labtest.CheckMemoryCorners(t, func() *lab.Lab { return Lab() }, 200_000_000, memoryCorners...)
}

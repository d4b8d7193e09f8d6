package retrystorm

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// memoryCorners is a grid over what the memory estimate grows with — the policies, the
// layers, the rate and the duration, the service model — in scenarios that storm, as the
// estimate assumes they may; each corner taken to the work budget and the memory bound
// (labtest.Admitted). (Where a storm could happen and does not, the estimate is its bound,
// well above the heap: TestMemory. A service overloaded by its new requests alone — 2,000 a
// second on 1,000, in Brooker's model, with the breakers — held 17.5 MB where the estimate
// says 41.8: the breakers' bounds there are loose.)
var memoryCorners = labtest.Grid(
	[]string{"policies=retries", "policies=none,retries,circuit,throttle"},
	[]string{"layers=1", "layers=2"},
	[]string{"rate=900&duration=5m", "rate=600&duration=5m&trigger=capacity"},
	[]string{"service=queue", "service=concurrency&service_time=50ms"},
)

// TestMemoryCorners: the memory estimate is within 2× of the heap runs really hold at their
// peak over memoryCorners (labtest.CheckMemoryCorners), as the work estimate is of the work.
func TestMemoryCorners(t *testing.T) {
	heavy.Test(t)
	labtest.CheckMemoryCorners(t, func() *lab.Lab { return newRunner().lab() }, 200_000_000, memoryCorners...)
}

package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// memoryCorners is a grid over what the memory estimate grows with — the clients, the
// backends and the subset, the policies, the sweeps — each corner taken to the work budget and
// the memory bound (labtest.Admitted): the heaviest scenarios admitted there.
var memoryCorners = labtest.Grid(
	[]string{"clients=3000&backends=3000", "clients=3000&backends=300", "clients=300&backends=3000"},
	[]string{"subset=30", "subset=300"},
	[]string{"policy=round_robin", "policy=round_robin,least_loaded,weighted,random,p2c"},
	[]string{"rate=0.1&duration=1s", "rate=100&duration=2s", "duration=10s&sweep=20:300:40&load_sweep=50:150:10"},
)

// TestMemoryCorners: the memory estimate is within 2× of the heap runs really hold at their
// peak over memoryCorners (labtest.CheckMemoryCorners), as the work estimate is of the work.
func TestMemoryCorners(t *testing.T) {
	heavy.Test(t)
	labtest.CheckMemoryCorners(t, func() *lab.Lab { return newRunner().lab() }, 200_000_000, memoryCorners...)
}

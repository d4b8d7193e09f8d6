package balance_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

var sink int

// BenchmarkPick measures one pick per picker and subset size. Each picked
// request is counted active and completes after 2·size later picks, so the
// loads the pickers compare keep changing; reports and errors vary.
func BenchmarkPick(b *testing.B) {
	for _, n := range []int{10, 30, 100} {
		for _, pk := range pickers() {
			b.Run(fmt.Sprintf("%s/n=%d", pk.name, n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(9, 9))
				tab := &balance.Table{
					InFlight: make([]int, n),
					Errors:   make([]int, n),
					Reports:  make([]balance.Report, n),
				}
				for i := range n {
					tab.Errors[i] = rng.IntN(3)
					tab.Reports[i] = balance.Report{
						QPS:         100 + 50*rng.Float64(),
						EPS:         5 * rng.Float64(),
						Utilization: 0.3 + 0.5*rng.Float64(),
					}
				}
				ring := make([]int, 2*n) // requests in flight, oldest first
				for i := range ring {
					ring[i] = -1
				}
				head := 0
				b.ReportAllocs()
				for b.Loop() {
					if old := ring[head]; old >= 0 {
						tab.InFlight[old]--
					}
					i := pk.p.Pick(tab)
					tab.InFlight[i]++
					ring[head] = i
					head++
					if head == len(ring) {
						head = 0
					}
					sink = i
				}
			})
		}
	}
}

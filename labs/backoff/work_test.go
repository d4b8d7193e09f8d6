package backoff

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// BenchmarkWorkUnit runs heavy scenarios of every setting of the cost model's grid (1,000
// clients, every strategy) and reports the CPU time per unit of counted work (World.Work):
//
//	go test ./labs/backoff -run XXX -bench WorkUnit -benchtime 2x
func BenchmarkWorkUnit(b *testing.B) {
	for _, set := range costSettings {
		q := "strategies=none,constant,linear,exponential,full,equal,decorrelated&clients=1000&trials=2&sweep=off"
		if set != "" {
			q += "&" + set
		}
		b.Run(set, func(b *testing.B) {
			labtest.BenchmarkWorkUnit(b, q, func() (*lab.Lab, func() int64) {
				r := newRunner()
				return r.lab(), r.work.Load
			})
		})
	}
}

package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// BenchmarkWorkUnit runs the scenarios of the cost model's grid and reports the CPU time per
// unit of counted work:
//
//	go test ./labs/ratelimit -run XXX -bench WorkUnit -benchtime 2x
func BenchmarkWorkUnit(b *testing.B) {
	for _, q := range costScenarios {
		b.Run(q, func(b *testing.B) {
			labtest.BenchmarkWorkUnit(b, q, func() (*lab.Lab, func() int64) {
				r := newRunner(defaultSlices)
				return r.lab(), r.work.Load
			})
		})
	}
}

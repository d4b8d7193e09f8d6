package backoff

import (
	"context"
	"testing"
)

// BenchmarkWorkUnit runs heavy scenarios of every setting of the cost model's grid (1,000
// clients, every strategy) and reports the CPU time per unit of counted work (World.Work,
// what the budget counts), so that a budget in units means one amount of computing across
// the parameter space and across labs:
//
//	go test ./labs/backoff -run XXX -bench WorkUnit -benchtime 1x
func BenchmarkWorkUnit(b *testing.B) {
	for _, set := range costSettings {
		q := "strategies=none,constant,linear,exponential,full,equal,decorrelated&clients=1000&trials=2&sweep=off"
		if set != "" {
			q += "&" + set
		}
		b.Run(set, func(b *testing.B) {
			v, err := Params.ParseQuery(q)
			if err != nil {
				b.Fatal(err)
			}
			var work int64
			cpu0 := processCPU(b)
			for b.Loop() {
				r := newRunner()
				if _, err := r.lab().Execute(context.Background(), v, nil); err != nil {
					b.Fatal(err)
				}
				work += r.work.Load()
			}
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(work), "ns/unit")
			b.ReportMetric(float64(work)/float64(b.N), "units/op")
		})
	}
}

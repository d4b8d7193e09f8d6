package ratelimit

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// BenchmarkWorkUnit runs scenarios of the cost model's grid and reports the CPU time per unit
// of counted work (what the budget counts), so that a budget in units means one amount of
// computing across the parameter space and across labs:
//
//	go test ./labs/ratelimit -run XXX -bench WorkUnit -benchtime 1x
func BenchmarkWorkUnit(b *testing.B) {
	for _, q := range costScenarios {
		b.Run(q, func(b *testing.B) {
			v, err := Params.ParseQuery(q)
			if err != nil {
				b.Fatal(err)
			}
			var work int64
			cpu0 := processCPU(b)
			for b.Loop() {
				r := newRunner(defaultSlices)
				if _, err := r.lab().Execute(context.Background(), v, nil); err != nil {
					b.Fatal(err)
				}
				work += r.work.Load()
			}
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(max(work, 1)), "ns/unit")
			b.ReportMetric(float64(work)/float64(b.N), "units/op")
		})
	}
}

// processCPU returns the CPU time, user and system, the test process has used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

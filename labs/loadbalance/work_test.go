package loadbalance

import (
	"context"
	"syscall"
	"testing"
	"time"
)

// workScenarios are heavy scenarios across the parameter space, for BenchmarkWorkUnit.
var workScenarios = []string{
	"",
	"policy=round_robin,least_loaded,weighted,random,p2c&duration=2m",
	"clients=3000&backends=3000&subset=100&rate=1&duration=1m",
	"clients=3000&backends=300&subset=300&rate=2&duration=1m&policy=least_loaded,weighted",
	"subsetting=rendezvous&clients=1000&backends=1000&subset=10&duration=20s",
	"clients=1000&backends=1000&subset=1000&rate=0.1&duration=1s", // subsetting and churn only
	"rate=100&clients=300&backends=30&duration=20s",               // overloaded
	"event=abrupt_stop&event_share=0.5&duration=3m",
	"clients=30&backends=3000&subset=1000&rate=100&duration=1m&policy=least_loaded",
	"cost_spread=1000&machine_spread=4&client_spread=100&antagonists=1&duration=2m",
}

// BenchmarkWorkUnit runs heavy scenarios and reports the CPU time per unit of counted work
// (what the budget counts), so that a budget in units means one amount of computing across
// the parameter space and across labs:
//
//	go test ./labs/loadbalance -run XXX -bench WorkUnit -benchtime 2x
func BenchmarkWorkUnit(b *testing.B) {
	for _, q := range workScenarios {
		b.Run(q, func(b *testing.B) {
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
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(max(work, 1)), "ns/unit")
			b.ReportMetric(float64(work)/float64(b.N), "units/op")
			b.ReportMetric(float64(Cost(v))/(float64(work)/float64(b.N)), "estimate/real")
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

package labtest

import (
	"context"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// BenchmarkWorkUnit runs scenario query of a fresh lab b.N times and reports the CPU time per
// unit of work the lab counted (what the server's budget counts) and the units per run. fresh
// returns a lab with nothing memoised and the count of its work so far. The labs'
// BenchmarkWorkUnit call it over their cost models' grids, so that a budget in units can be
// seen to mean one amount of computing across the parameter space and across labs.
func BenchmarkWorkUnit(b *testing.B, query string, fresh func() (*lab.Lab, func() int64)) {
	b.Helper()
	var work int64
	cpu0 := ProcessCPU(b)
	for b.Loop() {
		l, counted := fresh()
		v, err := l.Params.ParseQuery(query)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := l.Execute(context.Background(), v, nil); err != nil {
			b.Fatal(err)
		}
		work += counted()
	}
	b.ReportMetric(float64((ProcessCPU(b)-cpu0).Nanoseconds())/float64(max(work, 1)), "ns/unit")
	b.ReportMetric(float64(work)/float64(b.N), "units/op")
}

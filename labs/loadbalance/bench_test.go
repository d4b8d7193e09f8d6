package loadbalance

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
)

// BenchmarkSubsetMove is what a viewer waits for after moving the subset slider at the default
// scenario: the connections histogram, the first picture of the traffic (the first
// refinement) and the final numbers. It also reports the computing per unit of the cost
// model (run with -cpu 1 for the CPU time).
func BenchmarkSubsetMove(b *testing.B) {
	rn := &runner{}
	l := rn.lab()
	var histogram, picture, final time.Duration
	for i := 0; b.Loop(); i++ {
		v, err := Params.ParseQuery(fmt.Sprintf("subset=%d", 20+i%20))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		var seenHist, seenRefine bool
		if _, err := l.Execute(context.Background(), v, func(u lab.Update) {
			if !seenHist && len(u.Series) > 0 {
				seenHist = true
				histogram += time.Since(start)
			}
			if u.Refine != nil && !seenRefine {
				seenRefine = true
				picture += time.Since(start)
			}
		}); err != nil {
			b.Fatal(err)
		}
		final += time.Since(start)
	}
	n := float64(b.N)
	b.ReportMetric(float64(histogram.Microseconds())/1e3/n, "ms-to-histogram")
	b.ReportMetric(float64(picture.Microseconds())/1e3/n, "ms-to-picture")
	b.ReportMetric(float64(final.Microseconds())/1e3/n, "ms-to-final")
	b.ReportMetric(float64(final.Nanoseconds())/float64(rn.work.Load()), "ns/unit")
}

// BenchmarkSubsets10k computes every client's subset for 10,000 clients × 10,000 backends,
// subsets of 100.
func BenchmarkSubsets10k(b *testing.B) {
	for _, name := range Subsettings {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				subsets(name, 1, 10000, 10000, 100)
			}
		})
	}
}

// BenchmarkRequest is the simulation's cost per request under each policy (two events, a
// pick, the bookkeeping), in a steady state; it allocates nothing.
func BenchmarkRequest(b *testing.B) {
	for _, policy := range Policies {
		b.Run(policy, func(b *testing.B) {
			s := mustParse(b, "clients=300&backends=300&subset=30&duration=10m&policy="+policy)
			starts, conns := subsets(s.Subsetting, s.Seed, s.Clients, s.Backends, s.Subset)
			w := NewWorld(Config{Policy: policy, Env: s.env(starts, conns)})
			ctx := context.Background()
			if err := w.Advance(ctx, 10); err != nil { // grow the queues
				b.Fatal(err)
			}
			before := w.Requests
			k := 10
			b.ReportAllocs()
			for b.Loop() {
				if w.Done() {
					b.Fatal("ran out of simulated time")
				}
				// One sampling interval per 3,000 requests or so: advance in steps of one.
				if w.Requests-before >= int64(b.N) {
					break
				}
				k++
				if err := w.Advance(ctx, k); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(max(w.Requests-before, 1)), "ns/request")
		})
	}
}

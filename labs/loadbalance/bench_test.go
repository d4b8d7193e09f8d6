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
	rn := newRunner()
	l := rn.lab()
	var histogram, picture, final time.Duration
	for i := 0; b.Loop(); i++ {
		v, err := params.ParseQuery(fmt.Sprintf("subset=%d&seed=%d", 20+i%20, 2+i)) // never from the memo
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
	for _, name := range subsettingNames {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				subsets(name, 1, 10000, 10000, 100)
			}
		})
	}
}

// BenchmarkRequest is the simulation's cost per request under each policy: two events, a pick
// and the bookkeeping, for the default scenario's 30 seconds (180,000 requests). Picks do not
// allocate (TestSteadyStateDoesNotAllocate).
func BenchmarkRequest(b *testing.B) {
	for _, policy := range policyNames {
		b.Run(policy, func(b *testing.B) {
			s := mustParse(b, "duration=30s&policy="+policy)
			starts, conns := subsets(s.Subsetting, s.Seed, s.Clients, s.Backends, s.Subset)
			env := s.env(starts, conns)
			var requests int64
			for b.Loop() {
				w := newWorld(config{Policy: policy, Env: env})
				if err := w.Advance(context.Background(), env.Samples()); err != nil {
					b.Fatal(err)
				}
				requests += w.Requests
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(requests), "ns/request")
		})
	}
}

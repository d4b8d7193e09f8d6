package subset_test

import (
	"fmt"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

var sink []int

func benchAlgorithms() []struct {
	name string
	a    subset.Algorithm
} {
	return []struct {
		name string
		a    subset.Algorithm
	}{
		{"random", &subset.Random{Seed: 1}},
		{"deterministic", &subset.Deterministic{Seed: 1}},
		{"rendezvous", subset.Rendezvous{Seed: 1}},
		{"aperture", subset.Aperture{}},
	}
}

// BenchmarkConnections subsets 10,000 clients over 10,000 backends: one op
// computes every client's subset and counts connections per backend. Size
// 97 does not divide 10,000, so the deterministic lists carry leftovers.
func BenchmarkConnections(b *testing.B) {
	const clients, backends = 10000, 10000
	for _, size := range []int{10, 97, 100} {
		for _, alg := range benchAlgorithms() {
			b.Run(fmt.Sprintf("%s/size=%d", alg.name, size), func(b *testing.B) {
				dst := make([]int, backends)
				for b.Loop() {
					dst = subset.Connections(dst, alg.a, clients, backends, size)
				}
				sink = dst
			})
		}
	}
}

// BenchmarkSubset measures one client's Subset in steady state, clients
// taken in order, over 10,000 backends with subsets of 100.
func BenchmarkSubset(b *testing.B) {
	const clients, backends, size = 10000, 10000, 100
	for _, alg := range benchAlgorithms() {
		b.Run(alg.name, func(b *testing.B) {
			dst := make([]int, 0, 2*size)
			c := 0
			b.ReportAllocs()
			for b.Loop() {
				dst = alg.a.Subset(dst, c, clients, backends, size)
				c++
				if c == clients {
					c = 0
				}
			}
			sink = dst
		})
	}
}

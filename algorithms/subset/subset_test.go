package subset_test

import (
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// Every algorithm satisfies Algorithm.
var (
	_ subset.Algorithm = (*subset.Random)(nil)
	_ subset.Algorithm = (*subset.Deterministic)(nil)
	_ subset.Algorithm = subset.Rendezvous{}
	_ subset.Algorithm = subset.Aperture{}
)

// seen and stamp let checkSubset find duplicates without allocating:
// seen[b] == stamp when b was already met in the current subset. The tests
// do not run in parallel.
var (
	seen  []int
	stamp int
)

// checkSubset fails t unless got holds want distinct backends, each in
// [0, backends).
// It calls t.Helper only on failure: the call is costly, and the
// exhaustive tests check millions of subsets.
func checkSubset(t *testing.T, got []int, want, backends int) {
	if len(got) != want {
		t.Helper()
		t.Fatalf("subset %v has %d backends, want %d", got, len(got), want)
	}
	if len(seen) < backends {
		seen = make([]int, backends)
	}
	stamp++
	for _, b := range got {
		if b < 0 || b >= backends {
			t.Helper()
			t.Fatalf("subset %v: backend %d out of [0, %d)", got, b, backends)
		}
		if seen[b] == stamp {
			t.Helper()
			t.Fatalf("subset %v holds backend %d twice", got, b)
		}
		seen[b] = stamp
	}
}

// counts returns the connections per backend for the given subsets.
func counts(subsets [][]int, backends int) []int {
	c := make([]int, backends)
	for _, s := range subsets {
		for _, b := range s {
			c[b]++
		}
	}
	return c
}

func TestConnections(t *testing.T) {
	// Client c of Aperture with one backend per client and as many clients
	// as backends gets exactly backend c.
	got := subset.Connections(nil, subset.Aperture{}, 5, 5, 1)
	if want := []int{1, 1, 1, 1, 1}; !slices.Equal(got, want) {
		t.Errorf("Connections = %v, want %v", got, want)
	}
	// dst is reused and cleared.
	dst := []int{9, 9, 9, 9, 9, 9, 9}
	got = subset.Connections(dst, subset.Aperture{}, 2, 4, 4)
	if want := []int{2, 2, 2, 2}; !slices.Equal(got, want) {
		t.Errorf("Connections with dst = %v, want %v", got, want)
	}
	if &got[0] != &dst[0] {
		t.Error("Connections did not reuse dst")
	}
	for _, tc := range []struct{ clients, backends, size int }{{0, 4, 2}, {3, 0, 2}, {3, 4, 0}, {-1, -1, -1}} {
		got := subset.Connections(nil, &subset.Deterministic{}, tc.clients, tc.backends, tc.size)
		if len(got) != max(tc.backends, 0) || slices.ContainsFunc(got, func(c int) bool { return c != 0 }) {
			t.Errorf("Connections(%d, %d, %d) = %v, want %d zeros", tc.clients, tc.backends, tc.size, got, max(tc.backends, 0))
		}
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		counts []int
		want   subset.Stats
	}{
		{nil, subset.Stats{}},
		{[]int{7}, subset.Stats{Min: 7, Max: 7, Mean: 7}},
		{[]int{1, 2, 3, 4}, subset.Stats{Min: 1, Max: 4, Mean: 2.5, StdDev: math.Sqrt(1.25)}},
		{[]int{10, 10, 10}, subset.Stats{Min: 10, Max: 10, Mean: 10}},
	}
	for _, tc := range tests {
		got := subset.Summarize(tc.counts)
		if got.Min != tc.want.Min || got.Max != tc.want.Max ||
			math.Abs(got.Mean-tc.want.Mean) > 1e-12 || math.Abs(got.StdDev-tc.want.StdDev) > 1e-12 {
			t.Errorf("Summarize(%v) = %+v, want %+v", tc.counts, got, tc.want)
		}
	}
}

// TestEdgeSizes checks the clamping of size for every algorithm.
func TestEdgeSizes(t *testing.T) {
	algs := []struct {
		name string
		a    subset.Algorithm
	}{
		{"random", &subset.Random{}},
		{"deterministic", &subset.Deterministic{}},
		{"rendezvous", subset.Rendezvous{}},
	}
	for _, alg := range algs {
		for _, tc := range []struct{ backends, size, want int }{
			{0, 3, 0}, {5, 0, 0}, {5, -2, 0}, {-3, 2, 0}, {4, 9, 4}, {4, 4, 4}, {1, 1, 1},
		} {
			got := alg.a.Subset(nil, 3, 10, tc.backends, tc.size)
			checkSubset(t, got, tc.want, tc.backends)
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Subset with client -1 did not panic", alg.name)
				}
			}()
			alg.a.Subset(nil, -1, 10, 10, 2)
		}()
	}
}

// TestNoAllocs checks that Subset allocates nothing once dst and the
// algorithm's scratch space have grown.
func TestNoAllocs(t *testing.T) {
	const clients, backends, size = 1000, 300, 7
	algs := []struct {
		name string
		a    subset.Algorithm
	}{
		{"random", &subset.Random{Seed: 1}},
		{"random/healthy", &subset.Random{Seed: 1, Healthy: func(b int) bool { return b%5 != 0 }}},
		{"deterministic", &subset.Deterministic{Seed: 1}},
		{"rendezvous", subset.Rendezvous{Seed: 1}},
		{"aperture", subset.Aperture{}},
	}
	for _, alg := range algs {
		dst := make([]int, 0, 64)
		c := 0
		dst = alg.a.Subset(dst, c, clients, backends, size) // grow scratch
		allocs := testing.AllocsPerRun(500, func() {
			c = (c + 1) % clients
			dst = alg.a.Subset(dst, c, clients, backends, size)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per Subset, want 0", alg.name, allocs)
		}
	}
	w := make([]float64, 0, 64)
	if allocs := testing.AllocsPerRun(100, func() {
		w = subset.Aperture{}.Weights(w, 17, clients, backends, size)
	}); allocs != 0 {
		t.Errorf("Aperture.Weights: %v allocations, want 0", allocs)
	}
}

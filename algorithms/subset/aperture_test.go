package subset_test

import (
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// TestApertureRing checks cases worked out by hand on the ring.
func TestApertureRing(t *testing.T) {
	tests := []struct {
		name                            string
		client, clients, backends, size int
		subset                          []int
		weights                         []float64
	}{
		// m = ⌈1·2/4⌉ = 1 client arc: each client covers half the ring.
		{"half ring/0", 0, 2, 4, 1, []int{0, 1}, []float64{.5, .5}},
		{"half ring/1", 1, 2, 4, 1, []int{2, 3}, []float64{.5, .5}},
		// m = ⌈2·3/4⌉ = 2: apertures 2/3 wide starting at 0, 1/3 and 2/3,
		// backend arcs 1/4 wide. Client 2's aperture [2/3, 4/3) covers
		// 1/12 of backend 2's arc, backends 3 and 0, and 1/12 of backend 1.
		{"3x4/0", 0, 3, 4, 2, []int{0, 1, 2}, []float64{3. / 8, 3. / 8, 1. / 4}},
		{"3x4/1", 1, 3, 4, 2, []int{1, 2, 3}, []float64{1. / 4, 3. / 8, 3. / 8}},
		{"3x4/2", 2, 3, 4, 2, []int{2, 3, 0, 1}, []float64{1. / 8, 3. / 8, 3. / 8, 1. / 8}},
		// Too few clients: the one client's aperture is the whole ring.
		{"whole ring", 0, 1, 5, 2, []int{0, 1, 2, 3, 4}, []float64{.2, .2, .2, .2, .2}},
		// m = ⌈1·11/3⌉ = 4: client 7's aperture [7/11, 1) covers 1/33 of
		// backend 1's arc [1/3, 2/3) and all of backend 2's; weights are
		// the overlaps over 4/11.
		{"11x3/7", 7, 11, 3, 1, []int{1, 2}, []float64{1. / 12, 11. / 12}},
		// m = ⌈2·11/3⌉ = 8: client 7's aperture [7/11, 15/11) starts 1/33
		// before the end of backend 1's arc and, past the end of the ring,
		// reaches 1/33 into it again: backend 1 weighs (2/33)/(8/11).
		{"11x3/7 wraps", 7, 11, 3, 2, []int{1, 2, 0}, []float64{1. / 12, 11. / 24, 11. / 24}},
	}
	for _, tc := range tests {
		s := subset.Aperture{}.Subset(nil, tc.client, tc.clients, tc.backends, tc.size)
		if !slices.Equal(s, tc.subset) {
			t.Errorf("%s: subset %v, want %v", tc.name, s, tc.subset)
		}
		w := subset.Aperture{}.Weights(nil, tc.client, tc.clients, tc.backends, tc.size)
		if len(w) != len(tc.weights) {
			t.Errorf("%s: weights %v, want %v", tc.name, w, tc.weights)
			continue
		}
		for i := range w {
			if math.Abs(w[i]-tc.weights[i]) > 1e-12 {
				t.Errorf("%s: weights %v, want %v", tc.name, w, tc.weights)
				break
			}
		}
	}
}

// TestApertureProperties checks, for every combination of up to 40
// clients and backends and every size: distinct subsets of at least size
// backends, weights adding up to 1, exactly even load (clients/backends per
// backend), no idle backend, and connection counts at most one apart.
func TestApertureProperties(t *testing.T) {
	const maxN, maxB = 40, 40
	var s []int
	var w []float64
	for n := 1; n <= maxN; n++ {
		for b := 1; b <= maxB; b++ {
			conn := make([]int, b)
			load := make([]float64, b)
			for k := 1; k <= b; k++ {
				clear(conn)
				clear(load)
				m := min((k*n+b-1)/b, n)
				arcs := (m*b + n - 1) / n // backend arcs the aperture spans, rounded up
				for c := range n {
					s = subset.Aperture{}.Subset(s, c, n, b, k)
					w = subset.Aperture{}.Weights(w, c, n, b, k)
					if len(s) < k || len(s) > min(b, arcs+1) {
						t.Fatalf("n=%d b=%d k=%d client %d: %d backends, want %d..%d", n, b, k, c, len(s), k, min(b, arcs+1))
					}
					checkSubset(t, s, len(s), b)
					if len(w) != len(s) {
						t.Fatalf("n=%d b=%d k=%d client %d: %d weights for %d backends", n, b, k, c, len(w), len(s))
					}
					sum := 0.0
					for i, x := range s {
						if !(w[i] > 0) {
							t.Fatalf("n=%d b=%d k=%d client %d: weight %v for backend %d", n, b, k, c, w[i], x)
						}
						sum += w[i]
						conn[x]++
						load[x] += w[i]
					}
					if math.Abs(sum-1) > 1e-9 {
						t.Fatalf("n=%d b=%d k=%d client %d: weights add up to %v", n, b, k, c, sum)
					}
				}
				st := subset.Summarize(conn)
				if st.Max-st.Min > 1 || st.Min < 1 {
					t.Fatalf("n=%d b=%d k=%d: connections %v", n, b, k, conn)
				}
				for x, l := range load {
					if math.Abs(l-float64(n)/float64(b)) > 1e-9 {
						t.Fatalf("n=%d b=%d k=%d: backend %d load %v, want %v", n, b, k, x, l, float64(n)/float64(b))
					}
				}
			}
		}
	}
}

func TestAperturePanics(t *testing.T) {
	for _, tc := range []struct{ client, clients int }{{3, 3}, {-1, 3}, {0, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Subset(client %d of %d) did not panic", tc.client, tc.clients)
				}
			}()
			subset.Aperture{}.Subset(nil, tc.client, tc.clients, 10, 2)
		}()
	}
}

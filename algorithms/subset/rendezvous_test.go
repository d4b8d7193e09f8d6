package subset_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// TestRendezvousRanked checks that subsets are ranked lists: the subset of
// size k is the first k backends of the subset of size k+1.
func TestRendezvousRanked(t *testing.T) {
	r := subset.Rendezvous{Seed: 1}
	for c := range 20 {
		prev := r.Subset(nil, c, 20, 50, 0)
		for k := 1; k <= 50; k++ {
			s := r.Subset(nil, c, 20, 50, k)
			checkSubset(t, s, k, 50)
			if !slices.Equal(s[:k-1], prev) {
				t.Fatalf("client %d: size %d gives %v, size %d gives %v; not a prefix", c, k-1, prev, k, s)
			}
			prev = s
		}
	}
}

// TestRendezvousRankedLarge crosses the size at which Subset stops
// keeping scores on the stack and recomputes them.
func TestRendezvousRankedLarge(t *testing.T) {
	r := subset.Rendezvous{Seed: 6}
	for c := range 5 {
		full := r.Subset(nil, c, 5, 300, 300)
		checkSubset(t, full, 300, 300)
		for k := 100; k <= 160; k++ {
			if s := r.Subset(nil, c, 5, 300, k); !slices.Equal(s, full[:k]) {
				t.Fatalf("client %d size %d: %v is not the first %d of the full ranking", c, k, s, k)
			}
		}
	}
}

// TestRendezvousStable checks gRFC A68's guarantee: when one backend is
// added or removed, every client's subset changes by at most one backend.
func TestRendezvousStable(t *testing.T) {
	const clients, backends, size = 300, 60, 10
	r := subset.Rendezvous{Seed: 2}
	changed := 0
	for c := range clients {
		before := r.Subset(nil, c, clients, backends, size)
		for _, b2 := range []int{backends + 1, backends - 1} {
			after := r.Subset(nil, c, clients, b2, size)
			gone, came := diff(before, after), diff(after, before)
			if len(gone) > 1 || len(came) > 1 || len(gone) != len(came) {
				t.Fatalf("client %d, %d → %d backends: lost %v, gained %v", c, backends, b2, gone, came)
			}
			if b2 > backends && len(came) == 1 && came[0] != backends {
				t.Fatalf("client %d gained %d, not the new backend %d", c, came[0], backends)
			}
			if b2 < backends && len(gone) == 1 && gone[0] != backends-1 {
				t.Fatalf("client %d lost %d, not the removed backend %d", c, gone[0], backends-1)
			}
			changed += len(gone)
		}
	}
	if changed == 0 {
		t.Error("no client's subset changed at all")
	}
}

// diff returns the elements of a not in b.
func diff(a, b []int) []int {
	var d []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			d = append(d, x)
		}
	}
	return d
}

// TestRendezvousKeys checks that with Keys, a client chooses the same
// backends whatever the order of the list.
func TestRendezvousKeys(t *testing.T) {
	const backends, size = 40, 6
	rng := rand.New(rand.NewPCG(3, 3))
	keys := make([]uint64, backends)
	for i := range keys {
		keys[i] = rng.Uint64()
	}
	perm := rng.Perm(backends) // position i of the new list holds backend perm[i]
	reordered := make([]uint64, backends)
	for i, p := range perm {
		reordered[i] = keys[p]
	}
	a := subset.Rendezvous{Seed: 4, Keys: keys}
	b := subset.Rendezvous{Seed: 4, Keys: reordered}
	for c := range 30 {
		x := a.Subset(nil, c, 30, backends, size)
		y := b.Subset(nil, c, 30, backends, size)
		for i := range y {
			y[i] = perm[y[i]] // back to original positions
		}
		if !slices.Equal(x, y) {
			t.Errorf("client %d: %v in list order, %v after reordering", c, x, y)
		}
	}
}

// TestRendezvousSpread checks that rendezvous hashing, like random
// subsetting, leaves binomial spread: 300 clients, 30% of 300 backends.
func TestRendezvousSpread(t *testing.T) {
	const clients, backends, k = 300, 300, 90
	s := subset.Summarize(subset.Connections(nil, subset.Rendezvous{Seed: 5}, clients, backends, k))
	cv, want := s.StdDev/s.Mean, binomialCV(clients, float64(k)/backends)
	if cv < 0.7*want || cv > 1.3*want {
		t.Errorf("relative spread %.3f, binomial prediction %.3f", cv, want)
	}
}

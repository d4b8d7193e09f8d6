package subset_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
	"github.com/resilience-playground/playground/internal/heavy"
)

// TestDeterministicEven checks the promise for every combination of up to
// 60 clients and 60 backends and every subset size: each client gets size
// distinct backends, and each backend gets ⌊N·k/B⌋ or ⌈N·k/B⌉ connections.
// One Deterministic serves all client counts for a (backends, size), so the
// test also covers going back to client 0.
func TestDeterministicEven(t *testing.T) {
	heavy.Test(t) // every subset size of up to 60 backends
	const maxN, maxB = 60, 60
	subsets := make([][]int, maxN)
	for b := 1; b <= maxB; b++ {
		for k := 1; k <= b; k++ {
			d := &subset.Deterministic{Seed: uint64(b*1000 + k)}
			for n := 1; n <= maxN; n++ {
				for c := range n {
					subsets[c] = d.Subset(subsets[c], c, n, b, k)
					checkSubset(t, subsets[c], k, b)
				}
				checkEven(t, counts(subsets[:n], b), n, b, k)
				if t.Failed() {
					t.Fatalf("clients=%d backends=%d size=%d", n, b, k)
				}
			}
		}
	}
}

// checkEven fails t unless every count is ⌊n·k/b⌋ or ⌈n·k/b⌉.
func checkEven(t *testing.T, counts []int, n, b, k int) {
	t.Helper()
	lo := n * k / b
	hi := (n*k + b - 1) / b
	for i, c := range counts {
		if c < lo || c > hi {
			t.Errorf("clients=%d backends=%d size=%d: backend %d has %d connections, want %d..%d (all: %v)",
				n, b, k, i, c, lo, hi, counts)
			return
		}
	}
}

// TestDeterministicEvenLarge samples larger combinations.
func TestDeterministicEvenLarge(t *testing.T) {
	heavy.Test(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for range 150 {
		b := 1 + rng.IntN(700)
		k := 1 + rng.IntN(b)
		n := 1 + rng.IntN(1500)
		d := &subset.Deterministic{Seed: rng.Uint64()}
		var s []int
		conn := make([]int, b)
		for c := range n {
			s = d.Subset(s, c, n, b, k)
			checkSubset(t, s, k, b)
			for _, x := range s {
				conn[x]++
			}
		}
		checkEven(t, conn, n, b, k)
	}
}

// chapterLists are the three shuffled lists of 12 backends the chapter
// prints for rounds 0, 1 and 2 of its example (subset size 3, 10 clients).
var chapterLists = [][]int{
	{0, 6, 3, 5, 1, 7, 11, 9, 2, 4, 8, 10},
	{8, 11, 4, 0, 5, 6, 10, 3, 2, 7, 9, 1},
	{8, 3, 7, 2, 1, 4, 9, 10, 6, 5, 0, 11},
}

// TestDeterministicChapterExample replays the chapter's example with its
// shuffled lists: 12 backends, subset size 3, so 4 subsets per round, and
// 10 clients. Client c takes subset c mod 4 of round c / 4's list, and every
// backend ends up with 2 or 3 clients.
func TestDeterministicChapterExample(t *testing.T) {
	d := &subset.Deterministic{Shuffle: func(round int, list []int) {
		copy(list, chapterLists[round])
	}}
	const clients, backends, size = 10, 12, 3
	var got [][]int
	for c := range clients {
		s := d.Subset(nil, c, clients, backends, size)
		list := chapterLists[c/4]
		if want := list[c%4*3 : c%4*3+3]; !slices.Equal(s, want) {
			t.Errorf("client %d: subset %v, want Subset[%d] of round %d = %v", c, s, c%4, c/4, want)
		}
		got = append(got, s)
	}
	for b, n := range counts(got, backends) {
		if n != 2 && n != 3 {
			t.Errorf("backend %d has %d clients, want 2 or 3", b, n)
		}
	}
}

// TestDeterministicChapter300 reproduces the chapter's figure: 300 clients
// each connecting to 10 of 300 backends give every backend exactly 10
// connections.
func TestDeterministicChapter300(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42} {
		conn := subset.Connections(nil, &subset.Deterministic{Seed: seed}, 300, 300, 10)
		if s := subset.Summarize(conn); s.Min != 10 || s.Max != 10 {
			t.Errorf("seed %d: connections per backend from %d to %d, want exactly 10", seed, s.Min, s.Max)
		}
	}
}

// chapterSubset is the chapter's Subset function, with shuffled(round)
// standing for seeding the random generator with round and shuffling.
func chapterSubset(shuffled func(round int) []int, client, backends, size int) []int {
	count := backends / size
	round := client / count
	id := client % count
	start := id * size
	return shuffled(round)[start : start+size]
}

// seededShuffle shuffles list with math/rand/v2 seeded by round, the test's
// stand-in for the chapter's random.seed(round); random.shuffle(backends).
func seededShuffle(round int, list []int) {
	rand.New(rand.NewPCG(99, uint64(round))).Shuffle(len(list), func(i, j int) {
		list[i], list[j] = list[j], list[i]
	})
}

func shuffledList(backends int) func(round int) []int {
	return func(round int) []int {
		list := make([]int, backends)
		for i := range list {
			list[i] = i
		}
		seededShuffle(round, list)
		return list
	}
}

// TestDeterministicMatchesChapterCode checks that when size divides
// backends, Deterministic computes what the chapter's code computes with
// the same shuffles.
func TestDeterministicMatchesChapterCode(t *testing.T) {
	for _, tc := range []struct{ clients, backends, size int }{
		{10, 12, 3}, {300, 300, 10}, {50, 20, 20}, {7, 9, 1}, {100, 60, 6},
	} {
		d := &subset.Deterministic{Shuffle: seededShuffle}
		list := shuffledList(tc.backends)
		for c := range tc.clients {
			got := d.Subset(nil, c, tc.clients, tc.backends, tc.size)
			if want := chapterSubset(list, c, tc.backends, tc.size); !slices.Equal(got, want) {
				t.Fatalf("%+v client %d: %v, chapter's code gives %v", tc, c, got, want)
			}
		}
	}
}

// TestChapterCodeUneven shows why Deterministic departs from the chapter's
// code: when size does not divide backends, each round of the code leaves
// backends mod size backends out, and the counts drift apart by more than
// one, while Deterministic stays within one.
func TestChapterCodeUneven(t *testing.T) {
	const clients, backends, size = 300, 10, 3
	list := shuffledList(backends)
	var code [][]int
	for c := range clients {
		code = append(code, chapterSubset(list, c, backends, size))
	}
	if s := subset.Summarize(counts(code, backends)); s.Max-s.Min <= 1 {
		t.Errorf("chapter's code: counts from %d to %d; expected a drift beyond one", s.Min, s.Max)
	}
	d := &subset.Deterministic{Shuffle: seededShuffle}
	if s := subset.Summarize(subset.Connections(nil, d, clients, backends, size)); s.Max-s.Min > 1 {
		t.Errorf("Deterministic: counts from %d to %d, want at most one apart", s.Min, s.Max)
	}
}

// TestDeterministicAnyOrder checks that a client's subset does not depend
// on which clients were asked for before: in order, in reverse, in random
// order and by a fresh Deterministic each time.
func TestDeterministicAnyOrder(t *testing.T) {
	for _, tc := range []struct{ clients, backends, size int }{
		{60, 17, 5}, {40, 7, 6}, {30, 100, 33}, {25, 12, 3},
	} {
		want := make([][]int, tc.clients)
		d := &subset.Deterministic{Seed: 3}
		for c := range tc.clients {
			want[c] = d.Subset(nil, c, tc.clients, tc.backends, tc.size)
		}
		orders := map[string][]int{"reverse": nil, "random": nil}
		for c := tc.clients - 1; c >= 0; c-- {
			orders["reverse"] = append(orders["reverse"], c)
		}
		orders["random"] = rand.New(rand.NewPCG(1, 1)).Perm(tc.clients)
		for name, order := range orders {
			d := &subset.Deterministic{Seed: 3}
			for _, c := range order {
				if got := d.Subset(nil, c, tc.clients, tc.backends, tc.size); !slices.Equal(got, want[c]) {
					t.Errorf("%+v %s: client %d gets %v, in order %v", tc, name, c, got, want[c])
				}
			}
		}
		for c := range tc.clients {
			d := &subset.Deterministic{Seed: 3}
			if got := d.Subset(nil, c, tc.clients, tc.backends, tc.size); !slices.Equal(got, want[c]) {
				t.Errorf("%+v fresh: client %d gets %v, in order %v", tc, c, got, want[c])
			}
		}
		// Changing Seed on the same value is noticed.
		d.Seed = 4
		other := d.Subset(nil, 0, tc.clients, tc.backends, tc.size)
		d.Seed = 3
		if got := d.Subset(nil, 0, tc.clients, tc.backends, tc.size); !slices.Equal(got, want[0]) {
			t.Errorf("%+v: after a seed change and back, client 0 gets %v, want %v (seed 4 gave %v)", tc, got, want[0], other)
		}
	}
}

// TestDeterministicSeeds checks that seeds matter and that a round's list
// is shuffled: consecutive clients do not get consecutive backends.
func TestDeterministicSeeds(t *testing.T) {
	a := (&subset.Deterministic{Seed: 1}).Subset(nil, 0, 1, 1000, 10)
	b := (&subset.Deterministic{Seed: 2}).Subset(nil, 0, 1, 1000, 10)
	if slices.Equal(a, b) {
		t.Errorf("seeds 1 and 2 give the same subset %v", a)
	}
	sorted := slices.Sorted(slices.Values(a))
	if sorted[len(sorted)-1]-sorted[0] == len(a)-1 {
		t.Errorf("subset %v is a run of consecutive backends; the list was not shuffled", a)
	}
}

package engine_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/engine"
)

type streamKey struct {
	seed uint64
	c    engine.Concern
	a, b uint64
}

func draws(r *rand.Rand, n int) []uint64 {
	out := make([]uint64, n)
	for i := range out {
		out[i] = r.Uint64()
	}
	return out
}

func TestStreamDeterministic(t *testing.T) {
	keys := []streamKey{
		{0, engine.Network, 0, 0},
		{1, engine.Jitter, 2, 3},
		{42, engine.Arrivals, 1 << 40, 7},
		{^uint64(0), engine.Costs, ^uint64(0), ^uint64(0)},
		{7, engine.Choices, 0, 1},
		{7, engine.Concern(1000), 5, 5}, // a lab's own concern
	}
	for _, k := range keys {
		x := draws(engine.NewStream(k.seed, k.c, k.a, k.b), 200)
		y := draws(engine.NewStream(k.seed, k.c, k.a, k.b), 200)
		if !slices.Equal(x, y) {
			t.Errorf("%+v: two streams from the same inputs differ", k)
		}
	}
}

// TestStreamGolden pins the start of a few streams: shared URLs must keep reproducing the same
// numbers, so these values must never change.
func TestStreamGolden(t *testing.T) {
	tests := []struct {
		streamKey
		want [3]uint64
	}{
		{streamKey{0, engine.Network, 0, 0}, [3]uint64{0x807e93b2f9731b7e, 0x79dd2d7eb41bc859, 0xc02ce471ab11f473}},
		{streamKey{42, engine.Jitter, 3, 7}, [3]uint64{0xd23d5c9f935aefff, 0x5bbe78b38dbbc1fd, 0x52f89a8d39cf962b}},
		{streamKey{1 << 63, engine.Choices, ^uint64(0), 1}, [3]uint64{0xa3c1938b2a3957e5, 0xb29f62c5f74c6e04, 0x8eee4fd23d316662}},
	}
	for _, tc := range tests {
		k := tc.streamKey
		got := draws(engine.NewStream(k.seed, k.c, k.a, k.b), 3)
		if !slices.Equal(got, tc.want[:]) {
			t.Errorf("%+v: first draws = %#x, want %#x", k, got, tc.want)
		}
	}
}

func TestStreamChangesWithEachInput(t *testing.T) {
	base := streamKey{42, engine.Network, 7, 9}
	tests := []struct {
		name string
		k    streamKey
	}{
		{"seed+1", streamKey{43, engine.Network, 7, 9}},
		{"seed high bit", streamKey{42 | 1<<63, engine.Network, 7, 9}},
		{"seed zero", streamKey{0, engine.Network, 7, 9}},
		{"concern Jitter", streamKey{42, engine.Jitter, 7, 9}},
		{"concern Arrivals", streamKey{42, engine.Arrivals, 7, 9}},
		{"concern Costs", streamKey{42, engine.Costs, 7, 9}},
		{"concern Choices", streamKey{42, engine.Choices, 7, 9}},
		{"concern zero", streamKey{42, 0, 7, 9}},
		{"a+1", streamKey{42, engine.Network, 8, 9}},
		{"a zero", streamKey{42, engine.Network, 0, 9}},
		{"a high bit", streamKey{42, engine.Network, 7 | 1<<63, 9}},
		{"b+1", streamKey{42, engine.Network, 7, 10}},
		{"b zero", streamKey{42, engine.Network, 7, 0}},
		{"b high bit", streamKey{42, engine.Network, 7, 9 | 1<<63}},
		{"a and b swapped", streamKey{42, engine.Network, 9, 7}},
	}
	want := draws(engine.NewStream(base.seed, base.c, base.a, base.b), 8)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := draws(engine.NewStream(tc.k.seed, tc.k.c, tc.k.a, tc.k.b), 8)
			for i := range got {
				if got[i] == want[i] {
					t.Errorf("%+v vs %+v: draw %d is equal (%#x)", tc.k, base, i, got[i])
				}
			}
		})
	}
}

// TestStreamNearbyInputsAreDistinct checks that a grid of nearby keys, as a lab would use for
// trials and actors, gives pairwise different streams.
func TestStreamNearbyInputsAreDistinct(t *testing.T) {
	seen := make(map[uint64]streamKey)
	for _, seed := range []uint64{0, 1, 2, ^uint64(0)} {
		for c := engine.Concern(0); c <= 5; c++ {
			for a := uint64(0); a < 16; a++ {
				for b := uint64(0); b < 16; b++ {
					k := streamKey{seed, c, a, b}
					x := engine.NewStream(seed, c, a, b).Uint64()
					if prev, dup := seen[x]; dup {
						t.Fatalf("%+v and %+v start with the same draw %#x", prev, k, x)
					}
					seen[x] = k
				}
			}
		}
	}
}

func TestSeedMatchesNewStream(t *testing.T) {
	keys := []streamKey{
		{0, engine.Network, 0, 0},
		{42, engine.Jitter, 3, 7},
		{^uint64(0), engine.Choices, 1 << 63, ^uint64(0)},
	}
	p := new(engine.Source) // an existing generator, part-way through its own stream
	engine.Seed(p, 123, engine.Costs, 4, 5)
	r := rand.New(p)
	r.Uint64()
	r.Uint64()
	var zero engine.Source
	for _, k := range keys {
		want := draws(engine.NewStream(k.seed, k.c, k.a, k.b), 100)

		engine.Seed(p, k.seed, k.c, k.a, k.b)
		if got := draws(r, 100); !slices.Equal(got, want) {
			t.Errorf("%+v: Seed on a used Source differs from NewStream", k)
		}
		engine.Seed(p, k.seed, k.c, k.a, k.b) // reseeding rewinds to the start again
		if got := draws(r, 100); !slices.Equal(got, want) {
			t.Errorf("%+v: second Seed on the same Source differs from NewStream", k)
		}
		engine.Seed(&zero, k.seed, k.c, k.a, k.b)
		if got := draws(rand.New(&zero), 100); !slices.Equal(got, want) {
			t.Errorf("%+v: Seed on a zero Source differs from NewStream", k)
		}
	}
}

func TestSeedDoesNotAllocate(t *testing.T) {
	var p engine.Source
	trial := uint64(0)
	allocs := testing.AllocsPerRun(1000, func() {
		engine.Seed(&p, 42, engine.Network, trial, 3)
		trial++
	})
	if allocs != 0 {
		t.Errorf("Seed: %v allocs per run, want 0", allocs)
	}
}

// TestSeederMatchesSeed: a Seeder's streams are Seed's, for every key tried.
func TestSeederMatchesSeed(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, 1<<53 - 1, ^uint64(0)} {
		for _, c := range []engine.Concern{engine.Network, engine.Jitter, engine.Choices} {
			for _, a := range []uint64{0, 1, 999, 1 << 63, ^uint64(0)} {
				s := engine.NewSeeder(seed, c, a)
				for _, b := range []uint64{0, 1, 2, 500, 1 << 40, ^uint64(0)} {
					var got, want engine.Source
					s.Seed(&got, b)
					engine.Seed(&want, seed, c, a, b)
					if got != want {
						t.Fatalf("Seeder(%d, %d, %d).Seed(%d) differs from Seed", seed, c, a, b)
					}
				}
			}
		}
	}
}

package balance_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// TestRandomUniform checks that picks are uniform over the available
// backends, and reproducible from the seed.
func TestRandomUniform(t *testing.T) {
	down := []bool{false, true, false, false, false}
	tab := &balance.Table{InFlight: []int{0, 0, 9, 0, 4}, Down: down}
	const picks = 40000
	got := shares(&balance.Random{Src: rand.NewPCG(3, 4)}, tab, picks)
	for i, n := range got {
		want := picks / 4
		if down[i] {
			want = 0
		}
		if n < want*97/100 || n > want*103/100 { // sd ≈ 87 of 10000
			t.Errorf("backend %d picked %d times, want about %d: %v", i, n, want, got)
		}
	}
	again := shares(&balance.Random{Src: rand.NewPCG(3, 4)}, tab, picks)
	if !slices.Equal(got, again) {
		t.Errorf("same seed, different picks: %v and %v", got, again)
	}
}

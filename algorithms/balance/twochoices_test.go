package balance_test

import (
	"math/rand/v2"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// TestTwoChoicesRanks checks the pick frequencies by load rank. With n
// backends of distinct loads, the pair is uniform over the n(n−1)/2 pairs
// and the less loaded wins, so the backend of rank r (0 the least loaded)
// is picked with probability (n−1−r)/(n(n−1)/2): for n = 5, 4/10, 3/10,
// 2/10, 1/10 and never the most loaded.
func TestTwoChoicesRanks(t *testing.T) {
	tests := []struct {
		name string
		tab  *balance.Table
		p    *balance.TwoChoices
		want []float64
	}{
		{"active", &balance.Table{InFlight: []int{3, 7, 0, 5, 1}},
			&balance.TwoChoices{}, []float64{.2, 0, .4, .1, .3}},
		// Errors only count when asked.
		{"errors ignored", &balance.Table{InFlight: []int{3, 7, 0, 5, 1}, Errors: []int{0, 0, 9, 0, 0}},
			&balance.TwoChoices{}, []float64{.2, 0, .4, .1, .3}},
		{"errors counted", &balance.Table{InFlight: []int{3, 7, 0, 5, 1}, Errors: []int{0, 0, 9, 0, 0}},
			&balance.TwoChoices{CountErrors: true}, []float64{.3, .1, 0, .2, .4}},
		// Equal loads: the first drawn wins, which is uniform.
		{"ties", &balance.Table{InFlight: []int{2, 2, 2, 2}},
			&balance.TwoChoices{}, []float64{.25, .25, .25, .25}},
		// Down backends are left out: ranks among the three others.
		{"down", &balance.Table{InFlight: []int{3, 7, 0, 5, 1}, Down: []bool{false, true, true, false, false}},
			&balance.TwoChoices{}, []float64{1. / 3, 0, 0, 0, 2. / 3}},
	}
	const picks = 50000
	for _, tc := range tests {
		tc.p.Src = rand.NewPCG(5, 6)
		got := shares(tc.p, tc.tab, picks)
		for i, n := range got {
			f := float64(n) / picks
			if tc.want[i] == 0 && n != 0 {
				t.Errorf("%s: backend %d picked %d times, want never", tc.name, i, n)
			}
			if d := f - tc.want[i]; d < -0.01 || d > 0.01 { // sd ≤ 0.0023
				t.Errorf("%s: backend %d picked %.3f of the time, want %.3f", tc.name, i, f, tc.want[i])
			}
		}
	}
}

package balance_test

import (
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

func TestRoundRobin(t *testing.T) {
	tests := []struct {
		name string
		down []bool
		want []int
	}{
		{"all up", nil, []int{0, 1, 2, 3, 0, 1, 2, 3, 0}},
		{"skips down", []bool{false, true, false, true}, []int{0, 2, 0, 2, 0}},
		{"first down", []bool{true, false, false, false}, []int{1, 2, 3, 1, 2}},
	}
	for _, tc := range tests {
		rr := &balance.RoundRobin{}
		tab := &balance.Table{InFlight: []int{9, 0, 5, 1}, Down: tc.down}
		var got []int
		for range tc.want {
			got = append(got, rr.Pick(tab))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: picks %v, want %v", tc.name, got, tc.want)
		}
	}
}

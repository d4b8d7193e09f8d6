package balance_test

import (
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

func TestWeight(t *testing.T) {
	tests := []struct {
		r       balance.Report
		penalty float64
		want    float64
	}{
		{balance.Report{QPS: 100, Utilization: 0.5}, 1, 200},
		{balance.Report{QPS: 100, Utilization: 1}, 1, 100},
		// eps/qps = 0.5 counts as 0.5 more utilisation at penalty 1.
		{balance.Report{QPS: 100, EPS: 50, Utilization: 0.5}, 1, 100},
		{balance.Report{QPS: 100, EPS: 50, Utilization: 0.5}, 2, 100 / 1.5},
		{balance.Report{QPS: 100, EPS: 50, Utilization: 0.5}, 0, 200},
		// No usable report.
		{balance.Report{}, 1, 0},
		{balance.Report{QPS: 100}, 1, 0},
		{balance.Report{Utilization: 0.5}, 1, 0},
		{balance.Report{QPS: -1, Utilization: 0.5}, 1, 0},
		{balance.Report{QPS: math.NaN(), Utilization: 0.5}, 1, 0},
		{balance.Report{QPS: math.Inf(1), Utilization: 0.5}, 1, 0},
		{balance.Report{QPS: 100, Utilization: math.NaN()}, 1, 0},
		// Negative inputs count as 0.
		{balance.Report{QPS: 100, EPS: 50, Utilization: 0.5}, -3, 200},
		{balance.Report{QPS: 100, EPS: -50, Utilization: 0.5}, 1, 200},
	}
	for _, tc := range tests {
		if got := balance.Weight(tc.r, tc.penalty); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Weight(%+v, %v) = %v, want %v", tc.r, tc.penalty, got, tc.want)
		}
	}
}

// reports returns reports whose weights (at any penalty, without errors)
// are the given numbers: QPS w at full utilisation.
func reports(w ...float64) []balance.Report {
	r := make([]balance.Report, len(w))
	for i, x := range w {
		r[i] = balance.Report{QPS: x, Utilization: 1}
	}
	return r
}

// TestWeightedSmooth checks the order of nginx's smooth weighted round
// robin: weights 5, 1, 1 give a a b a c a a.
func TestWeightedSmooth(t *testing.T) {
	tab := &balance.Table{InFlight: make([]int, 3), Reports: reports(5, 1, 1)}
	w := &balance.Weighted{}
	var got []int
	for range 14 {
		got = append(got, w.Pick(tab))
	}
	if want := []int{0, 0, 1, 0, 2, 0, 0, 0, 0, 1, 0, 2, 0, 0}; !slices.Equal(got, want) {
		t.Errorf("picks %v, want %v", got, want)
	}
}

// shares returns how many of picks picks go to each backend.
func shares(p balance.Picker, v balance.View, picks int) []int {
	c := make([]int, v.Len())
	for range picks {
		c[p.Pick(v)]++
	}
	return c
}

func TestWeightedShares(t *testing.T) {
	tests := []struct {
		name    string
		reports []balance.Report
		down    []bool
		penalty float64
		picks   int
		want    []int
	}{
		{"3:2:1", reports(600, 400, 200), nil, 1, 6000, []int{3000, 2000, 1000}},
		// The chapter: a backend reporting more utilisation for the same
		// rate of queries gets less.
		{"utilisation", []balance.Report{{QPS: 100, Utilization: 0.25}, {QPS: 100, Utilization: 0.75}}, nil, 1,
			4000, []int{3000, 1000}},
		// Failed requests are a penalty: errors at half the query rate
		// count as 0.5 more utilisation.
		{"errors", []balance.Report{{QPS: 100, Utilization: 0.5}, {QPS: 100, EPS: 50, Utilization: 0.5}}, nil, 1,
			3000, []int{2000, 1000}},
		{"errors, no penalty", []balance.Report{{QPS: 100, Utilization: 0.5}, {QPS: 100, EPS: 50, Utilization: 0.5}}, nil, 0,
			3000, []int{1500, 1500}},
		// A backend without a report weighs the mean of the others, 200.
		{"unreported", []balance.Report{{QPS: 100, Utilization: 1}, {QPS: 300, Utilization: 1}, {}}, nil, 1,
			6000, []int{1000, 3000, 2000}},
		{"none reported", make([]balance.Report, 4), nil, 1, 4000, []int{1000, 1000, 1000, 1000}},
		{"down", reports(600, 400, 200), []bool{true, false, false}, 1, 6000, []int{0, 4000, 2000}},
	}
	for _, tc := range tests {
		tab := &balance.Table{InFlight: make([]int, len(tc.reports)), Reports: tc.reports, Down: tc.down}
		got := shares(&balance.Weighted{ErrorPenalty: tc.penalty}, tab, tc.picks)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: shares %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestWeightedAdapts checks that new reports take effect at once.
func TestWeightedAdapts(t *testing.T) {
	tab := &balance.Table{InFlight: make([]int, 2), Reports: reports(100, 100)}
	w := &balance.Weighted{}
	if got := shares(w, tab, 1000); !slices.Equal(got, []int{500, 500}) {
		t.Fatalf("equal weights: %v", got)
	}
	tab.Reports = reports(400, 100)
	if got := shares(w, tab, 1000); got[0] < 790 || got[0] > 810 {
		t.Errorf("after reports change to 4:1: %v, want about [800 200]", got)
	}
}

package balance_test

import (
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// TestWeightZeroUtilisation: a backend that fails without using CPU still has a weight, set
// by its error rate; without errors, zero utilisation is no usable report.
func TestWeightZeroUtilisation(t *testing.T) {
	tests := []struct {
		r       balance.Report
		penalty float64
		want    float64
	}{
		{balance.Report{QPS: 100, EPS: 100}, 1, 100}, // every request fails: QPS/penalty
		{balance.Report{QPS: 100, EPS: 100}, 2, 50},  // a heavier penalty
		{balance.Report{QPS: 100, EPS: 50}, 1, 200},  // half fail
		{balance.Report{QPS: 100, EPS: 100}, 0, 0},   // no penalty: nothing to weigh by
		{balance.Report{QPS: 100}, 1, 0},             // neither utilisation nor errors
		{balance.Report{QPS: 100, EPS: 100, Utilization: -1}, 1, 0},
	}
	for _, tc := range tests {
		if got := balance.Weight(tc.r, tc.penalty); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Weight(%+v, %v) = %v, want %v", tc.r, tc.penalty, got, tc.want)
		}
	}
}

// TestWeightedKeepsLastWeight: a report that cannot be used (no queries in the last period)
// leaves the backend's last weight in place rather than resetting it to the mean.
func TestWeightedKeepsLastWeight(t *testing.T) {
	tab := &balance.Table{InFlight: make([]int, 3), Reports: reports(100, 300, 600)}
	w := &balance.Weighted{ErrorPenalty: 1}
	if got := shares(w, tab, 1000); !slices.Equal(got, []int{100, 300, 600}) {
		t.Fatalf("weights 1:3:6: %v", got)
	}
	tab.Reports = []balance.Report{{}, {QPS: 300, Utilization: 1}, {QPS: 600, Utilization: 1}}
	if got := shares(w, tab, 1000); !slices.Equal(got, []int{100, 300, 600}) {
		t.Errorf("after an empty report from backend 0: %v, want its last weight kept, [100 300 600]", got)
	}
}

// TestWeightedFailFast plays the loop between a client and its backends: every period the
// client makes 100 picks among five backends, and each backend then reports what it got.
// Four serve at 2.5% utilisation per request per period; one fails every request at once,
// using no CPU. Round robin would give it 20 picks a period; weighted round robin gives it
// fewer and fewer.
func TestWeightedFailFast(t *testing.T) {
	const n, picks, failing = 5, 100, 4
	tab := &balance.Table{InFlight: make([]int, n), Reports: make([]balance.Report, n)}
	w := &balance.Weighted{ErrorPenalty: 1}
	var got []int
	for range 8 {
		c := shares(w, tab, picks)
		got = append(got, c[failing])
		for i, k := range c {
			q := float64(k)
			tab.Reports[i] = balance.Report{QPS: q, Utilization: 0.025 * q}
			if i == failing {
				tab.Reports[i] = balance.Report{QPS: q, EPS: q}
			}
		}
	}
	t.Logf("picks of the fail-fast backend per period: %v (round robin: 20)", got)
	if got[0] != picks/n {
		t.Errorf("first period, before any report: %d picks, want round robin's %d", got[0], picks/n)
	}
	for k := 1; k < len(got); k++ {
		if got[k] > got[k-1] || got[k] >= picks/n {
			t.Errorf("period %d: %d picks after %d: want fewer than round robin's %d, and never more than before", k, got[k], got[k-1], picks/n)
		}
	}
	if last := got[len(got)-1]; last > 2 {
		t.Errorf("after %d periods the fail-fast backend still gets %d of %d picks", len(got), last, picks)
	}
}

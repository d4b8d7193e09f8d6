package balance_test

import (
	"math/rand/v2"
	"testing"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// Every picker satisfies Picker, and *Table satisfies View.
var (
	_ balance.Picker = (*balance.RoundRobin)(nil)
	_ balance.Picker = (*balance.LeastLoaded)(nil)
	_ balance.Picker = (*balance.Weighted)(nil)
	_ balance.Picker = (*balance.Random)(nil)
	_ balance.Picker = (*balance.TwoChoices)(nil)
	_ balance.View   = (*balance.Table)(nil)
)

// pickers returns a fresh picker of each kind, with seeded sources.
func pickers() []struct {
	name string
	p    balance.Picker
} {
	return []struct {
		name string
		p    balance.Picker
	}{
		{"roundrobin", &balance.RoundRobin{}},
		{"leastloaded", &balance.LeastLoaded{}},
		{"leastloaded/errors", &balance.LeastLoaded{CountErrors: true}},
		{"weighted", &balance.Weighted{ErrorPenalty: 1}},
		{"random", &balance.Random{Src: rand.NewPCG(1, 2)}},
		{"twochoices", &balance.TwoChoices{Src: rand.NewPCG(1, 2)}},
		{"twochoices/errors", &balance.TwoChoices{Src: rand.NewPCG(1, 2), CountErrors: true}},
	}
}

func TestTable(t *testing.T) {
	var empty balance.Table
	if empty.Len() != 0 {
		t.Errorf("empty table Len = %d", empty.Len())
	}
	bare := &balance.Table{InFlight: []int{3, 4}}
	if !bare.Available(1) || bare.RecentErrors(1) != 0 || bare.Report(1) != (balance.Report{}) || bare.Active(1) != 4 {
		t.Errorf("table with only InFlight: available %v, errors %d, report %+v, active %d",
			bare.Available(1), bare.RecentErrors(1), bare.Report(1), bare.Active(1))
	}
	full := &balance.Table{
		InFlight: []int{1, 2},
		Errors:   []int{5, 6},
		Reports:  []balance.Report{{}, {QPS: 10, EPS: 1, Utilization: 0.5}},
		Down:     []bool{true, false},
	}
	if full.Available(0) || !full.Available(1) || full.RecentErrors(1) != 6 || full.Report(1).QPS != 10 {
		t.Errorf("full table reads wrong: %+v", full)
	}
}

// TestNoneAvailable checks that every picker returns −1 for an empty
// subset or one whose backends are all down, and picks the only
// available backend when there is one.
func TestNoneAvailable(t *testing.T) {
	for _, pk := range pickers() {
		if got := pk.p.Pick(&balance.Table{}); got != -1 {
			t.Errorf("%s: Pick(empty) = %d, want -1", pk.name, got)
		}
		down := &balance.Table{InFlight: make([]int, 5), Down: []bool{true, true, true, true, true}}
		if got := pk.p.Pick(down); got != -1 {
			t.Errorf("%s: Pick(all down) = %d, want -1", pk.name, got)
		}
		one := &balance.Table{InFlight: make([]int, 5), Down: []bool{true, true, true, false, true}}
		for range 20 {
			if got := pk.p.Pick(one); got != 3 {
				t.Fatalf("%s: Pick(only 3 up) = %d, want 3", pk.name, got)
			}
		}
	}
}

// TestSkipsUnavailable checks that no picker picks a backend that is down,
// and that every picker reaches every backend that is up.
func TestSkipsUnavailable(t *testing.T) {
	down := []bool{false, true, false, false, true, true, false, false, true, false}
	for _, pk := range pickers() {
		tab := &balance.Table{InFlight: make([]int, len(down)), Down: down}
		seen := make([]int, len(down))
		for range 1000 {
			i := pk.p.Pick(tab)
			if i < 0 || down[i] {
				t.Fatalf("%s: picked %d, which is down", pk.name, i)
			}
			seen[i]++
		}
		for i, n := range seen {
			if !down[i] && n == 0 {
				t.Errorf("%s: never picked available backend %d: %v", pk.name, i, seen)
			}
		}
	}
}

// TestSubsetResize checks that pickers cope with a subset that shrinks or
// grows between picks.
func TestSubsetResize(t *testing.T) {
	for _, pk := range pickers() {
		for _, n := range []int{10, 3, 7, 1, 12} {
			tab := &balance.Table{InFlight: make([]int, n)}
			for range 15 {
				if i := pk.p.Pick(tab); i < 0 || i >= n {
					t.Fatalf("%s: picked %d of %d", pk.name, i, n)
				}
			}
		}
	}
}

// TestNoAllocs checks that picking allocates nothing once a picker's state
// has grown.
func TestNoAllocs(t *testing.T) {
	const n = 50
	tab := &balance.Table{
		InFlight: make([]int, n),
		Errors:   make([]int, n),
		Reports:  make([]balance.Report, n),
		Down:     make([]bool, n),
	}
	for i := range n {
		tab.Reports[i] = balance.Report{QPS: float64(100 + i), EPS: float64(i % 3), Utilization: 0.5}
		tab.Down[i] = i%7 == 0
	}
	for _, pk := range pickers() {
		pk.p.Pick(tab)
		allocs := testing.AllocsPerRun(1000, func() {
			i := pk.p.Pick(tab)
			tab.InFlight[i]++
			if tab.InFlight[i] > 3 {
				tab.InFlight[i] = 0
			}
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per pick, want 0", pk.name, allocs)
		}
	}
	// A nil Src uses the global source, also without allocating.
	for _, p := range []balance.Picker{&balance.Random{}, &balance.TwoChoices{}} {
		if allocs := testing.AllocsPerRun(100, func() { p.Pick(tab) }); allocs != 0 {
			t.Errorf("%T with nil Src: %v allocations per pick, want 0", p, allocs)
		}
	}
}

// viewOnly hides a *Table behind the View interface, so that pickers take
// their general path instead of reading the Table directly.
type viewOnly struct{ balance.View }

// TestTablePathMatchesView checks that every picker picks the same from a
// *Table as from the same data behind an opaque View, over random tables
// that change between picks.
func TestTablePathMatchesView(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 300 {
		n := 1 + rng.IntN(20)
		tab := &balance.Table{InFlight: make([]int, n)}
		if rng.IntN(2) == 0 {
			tab.Errors = make([]int, n)
		}
		if rng.IntN(4) > 0 {
			tab.Reports = make([]balance.Report, n)
		}
		if rng.IntN(2) == 0 {
			tab.Down = make([]bool, n)
		}
		direct, opaque := pickers(), pickers()
		for step := range 50 {
			for i := range n {
				tab.InFlight[i] = rng.IntN(5)
				if tab.Errors != nil {
					tab.Errors[i] = rng.IntN(3)
				}
				if tab.Reports != nil && rng.IntN(3) > 0 {
					tab.Reports[i] = balance.Report{QPS: float64(rng.IntN(4) * 50), EPS: float64(rng.IntN(3) * 5), Utilization: float64(rng.IntN(4)) / 4}
				}
				if tab.Down != nil {
					tab.Down[i] = rng.IntN(4) == 0
				}
			}
			for k := range direct {
				a, b := direct[k].p.Pick(tab), opaque[k].p.Pick(viewOnly{tab})
				if a != b {
					t.Fatalf("trial %d step %d %s: %d from the Table, %d from the View (%+v)", trial, step, direct[k].name, a, b, tab)
				}
			}
		}
	}
}

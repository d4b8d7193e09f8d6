package subset_test

import (
	"math"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// modulo gives client c the one backend c mod backends: a toy algorithm
// whose churn can be counted by hand.
type modulo struct{}

func (modulo) Subset(dst []int, client, clients, backends, size int) []int {
	dst = dst[:0]
	if backends > 0 && size > 0 {
		dst = append(dst, client%backends)
	}
	return dst
}

// TestMeasureChurnCounts checks the counting on the toy algorithm: with 10
// clients, going from 4 to 5 backends changes the backend of clients 4 to
// 9 (c mod 4 ≠ c mod 5), and going to 3 that of clients 3 to 9.
func TestMeasureChurnCounts(t *testing.T) {
	tests := []struct {
		change subset.Change
		want   subset.Churn
	}{
		{subset.AddClient, subset.Churn{Added: 1}},
		{subset.RemoveClient, subset.Churn{Removed: 1}},
		{subset.AddBackend, subset.Churn{Added: 6, Removed: 6}},
		{subset.RemoveBackend, subset.Churn{Added: 7, Removed: 7}},
	}
	for _, tc := range tests {
		if got := subset.MeasureChurn(modulo{}, 10, 4, 1, tc.change); got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.change, got, tc.want)
		}
	}
	if got := subset.MeasureChurn(modulo{}, 0, 4, 1, subset.RemoveClient); got != (subset.Churn{}) {
		t.Errorf("removing a client from none: %+v", got)
	}
	if got := subset.MeasureChurn(modulo{}, 3, 0, 1, subset.RemoveBackend); got != (subset.Churn{}) {
		t.Errorf("removing a backend from none: %+v", got)
	}
	if got := subset.MeasureChurn(modulo{}, 3, 1, 1, subset.RemoveBackend); got != (subset.Churn{Removed: 3}) {
		t.Errorf("removing the only backend: %+v, want all 3 connections removed", got)
	}
	if s := subset.Change(9).String(); s != "Change(9)" {
		t.Errorf("String of an unknown change = %q", s)
	}
}

// TestChurn checks each algorithm's churn against what its construction
// implies.
func TestChurn(t *testing.T) {
	type algs struct {
		random, deterministic, rendezvous, aperture subset.Churn
	}
	for _, cfg := range []struct{ clients, backends, size int }{
		{1000, 100, 10}, {300, 300, 10}, {500, 37, 5},
	} {
		n, b, k := cfg.clients, cfg.backends, cfg.size
		measure := func(ch subset.Change) algs {
			return algs{
				random:        subset.MeasureChurn(&subset.Random{Seed: 1}, n, b, k, ch),
				deterministic: subset.MeasureChurn(&subset.Deterministic{Seed: 1}, n, b, k, ch),
				rendezvous:    subset.MeasureChurn(subset.Rendezvous{Seed: 1}, n, b, k, ch),
				aperture:      subset.MeasureChurn(subset.Aperture{}, n, b, k, ch),
			}
		}
		// Subsets that do not depend on the number of clients: a client
		// joining or leaving changes its own connections only.
		add, remove := measure(subset.AddClient), measure(subset.RemoveClient)
		for name, got := range map[string][2]subset.Churn{
			"random":        {add.random, remove.random},
			"deterministic": {add.deterministic, remove.deterministic},
			"rendezvous":    {add.rendezvous, remove.rendezvous},
		} {
			if got[0] != (subset.Churn{Added: k}) || got[1] != (subset.Churn{Removed: k}) {
				t.Errorf("%v %s: adding a client %+v, removing one %+v; want only its %d connections",
					cfg, name, got[0], got[1], k)
			}
		}
		if add.aperture.Added < k {
			t.Errorf("%v aperture: adding a client adds %d connections, fewer than its own %d", cfg, add.aperture.Added, k)
		}

		for _, ch := range []struct {
			change subset.Change
			after  int // backends after the change
		}{{subset.AddBackend, b + 1}, {subset.RemoveBackend, b - 1}} {
			got := measure(ch.change)
			t.Logf("%v %s: random %d, deterministic %d, rendezvous %d, aperture %d (of %d connections)",
				cfg, ch.change, got.random.Total(), got.deterministic.Total(),
				got.rendezvous.Total(), got.aperture.Total(), n*k)
			// Rendezvous: a subset changes when the new backend outranks
			// its lowest member (probability k/(B+1)), or when it held
			// the removed backend (k/B); each change is one swap.
			// The number of subsets that change is binomial; allow four
			// standard deviations.
			p := float64(k) / float64(max(b, ch.after))
			want, sd := 2*float64(n)*p, 2*math.Sqrt(float64(n)*p*(1-p))
			if r := got.rendezvous; r.Added != r.Removed || math.Abs(float64(r.Total())-want) > 4*sd {
				t.Errorf("%v rendezvous %s: %+v, want %.0f ± %.0f in all, half added", cfg, ch.change, r, want, 4*sd)
			}
			// Random and deterministic: the shuffles depend on B, so most
			// subsets change.
			for name, c := range map[string]subset.Churn{"random": got.random, "deterministic": got.deterministic} {
				if c.Total() < n*k/2 {
					t.Errorf("%v %s %s: only %d of %d connections change", cfg, name, ch.change, c.Total(), n*k)
				}
			}
			if b >= 4*k && !(got.rendezvous.Total() < got.aperture.Total() && got.aperture.Total() < got.deterministic.Total()) {
				t.Errorf("%v %s: want rendezvous (%d) < aperture (%d) < deterministic (%d)", cfg, ch.change,
					got.rendezvous.Total(), got.aperture.Total(), got.deterministic.Total())
			}
		}
	}
}

package subset_test

import (
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// TestFailBackendCounts: on the toy algorithm, which cannot replace a backend, the failure
// of the last of 4 backends closes the connections of clients 3 and 7 and opens none.
func TestFailBackendCounts(t *testing.T) {
	if got := subset.MeasureChurn(modulo{}, 10, 4, 1, subset.FailBackend); got != (subset.Churn{Removed: 2}) {
		t.Errorf("fail-backend: %+v, want {Removed: 2}", got)
	}
	if got := subset.MeasureChurn(modulo{}, 10, 0, 1, subset.FailBackend); got != (subset.Churn{}) {
		t.Errorf("fail-backend with no backends: %+v", got)
	}
	if s := subset.FailBackend.String(); s != "fail-backend" {
		t.Errorf("String = %q", s)
	}
}

// TestFailBackendChurn: a failure is not a resize. Random and rendezvous subsetting replace
// the failed backend in the subsets that held it and change nothing else (the chapter: a
// client that skips unhealthy backends in its shuffled list copes with restarts and
// failures); deterministic and aperture subsets keep their members and lose the failed one.
// A resize of the backend job, by contrast, reshuffles random and deterministic subsets.
func TestFailBackendChurn(t *testing.T) {
	for _, cfg := range []struct{ clients, backends, size int }{{300, 300, 30}, {300, 300, 90}, {500, 37, 5}, {10, 12, 3}} {
		n, b, k := cfg.clients, cfg.backends, cfg.size
		for _, tc := range []struct {
			name     string
			a        func() subset.Algorithm
			replaces bool
		}{
			{"random", func() subset.Algorithm { return &subset.Random{Seed: 1} }, true},
			{"rendezvous", func() subset.Algorithm { return subset.Rendezvous{Seed: 1} }, true},
			{"deterministic", func() subset.Algorithm { return &subset.Deterministic{Seed: 1} }, false},
			{"aperture", func() subset.Algorithm { return subset.Aperture{} }, false},
		} {
			m := subset.Connections(nil, tc.a(), n, b, k)[b-1] // clients that had the failed backend
			want := subset.Churn{Removed: m}
			if tc.replaces {
				want.Added = m
			}
			got := subset.MeasureChurn(tc.a(), n, b, k, subset.FailBackend)
			if got != want {
				t.Errorf("%d/%d/%d %s: a failure churns %+v, want %+v (%d clients had the failed backend)", n, b, k, tc.name, got, want, m)
			}
			if n == 300 && k == 30 && tc.name != "rendezvous" && tc.name != "aperture" {
				resize := subset.MeasureChurn(tc.a(), n, b, k, subset.RemoveBackend).Total()
				t.Logf("%s at %d/%d/%d: failure %d, resize %d", tc.name, n, b, k, got.Total(), resize)
				if resize < 20*got.Total() {
					t.Errorf("%s: a resize churns %d, a failure %d: want the resize far larger", tc.name, resize, got.Total())
				}
			}
		}
	}
}

// TestRendezvousHealthy: unhealthy backends are passed over, and the subset is the top of
// the ranking among the healthy ones.
func TestRendezvousHealthy(t *testing.T) {
	const n, b, k = 50, 40, 6
	down := map[int]bool{3: true, 17: true, 39: true}
	all := subset.Rendezvous{Seed: 9}
	healthy := subset.Rendezvous{Seed: 9, Healthy: func(x int) bool { return !down[x] }}
	for c := range n {
		full := all.Subset(nil, c, n, b, b) // the whole ranking, highest first
		var want []int
		for _, x := range full {
			if !down[x] && len(want) < k {
				want = append(want, x)
			}
		}
		if got := healthy.Subset(nil, c, n, b, k); !slices.Equal(got, want) {
			t.Errorf("client %d: %v, want the first %d healthy of the ranking, %v", c, got, k, want)
		}
	}
	none := subset.Rendezvous{Healthy: func(int) bool { return false }}
	if got := none.Subset(nil, 0, 1, 10, 3); len(got) != 0 {
		t.Errorf("no healthy backend: %v", got)
	}
	two := subset.Rendezvous{Healthy: func(x int) bool { return x < 2 }}
	if got := two.Subset(nil, 0, 1, 10, 3); len(got) != 2 {
		t.Errorf("two healthy backends, subsets of 3: %v, want both", got)
	}
}

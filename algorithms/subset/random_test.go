package subset_test

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// binomialCV is the relative spread (standard deviation over mean) of a
// backend's connection count when each of n clients picks it independently
// with probability p: √(n·p·(1−p)) / (n·p).
func binomialCV(n int, p float64) float64 {
	return math.Sqrt((1 - p) / (float64(n) * p))
}

// TestRandomSpread reproduces the chapter's figures for random subsetting:
// 300 clients, 300 backends, subsets of 30% and 10%. The spread is wide at
// 30% and wider at 10%; the chapter's 75% is the size it finds fairly even.
// The relative spread follows the binomial prediction.
func TestRandomSpread(t *testing.T) {
	const clients, backends = 300, 300
	type result struct {
		stats subset.Stats
		cv    float64
	}
	res := map[int]result{}
	for _, pct := range []int{10, 30, 75} {
		k := backends * pct / 100
		s := subset.Summarize(subset.Connections(nil, &subset.Random{Seed: 20}, clients, backends, k))
		cv := s.StdDev / s.Mean
		want := binomialCV(clients, float64(k)/backends)
		if cv < 0.7*want || cv > 1.3*want {
			t.Errorf("%d%%: relative spread %.3f, binomial prediction %.3f", pct, cv, want)
		}
		if s.Mean != float64(k) {
			t.Errorf("%d%%: mean %v connections, want %d", pct, s.Mean, k)
		}
		res[pct] = result{s, cv}
		t.Logf("%d%% (%d backends): connections %d..%d, mean %.0f, sd/mean %.3f",
			pct, k, s.Min, s.Max, s.Mean, cv)
	}
	ratio := func(pct int) float64 { return float64(res[pct].stats.Max) / float64(res[pct].stats.Min) }
	if r := ratio(30); r < 1.3 {
		t.Errorf("30%%: max/min = %.2f; the chapter shows a wide spread", r)
	}
	if ratio(10) <= ratio(30) || res[10].cv <= res[30].cv {
		t.Errorf("10%% (max/min %.2f, sd/mean %.3f) should spread wider than 30%% (%.2f, %.3f)",
			ratio(10), res[10].cv, ratio(30), res[30].cv)
	}
	if res[75].cv >= res[30].cv/2 {
		t.Errorf("75%%: sd/mean %.3f, want well under 30%%'s %.3f", res[75].cv, res[30].cv)
	}
}

// TestRandomUniform checks that every ordered subset is equally likely, as
// when the whole list is shuffled: 4 backends, subsets of 2, 12 orders.
func TestRandomUniform(t *testing.T) {
	const clients, backends, size = 24000, 4, 2
	r := &subset.Random{Seed: 5}
	freq := map[[2]int]int{}
	var s []int
	for c := range clients {
		s = r.Subset(s, c, clients, backends, size)
		freq[[2]int{s[0], s[1]}]++
	}
	if len(freq) != 12 {
		t.Fatalf("%d distinct ordered subsets, want 12: %v", len(freq), freq)
	}
	for pair, n := range freq {
		if n < 1800 || n > 2200 { // expected 2000, sd 43
			t.Errorf("subset %v drawn %d times, want about 2000", pair, n)
		}
	}
}

func TestRandomHealthy(t *testing.T) {
	tests := []struct {
		name     string
		backends int
		size     int
		healthy  func(int) bool
		want     int
	}{
		{"two thirds", 30, 10, func(b int) bool { return b%3 != 0 }, 10},
		{"too few", 10, 5, func(b int) bool { return b < 3 }, 3},
		{"none", 10, 5, func(int) bool { return false }, 0},
		{"all", 10, 10, func(int) bool { return true }, 10},
	}
	for _, tc := range tests {
		r := &subset.Random{Seed: 9, Healthy: tc.healthy}
		var s []int
		for c := range 200 {
			s = r.Subset(s, c, 200, tc.backends, tc.size)
			checkSubset(t, s, tc.want, tc.backends)
			for _, b := range s {
				if !tc.healthy(b) {
					t.Fatalf("%s: client %d got unhealthy backend %d", tc.name, c, b)
				}
			}
		}
	}
}

// TestRandomFrom checks that SubsetFrom draws from the source it is given
// and that Subset uses rand.NewPCG(Seed, client).
func TestRandomFrom(t *testing.T) {
	r := &subset.Random{Seed: 11}
	for c := range 50 {
		want := r.Subset(nil, c, 50, 100, 8)
		got := r.SubsetFrom(nil, rand.NewPCG(11, uint64(c)), 100, 8)
		checkSubset(t, got, 8, 100)
		if !slices.Equal(got, want) {
			t.Fatalf("client %d: SubsetFrom(PCG(11, %d)) = %v, Subset = %v", c, c, got, want)
		}
	}
	if a, b := r.Subset(nil, 0, 2, 100, 8), r.Subset(nil, 1, 2, 100, 8); slices.Equal(a, b) {
		t.Errorf("clients 0 and 1 drew the same subset %v", a)
	}
}

package ratelimit

import (
	"fmt"
	"math"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
)

// TestEstimateErrorNoAliasing: the estimate error must not depend on whether the instants it
// averages over line up with the window or the sub-windows. Evenly spaced samples did: at a
// limit of 100 a second and load 2, a 1000-s run sampled every second, on the window
// boundaries, and read 100% for the fixed window and 0% for the sliding window, against 25.2%
// and 0.59% at 999 s; and a sweep of sub-windows dipped wherever the sample step divided
// the sub-window (k = 20, 25, 30, 40). Now neighbouring durations — a window-aligned
// duration and one a second either side — give the same error within 5%, and along the
// sweep no k's error dips more than 10% under both its neighbours' or rises as far above.
func TestEstimateErrorNoAliasing(t *testing.T) {
	heavy.Test(t)
	for _, d := range []int{250, 500, 1000, 2000} {
		errs := map[string][]float64{}
		for _, dd := range []int{d - 1, d, d + 1} {
			r := mustRun(t, fmt.Sprintf("algorithms=fixed_window,sliding_window&limit=100&load=2&duration=%ds", dd))
			for name, a := range algorithms(t, r) {
				errs[name] = append(errs[name], a.EstimateErrorPct)
			}
		}
		for name, e := range errs {
			t.Logf("%-14s at %d s ± 1 s: %.3f%% %.3f%% %.3f%%", name, d, e[0], e[1], e[2])
			lo, hi := math.Min(e[0], math.Min(e[1], e[2])), math.Max(e[0], math.Max(e[1], e[2]))
			if lo <= 0 || hi/lo > 1.05 {
				t.Errorf("%s: estimate error %.3f%%, %.3f%%, %.3f%% at %d, %d and %d s: neighbouring durations disagree by more than 5%%",
					name, e[0], e[1], e[2], d-1, d, d+1)
			}
		}
	}
	for _, q := range []string{
		"algorithms=subwindows&limit=100&load=2&duration=1000s&sweep=1:60:1",
		"algorithms=subwindows&limit=1000&window=1m&load=0.9&duration=30m&sweep=1:60:1",
	} {
		points := mustRun(t, q).Summary["subwindow_sweep"].([]SweepPoint)
		for i := 1; i+1 < len(points); i++ {
			e, a, b := points[i].EstimateErrorPct, points[i-1].EstimateErrorPct, points[i+1].EstimateErrorPct
			if e < 0.9*min(a, b) || e > 1.1*max(a, b) {
				t.Errorf("%s: k = %d: estimate error %.3f%%, its neighbours' %.3f%% and %.3f%%: a dip or a spike of more than 10%%", q, points[i].Subwindows, e, a, b)
			}
		}
	}
}

package ratelimit

import (
	"context"
	"math"
	"testing"
)

// TestSubwindowSweep: the sliding-window approximation's mean estimate error falls as its
// sub-windows grow (measured here: 0.925%, 0.466% and about 0.17% over 30 minutes), and matches the figures measured independently of this code for Poisson
// traffic at 0.9× a limit per minute: 0.94%, 0.47% and 0.17% of the limit at k = 1, 4 and 30.
func TestSubwindowSweep(t *testing.T) {
	l := Lab()
	v, err := l.Parse("algorithms=subwindows&limit=1000&window=1m&load=0.9&duration=30m&sweep=1:31:3")
	if err != nil {
		t.Fatal(err)
	}
	r, err := l.Execute(context.Background(), v, nil)
	if err != nil {
		t.Fatal(err)
	}
	points, ok := r.Summary["subwindow_sweep"].([]SweepPoint)
	if !ok || len(points) != 11 {
		t.Fatalf("summary.subwindow_sweep = %#v", r.Summary["subwindow_sweep"])
	}
	at := map[int64]float64{}
	for i, p := range points {
		at[p.Subwindows] = p.EstimateErrorPct
		t.Logf("k = %d: mean error %.3f%% of the limit, worst window %.3f× limit", p.Subwindows, p.EstimateErrorPct, p.MaxInWindowX)
		// Falling, beyond the noise of neighbouring k: below the error at k − 9.
		if i >= 3 && p.EstimateErrorPct >= points[i-3].EstimateErrorPct {
			t.Errorf("k = %d: mean error %.3f%%, not below k = %d's %.3f%%", p.Subwindows, p.EstimateErrorPct, points[i-3].Subwindows, points[i-3].EstimateErrorPct)
		}
	}
	for k, want := range map[int64]float64{1: 0.94, 4: 0.47} {
		if got := at[k]; math.Abs(got/want-1) > 0.25 {
			t.Errorf("k = %d: mean error %.3f%% of the limit, measured independently %.2f%%", k, got, want)
		}
	}
	// k = 30 is not on the sweep's grid: its own sweep.
	v30, _ := l.Parse("algorithms=subwindows&limit=1000&window=1m&load=0.9&duration=30m&sweep=30:30:1")
	r30, err := l.Execute(context.Background(), v30, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := r30.Summary["subwindow_sweep"].([]SweepPoint)[0].EstimateErrorPct; math.Abs(got/0.17-1) > 0.3 {
		t.Errorf("k = 30: mean error %.3f%% of the limit, measured independently 0.17%%", got)
	}
	// The sweep's k = 4 is the scenario's own sub-windows algorithm, on the same requests.
	if own := r.Summary["algorithms"].(map[string]AlgorithmSummary)["subwindows"].EstimateErrorPct; own != at[4] {
		t.Errorf("the scenario's subwindows (k = 4) errs %.4f%%, the sweep's k = 4 %.4f%%", own, at[4])
	}
}

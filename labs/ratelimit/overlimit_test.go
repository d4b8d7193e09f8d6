package ratelimit

import (
	"math"
	"strings"
	"testing"
)

// TestOverLimitMagnitude: over_admitted counts admissions made while the last window already
// held the limit, which says nothing of by how much or for how long the limit was exceeded.
// Beside it the summary gives the worst window (× limit) and the area between the exact count
// and the limit where the count is above it (requests × seconds), checked here against a case
// worked by hand: 100 calls 10 ms apart in the second before the one-minute boundary and 100
// in the second after it. The fixed window admits all 200; the exact count climbs from 101 to
// 200 over the second after the boundary, stays at 200 until the first calls leave the
// window 58.01 s later, and falls back to 100 over the next second: 49.5 + 5,801 + 49.5 =
// 5,900 request-seconds above the limit, for 59.99 s of the two minutes.
func TestOverLimitMagnitude(t *testing.T) {
	a := algorithms(t, mustRun(t, "algorithms=fixed_window,sliding_log&limit=100&window=1m&traffic=boundary&load=1&duration=2m"))
	fw, log := a["fixed_window"], a["sliding_log"]
	t.Logf("fixed window: %+v", fw)
	if math.Abs(fw.OverLimitRequestS-5900) > 1e-6 {
		t.Errorf("fixed window: %.6f request-seconds above the limit, want 5,900", fw.OverLimitRequestS)
	}
	if want := 100 * 59.99 / 120; math.Abs(fw.OverLimitTimePct-want) > 1e-9 {
		t.Errorf("fixed window: above the limit %.6f%% of the time, want %.6f%%", fw.OverLimitTimePct, want)
	}
	if fw.MaxInWindowX != 2 {
		t.Errorf("fixed window: worst window %.2f× the limit, want 2", fw.MaxInWindowX)
	}
	if log.OverLimitRequestS != 0 || log.OverLimitTimePct != 0 {
		t.Errorf("sliding log: %.3f request-seconds above the limit over %.3f%% of the time, want none", log.OverLimitRequestS, log.OverLimitTimePct)
	}

	// At the default scenario the fixed window admits exactly the limit in every window, and
	// about half of its admissions still come while the last window held the limit: the count
	// is of moments, not of an excess, and the magnitudes beside it are small.
	d := algorithms(t, mustRun(t, ""))["fixed_window"]
	t.Logf("default fixed window: admitted %d, admitted while full %d, worst window %.3f×, %.1f request-seconds above the limit (%.1f%% of the time)",
		d.Admitted, d.OverAdmitted, d.MaxInWindowX, d.OverLimitRequestS, d.OverLimitTimePct)
	if d.Admitted != 30000 || d.OverAdmitted < d.Admitted/4 {
		t.Errorf("default fixed window: admitted %d, %d while full: want 30,000 and a large share", d.Admitted, d.OverAdmitted)
	}
	// 30 s at a limit of 1,000 per second: a mean excess under 2% of the limit.
	if d.MaxInWindowX > 1.2 || d.OverLimitRequestS <= 0 || d.OverLimitRequestS/30 > 0.02*1000 {
		t.Errorf("default fixed window: worst window %.3f×, %.1f request-seconds above the limit: want a small excess", d.MaxInWindowX, d.OverLimitRequestS)
	}

	// The table says what the count is, and shows the magnitudes beside it.
	cols := view.Tables[0].Columns
	for i, c := range cols {
		if c.Field != "over_admitted" {
			continue
		}
		if strings.Contains(strings.ToLower(c.Label), "over-admitted") {
			t.Errorf("over_admitted is labelled %q, which reads as an excess", c.Label)
		}
		var next []string
		for _, n := range cols[i+1 : min(i+4, len(cols))] {
			next = append(next, n.Field)
		}
		if strings.Join(next, ",") != "max_in_window_x,over_limit_request_s,over_limit_time_pct" {
			t.Errorf("the columns after over_admitted are %v, want the worst window and the excess beside it", next)
		}
	}
}

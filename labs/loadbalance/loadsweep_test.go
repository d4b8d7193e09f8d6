package loadbalance

import (
	"testing"
)

// TestLoadSweepRisesSteeply: as the offered load nears 100% the queues grow and p99 rises
// steeply. Every policy's p99 grows with the load, to at least 1.5× its value at 50%, and so
// does the share of latency spent queueing. Under least-loaded, which spreads the load evenly,
// the rise is a queue's: steeper the nearer the load is to 100% (more than three times as much
// from 90% to 100% as from 50% to 60%). Round robin over random subsets of 10 overloads its
// busiest backends long before the whole does: its p99 jumps by 60–70% and then flattens,
// capped by the full queues that shed requests. The sweep's point at the scenario's own load
// is the policy's own run.
func TestLoadSweepRisesSteeply(t *testing.T) {
	r := mustRun(t, "clients=100&backends=100&subset=10&duration=30s&load_sweep=50:100:10")
	sweep, ok := r.Summary["load_sweep"].(map[string][]loadPoint)
	if !ok {
		t.Fatalf("summary.load_sweep is %T", r.Summary["load_sweep"])
	}
	own := policies(t, r)
	s := mustParse(t, "clients=100&backends=100&subset=10&duration=30s")
	for name, pts := range sweep {
		if len(pts) != 6 {
			t.Fatalf("%s: %d points, want 6 (50 to 100%%)", name, len(pts))
		}
		for i, p := range pts {
			t.Logf("%s at %3.0f%% (rate %.1f): p50 %7.1f ms, p99 %7.1f ms, %5.1f%% queueing, %.2f%% errors",
				name, p.LoadPct, p.Rate, p.LatencyP50MS, p.LatencyP99MS, p.QueuePct, p.ErrorPct)
			if i > 0 && p.QueuePct <= pts[i-1].QueuePct {
				t.Errorf("%s: queueing %.2f%% at %.0f%% load, no more than %.2f%% at %.0f%%", name, p.QueuePct, p.LoadPct, pts[i-1].QueuePct, pts[i-1].LoadPct)
			}
		}
		for i := 1; i < len(pts); i++ {
			if pts[i].LatencyP99MS < pts[i-1].LatencyP99MS {
				t.Errorf("%s: p99 %.0f ms at %.0f%% load, less than %.0f ms at %.0f%%", name, pts[i].LatencyP99MS, pts[i].LoadPct, pts[i-1].LatencyP99MS, pts[i-1].LoadPct)
			}
		}
		if pts[5].LatencyP99MS < 1.5*pts[0].LatencyP99MS {
			t.Errorf("%s: p99 %.0f ms at 50%%, %.0f ms at 100%%: want at least 1.5×", name, pts[0].LatencyP99MS, pts[5].LatencyP99MS)
		}
		low, high := pts[1].LatencyP99MS-pts[0].LatencyP99MS, pts[5].LatencyP99MS-pts[4].LatencyP99MS
		if name == "least_loaded" && high <= 3*low {
			t.Errorf("%s: p99 +%.0f ms from 50%% to 60%%, +%.0f ms from 90%% to 100%%: want the rise steeper near 100%%", name, low, high)
		}
		if got, want := pts[0].LatencyP99MS, own[name].LatencyP99MS; got != want || loadPct(s) != 50 {
			t.Errorf("%s at its own load (%.0f%%): p99 %v, the policy's own run %v", name, loadPct(s), got, want)
		}
	}
}

package ratelimit

import "testing"

// TestCASNeverOverAdmits: compare-and-swap serialises the decisions, so an exact limiter
// (the sliding log) behind it never lets more than the limit into any window — counted, as
// the limiter decides, at the moment the attempt that decided left the instance. A request
// whose swap failed decides on its retry, later than it arrived; counted by arrival, the
// same decisions seemed to over-admit (78 at 1 ms, 1,262 at 5 ms, up to 105 in a window).
func TestCASNeverOverAdmits(t *testing.T) {
	for _, lat := range []string{"1ms", "5ms", "20ms"} {
		a := algorithms(t, mustRun(t, "algorithms=sliding_log&limit=100&load=2&duration=1m&instances=4&store=cas&store_latency="+lat))
		log := a["sliding_log"]
		t.Logf("store latency %s: admitted %d, while full %d, most in a window %d, gave up %d", lat, log.Admitted, log.OverAdmitted, log.MaxInWindow, log.GaveUp)
		if log.OverAdmitted != 0 || log.MaxInWindow > 100 || log.OverLimitRequestS != 0 {
			t.Errorf("store latency %s: sliding log over compare-and-swap admitted %d while full, %d in a window: want none over the limit",
				lat, log.OverAdmitted, log.MaxInWindow)
		}
	}
}

package ratelimit

import "testing"

// TestLeakyQueueCountsDepartures: the leaky bucket as a queue admits the same requests as the
// meter, but holds them and lets them out at the leak rate. What reaches the service is what
// leaves the queue, so its exact count, its most in a window and its admitted rate are of
// departures: smoothed to the rate, where the meter passes a boundary burst straight through
// (103 of 100 in a minute) and a full bucket nearly twice the limit.
func TestLeakyQueueCountsDepartures(t *testing.T) {
	for _, tc := range []struct {
		query string
		limit int64
	}{
		{"algorithms=leaky_queue,leaky_meter&limit=100&window=1m&traffic=boundary&load=1&duration=5m", 100},
		{"algorithms=leaky_queue,leaky_meter", 1000},
		{"algorithms=leaky_queue,leaky_meter&limit=100&load=2&duration=1m&instances=4&store=cas&store_latency=1ms", 100},
	} {
		r := mustRun(t, tc.query)
		a := algorithms(t, r)
		q, m := a["leaky_queue"], a["leaky_meter"]
		t.Logf("%s: queue admitted %d, most in a window %d (meter %d of %d)", tc.query, q.Admitted, q.MaxInWindow, m.MaxInWindow, m.Admitted)
		if q.Admitted != m.Admitted {
			t.Errorf("%s: the queue admitted %d, the meter %d: want the same decisions", tc.query, q.Admitted, m.Admitted)
		}
		if q.MaxInWindow > tc.limit || q.OverAdmitted != 0 {
			t.Errorf("%s: the queue let %d out in one window (%d while full), want at most the limit %d: departures are paced",
				tc.query, q.MaxInWindow, q.OverAdmitted, tc.limit)
		}
		if m.MaxInWindow <= tc.limit {
			t.Errorf("%s: the meter admitted at most %d in a window; the scenario should show a burst", tc.query, m.MaxInWindow)
		}
		// The queue's admitted rate (departures) never exceeds the leak rate by more than one
		// request a bin.
		windowMS := r.Summary["window_ms"].(float64)
		for _, s := range r.Series {
			if s.Name != "admitted leaky_queue" || len(s.X) < 2 {
				continue
			}
			binMS := s.X[1] - s.X[0]
			most := float64(tc.limit)*binMS/windowMS + 1
			for i, y := range s.Y {
				if n := y * binMS / 1000; n > most+1e-6 {
					t.Errorf("%s: the queue let %.0f out in bin %d (at %.0f ms), the leak rate allows %.1f", tc.query, n, i, s.X[i], most)
					break
				}
			}
		}
	}
}

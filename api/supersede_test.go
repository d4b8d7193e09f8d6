package api_test

import (
	"fmt"
	"testing"
	"testing/synctest"
)

// TestDragNeverBusy: one viewer dragging a slider never hears "busy", even on a server of one
// slot whose superseded runs take a second each to stop (as a simulation between its checks
// of cancellation does): a run superseded by its viewer's newer request gives its slot back at
// once, so the viewer's next run never waits for one. Each request is sent once the run before
// it has shown its picture, as in a drag the server keeps up with; on synctest's clock the
// superseded runs are all still stopping when the next one starts.
func TestDragNeverBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(1))
		st := srv.MustDial(t, "prog", nil)
		const moves = 10
		for id := int64(1); id <= moves; id++ {
			q := fmt.Sprintf("n=%d&steps=3&picture=1&linger=1s", id)
			st.Send(id, q)
			go srv.Prog.Step(t.Context(), q, 1) // the first update: the picture
			for pictured := false; !pictured; {
				r := st.MustNext()
				switch {
				case r.Type == "busy":
					t.Fatalf("move %d: the one viewer heard busy: %+v", id, r)
				case r.Type == "error":
					t.Fatalf("move %d: %+v", id, r)
				case r.ID == id && r.Type == "frame":
					pictured = r.Refine != nil
				}
			}
		}
		if got := srv.Prog.Runs(); got != moves {
			t.Errorf("%d runs for %d moves", got, moves)
		}
		if n, _ := srv.Metric(t, `playground_runs_rejected_total{reason="busy"}`); n != 0 {
			t.Errorf("%v runs refused as busy", n)
		}
	})
}

package api_test

import (
	"encoding/json"
	"testing"

	"github.com/coder/websocket"
)

// TestWireBytes measures what a cold default run of the backoff lab moves to a browser over
// the stream — every frame of every refinement, deflated as browsers negotiate — against the
// size of the run's final result as plain JSON, and against the same stream uncompressed.
// Frames carry only what changed (each sweep point once per refinement, series names and
// points only after their first frame, the histograms and bands three times, summary.sweep
// once), so even with five refinements the deflated wire stays about the size of the final
// state's JSON. How many frames a run takes depends on how fast the machine computes (a
// frame every 33 ms at most, sweep points flushed every 100 ms): the bounds allow for a
// loaded machine; the figures are logged. Under the race detector a run is ten times slower
// and sends ten times the frames, which says nothing of the wire: CI runs it without.
func TestWireBytes(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the wire of a run at real speed: run without -race and -short (CI does)")
	}
	moved := map[bool]int64{}
	var final int
	for _, deflate := range []bool{false, true} {
		srv := MustOpenServer(t)
		opts := &websocket.DialOptions{CompressionMode: websocket.CompressionDisabled}
		if deflate {
			opts.CompressionMode = websocket.CompressionNoContextTakeover
		}
		st := srv.MustDial(t, "backoff", opts)
		before := srv.BytesRead()
		st.Send(1, "")
		_, frames, _ := st.Run(1)
		moved[deflate] = srv.BytesRead() - before
		res, body := srv.MustResult(t, "backoff", "")
		var f Fold
		for _, fr := range frames {
			f.Apply(fr)
		}
		if canon(t, f.Series) != canon(t, res.Series) || canon(t, f.Summary) != canon(t, res.Summary) {
			t.Errorf("deflate %v: the frames fold to a different result", deflate)
		}
		final = len(body)
		b, _ := json.Marshal(res)
		t.Logf("deflate %v: %d frames, %d bytes on the wire; the final result is %d bytes of JSON", deflate, len(frames), moved[deflate], len(b))
	}
	if moved[true] > int64(final)*3/2 {
		t.Errorf("a default run moves %d bytes deflated, more than 1.5 times its final result's %d", moved[true], final)
	}
	if moved[false] > int64(final)*9/2 {
		t.Errorf("a default run moves %d bytes uncompressed, more than 4.5 times its final result's %d", moved[false], final)
	}
	// The two runs may cut their frames differently (sweep points are flushed on a timer), so
	// the ratio has some slack: deflate must save at least 60%.
	if moved[true]*5 > moved[false]*2 {
		t.Errorf("deflate saves too little: %d bytes against %d", moved[true], moved[false])
	}
}

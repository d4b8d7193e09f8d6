package api_test

import (
	"encoding/json"
	"testing"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/internal/heavy"
)

// TestWireBytes streams a cold default run of the backoff lab (100 trials in five refinements:
// 1, 3, 10, 30 and 100 trials; 19 sweep points) and checks that its frames carry only what
// changed, which keeps the wire about the size of the final result whatever the machine's
// speed:
//
//   - an upserted series (a sweep point per client count) sends each point at most once per
//     refinement, and its chart, label and units only the first time;
//   - a series sent whole (the writes-over-time histograms, hundreds of bins) goes out at
//     most three times: with the first picture, when the trials have grown tenfold, and last;
//   - summary.sweep goes out once, the strategies' table once per refinement;
//   - the frames fold to the run's final result.
//
// How the updates are cut into frames depends on how fast the machine computes (at most one
// frame per interval; sweep points flushed on a timer): a slower machine sends more, smaller
// frames with the same content, a faster one merges them. So the byte counts — the run's
// bytes on the wire with permessage-deflate, as browsers negotiate it, and without, against
// its final result as plain JSON — are logged, not asserted:
//
//	go test ./api -run TestWireBytes -count=1 -v
func TestWireBytes(t *testing.T) {
	heavy.Test(t) // a default backoff run, twice
	const (
		refinements = 5  // 1, 3, 10, 30, 100 trials
		sweepPoints = 19 // sweep 10:190:10
		wholeTimes  = 3  // 1, 10, 100 trials
	)
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

		var (
			points  = map[string]int{} // points sent per upserted series
			whole   = map[string]int{} // times a series was sent whole
			labels  = map[string]int{} // times a series' chart, label or units were sent
			summary = map[string]int{} // times each summary entry was sent
		)
		for _, fr := range frames {
			for k := range fr.Summary {
				summary[k]++
			}
			for _, s := range fr.Series {
				if s.Chart != "" || s.Label != "" || s.XUnit != "" || s.YUnit != "" {
					labels[s.Name]++
				}
				if s.Upsert || s.Append {
					points[s.Name] += len(s.X)
				} else {
					whole[s.Name]++
				}
			}
		}
		for name, n := range points {
			if n > refinements*sweepPoints {
				t.Errorf("deflate %v: %s sent %d points, more than each of its %d points once per refinement", deflate, name, n, sweepPoints)
			}
			if labels[name] > 1 {
				t.Errorf("deflate %v: %s sent its chart, label or units %d times, want once", deflate, name, labels[name])
			}
		}
		for name, n := range whole {
			if n > wholeTimes {
				t.Errorf("deflate %v: %s sent whole %d times, want at most %d", deflate, name, n, wholeTimes)
			}
		}
		if summary["sweep"] != 1 || summary["strategies"] > refinements {
			t.Errorf("deflate %v: summary.sweep sent %d times (want 1), summary.strategies %d (want at most %d)",
				deflate, summary["sweep"], summary["strategies"], refinements)
		}
		if len(points) == 0 || len(whole) == 0 {
			t.Errorf("deflate %v: %d upserted and %d whole series: the run's shape changed, revise this test", deflate, len(points), len(whole))
		}
		final = len(body)
		b, _ := json.Marshal(res)
		t.Logf("deflate %v: %d frames, %d bytes on the wire (%.2f× the final result's %d bytes of JSON)",
			deflate, len(frames), moved[deflate], float64(moved[deflate])/float64(len(b)), len(b))
	}
	t.Logf("a default run moves %d bytes deflated, %d uncompressed; its final result is %d bytes; deflate saves %.0f%%",
		moved[true], moved[false], final, 100*(1-float64(moved[true])/float64(moved[false])))
}

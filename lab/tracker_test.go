package lab_test

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/lab"
)

// TestTrackerReportsDuringStage runs on synctest's fake clock: the stage starts at 0 and
// ends at 3.5 intervals, so the tracker reports as it starts and at 1, 2 and 3 intervals,
// each with the work counted by then, and never after the stage.
func TestTrackerReportsDuringStage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			reports []lab.Progress
			at      []time.Duration
			start   = time.Now()
		)
		tr := lab.NewTracker(func(u lab.Update) {
			reports = append(reports, *u.Progress)
			at = append(at, time.Since(start))
		}, 100)
		iv := lab.ProgressInterval
		err := tr.Stage("work", func() error {
			var wg sync.WaitGroup
			for _, d := range []time.Duration{iv / 2, 3 * iv / 2, 5 * iv / 2} { // workers
				wg.Go(func() {
					time.Sleep(d)
					tr.Add(25)
				})
			}
			wg.Wait()
			time.Sleep(iv)
			tr.Add(40) // past the total
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		n := len(reports)
		time.Sleep(10 * iv)
		if len(reports) != n {
			t.Errorf("%d reports after Stage returned", len(reports)-n)
		}
		want := []lab.Progress{{Done: 0, Total: 100, Stage: "work"}, {Done: 25, Total: 100, Stage: "work"},
			{Done: 50, Total: 100, Stage: "work"}, {Done: 75, Total: 100, Stage: "work"}}
		wantAt := []time.Duration{0, iv, 2 * iv, 3 * iv}
		if !slices.Equal(reports, want) || !slices.Equal(at, wantAt) {
			t.Errorf("reports %+v at %v, want %+v at %v", reports, at, want, wantAt)
		}
		if p := tr.Progress(); p.Done != 100 {
			t.Errorf("done %d, want 100 (capped at the total)", p.Done)
		}
	})
}

func TestTrackerEmitCarriesProgress(t *testing.T) {
	var got lab.Update
	tr := lab.NewTracker(func(u lab.Update) { got = u }, 10)
	tr.Add(3)
	tr.Emit(lab.Update{Summary: map[string]any{"k": 1}})
	if got.Progress == nil || got.Progress.Done != 3 || got.Summary["k"] != 1 {
		t.Errorf("emitted %+v", got)
	}
}

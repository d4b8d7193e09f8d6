package lab_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
)

func TestTrackerReportsDuringStage(t *testing.T) {
	var (
		mu      sync.Mutex
		reports []lab.Progress
		after   atomic.Bool
	)
	tr := lab.NewTracker(func(u lab.Update) {
		if after.Load() {
			t.Error("report after Stage returned")
		}
		mu.Lock()
		reports = append(reports, *u.Progress)
		mu.Unlock()
	}, 100)
	err := tr.Stage("work", func() error {
		var wg sync.WaitGroup
		for range 4 { // workers counting concurrently
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 30 {
					tr.Add(1)
					time.Sleep(3 * lab.ProgressInterval / 30)
				}
			}()
		}
		wg.Wait()
		return nil
	})
	after.Store(true)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * lab.ProgressInterval)
	mu.Lock()
	defer mu.Unlock()
	if len(reports) < 2 {
		t.Fatalf("%d progress reports during a stage of 3 intervals, want at least 2", len(reports))
	}
	for i, p := range reports {
		if p.Stage != "work" || p.Total != 100 || p.Done > p.Total || (i > 0 && p.Done < reports[i-1].Done) {
			t.Errorf("report %d: %+v", i, p)
		}
	}
	if p := tr.Progress(); p.Done != 100 {
		t.Errorf("done %d, want 100 (capped at the total)", p.Done)
	}
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

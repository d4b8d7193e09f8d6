package lab

import (
	"sync"
	"sync/atomic"
	"time"
)

// ProgressInterval is how often a Tracker reports progress while a stage runs.
const ProgressInterval = 100 * time.Millisecond

// Tracker reports a run's progress. Workers count finished units of work with Add from any
// goroutine; while a stage runs (Stage), the tracker emits the count every ProgressInterval, so
// a long stage — thousands of simulations of many clients — still shows it is moving. Emit
// serialises the run's own updates with those reports, as a Lab's emit requires.
type Tracker struct {
	emit  func(Update)
	mu    sync.Mutex
	done  atomic.Int64
	total int64
	stage string
}

// NewTracker returns a tracker for total units of work reporting through emit.
func NewTracker(emit func(Update), total int64) *Tracker {
	return &Tracker{emit: emit, total: total}
}

// Add counts n more units done.
func (t *Tracker) Add(n int64) { t.done.Add(n) }

// Progress returns the progress so far.
func (t *Tracker) Progress() *Progress {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.progress()
}

func (t *Tracker) progress() *Progress {
	return &Progress{Done: min(t.done.Load(), t.total), Total: t.total, Stage: t.stage}
}

// Emit sends u with the current progress.
func (t *Tracker) Emit(u Update) {
	t.mu.Lock()
	defer t.mu.Unlock()
	u.Progress = t.progress()
	t.emit(u)
}

// Stage runs f, reporting progress as it starts and every ProgressInterval until it returns.
// No report is sent after Stage returns.
func (t *Tracker) Stage(name string, f func() error) error {
	t.mu.Lock()
	t.stage = name
	t.mu.Unlock()
	t.Emit(Update{})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(ProgressInterval)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				t.Emit(Update{})
			}
		}
	}()
	err := f()
	close(stop)
	wg.Wait()
	return err
}

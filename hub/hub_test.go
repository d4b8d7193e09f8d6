package hub_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// fakeLab emits steps updates, one per tick of its gate channel (or at once when gate is nil),
// and counts its runs.
type fakeLab struct {
	lab.Lab
	runs atomic.Int32
	gate chan struct{}
}

func newFakeLab(steps int, gate chan struct{}) *fakeLab {
	f := &fakeLab{gate: gate}
	f.Lab = lab.Lab{
		Name:       "fake",
		Params:     param.Set{{Name: "n", Kind: param.Int, Default: "1", Min: 0, Max: 1e9}},
		Cost:       func(v param.Values) int64 { return v.Int("n") },
		CostParams: []string{"n"},
	}
	f.Lab.Run = func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
		f.runs.Add(1)
		for i := range steps {
			if f.gate != nil {
				select {
				case <-f.gate:
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			emit(lab.Update{
				Progress: &lab.Progress{Done: int64(i + 1), Total: int64(steps)},
				Series:   []lab.Series{{Name: "s", X: []float64{float64(i)}, Y: []float64{float64(v.Int("n"))}, Append: true}},
			})
		}
		return nil
	}
	return f
}

func values(tb testing.TB, l *lab.Lab, q string) param.Values {
	tb.Helper()
	v, err := l.Params.ParseQuery(q)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

func MustOpenHub(tb testing.TB, cfg hub.Config) *hub.Hub {
	tb.Helper()
	if cfg.MaxRuns == 0 {
		cfg.MaxRuns = 2
	}
	return hub.New(cfg)
}

func TestResultAndCache(t *testing.T) {
	f := newFakeLab(5, nil)
	h := MustOpenHub(t, hub.Config{CacheSize: 4})
	v := values(t, &f.Lab, "n=3")
	r1, err := h.Result(context.Background(), &f.Lab, v)
	if err != nil {
		t.Fatal(err)
	}
	if got := r1.Series[0].X; len(got) != 5 {
		t.Fatalf("series has %d points, want 5", len(got))
	}
	r2, err := h.Result(context.Background(), &f.Lab, v)
	if err != nil {
		t.Fatal(err)
	}
	if f.runs.Load() != 1 {
		t.Errorf("ran %d times; the second request should come from the cache", f.runs.Load())
	}
	if len(r2.Series[0].X) != 5 || r2.URL != "/fake?n=3" {
		t.Errorf("cached result differs: %+v", r2)
	}
}

func TestViewersShareOneRun(t *testing.T) {
	gate := make(chan struct{})
	f := newFakeLab(3, gate)
	h := MustOpenHub(t, hub.Config{})
	v := values(t, &f.Lab, "n=2")
	var wg sync.WaitGroup
	results := make([]*lab.Result, 10)
	subs := make(chan struct{}, 10)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := h.Subscribe(&f.Lab, v)
			if err != nil {
				t.Error(err)
				return
			}
			defer s.Close()
			subs <- struct{}{}
			r := lab.NewResult(&f.Lab, v)
			for {
				u, done, err := s.Next(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				r.Apply(u)
				if done {
					results[i] = r
					return
				}
			}
		}()
	}
	for range results {
		<-subs
	}
	for range 3 {
		gate <- struct{}{}
	}
	wg.Wait()
	if f.runs.Load() != 1 {
		t.Errorf("%d runs for 10 viewers of one scenario, want 1", f.runs.Load())
	}
	for i, r := range results {
		if r == nil || len(r.Series) != 1 || len(r.Series[0].X) != 3 {
			t.Errorf("viewer %d got %+v", i, r)
		}
	}
}

func TestLateViewerSeesEverything(t *testing.T) {
	gate := make(chan struct{})
	f := newFakeLab(4, gate)
	h := MustOpenHub(t, hub.Config{})
	v := values(t, &f.Lab, "n=5")
	first, err := h.Subscribe(&f.Lab, v)
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	gate <- struct{}{}
	gate <- struct{}{}
	// Wait until the first viewer has seen both updates, then join.
	seen := 0
	for seen < 2 {
		u, _, err := first.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(u.Series) > 0 {
			seen += len(u.Series[0].X)
		}
	}
	late, err := h.Subscribe(&f.Lab, v)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Close()
	gate <- struct{}{}
	gate <- struct{}{}
	r := lab.NewResult(&f.Lab, v)
	for {
		u, done, err := late.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		r.Apply(u)
		if done {
			break
		}
	}
	if got := r.Series[0].X; len(got) != 4 {
		t.Errorf("late viewer has %v, want all 4 points", got)
	}
}

func TestSlowReaderGetsMergedState(t *testing.T) {
	f := newFakeLab(1000, nil)
	h := MustOpenHub(t, hub.Config{})
	s, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Read nothing until the run is over: the mailbox holds one merged update, not 1000.
	deadline := time.Now().Add(5 * time.Second)
	for h.Running() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	u, done, err := s.Next(context.Background())
	if err != nil || !done {
		t.Fatalf("done %v err %v", done, err)
	}
	if len(u.Series) != 1 || len(u.Series[0].X) != 1000 || u.Progress.Done != 1000 {
		t.Errorf("merged update: %d series, progress %+v", len(u.Series), u.Progress)
	}
}

func TestBusyAndBudget(t *testing.T) {
	gate := make(chan struct{})
	f := newFakeLab(1, gate)
	h := MustOpenHub(t, hub.Config{MaxRuns: 1, Budget: 100})
	s, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=2")); !errors.Is(err, hub.ErrBusy) {
		t.Errorf("second scenario with one slot: err = %v, want ErrBusy", err)
	}
	// Another viewer of the running scenario is not refused.
	s2, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Errorf("joining the run in flight: %v", err)
	} else {
		s2.Close()
	}
	var pe *param.Error
	if _, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=101")); !errors.As(err, &pe) || pe.Param != "n" {
		t.Errorf("over budget: err = %v, want a *param.Error naming n", err)
	}
	gate <- struct{}{}
	if _, done, err := s.Next(context.Background()); err != nil || !waitDone(s, done) {
		t.Errorf("run did not finish: %v", err)
	}
	s.Close()
}

func waitDone(s *hub.Sub, done bool) bool {
	for !done {
		var err error
		if _, done, err = s.Next(context.Background()); err != nil {
			return false
		}
	}
	return true
}

func TestLastViewerLeavingCancels(t *testing.T) {
	gate := make(chan struct{})
	f := newFakeLab(10, gate)
	h := MustOpenHub(t, hub.Config{MaxRuns: 1})
	s, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	deadline := time.Now().Add(5 * time.Second)
	for h.Running() > 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if h.Running() != 0 {
		t.Fatal("run still in flight after its only viewer left")
	}
	// The slot is free again.
	s, err = h.Subscribe(&f.Lab, values(t, &f.Lab, "n=2"))
	if err != nil {
		t.Fatalf("slot not released: %v", err)
	}
	s.Close()
}

func TestDrain(t *testing.T) {
	gate := make(chan struct{})
	f := newFakeLab(1, gate)
	h := MustOpenHub(t, hub.Config{CacheSize: 4})
	if _, err := h.Result(context.Background(), &newFakeLab(1, nil).Lab, values(t, &f.Lab, "n=9")); err != nil {
		t.Fatal(err)
	}
	s, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	drained := make(chan struct{})
	go func() {
		h.Drain(context.Background())
		close(drained)
	}()
	for !h.Draining() {
		time.Sleep(time.Millisecond)
	}
	if _, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=2")); !errors.Is(err, hub.ErrDraining) {
		t.Errorf("new run while draining: err = %v, want ErrDraining", err)
	}
	if c, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=9")); err != nil {
		t.Errorf("cached result while draining: %v", err)
	} else {
		c.Close()
	}
	select {
	case <-drained:
		t.Fatal("Drain returned with a run in flight")
	case <-time.After(20 * time.Millisecond):
	}
	gate <- struct{}{}
	select {
	case <-drained:
	case <-time.After(5 * time.Second):
		t.Fatal("Drain did not return after the run finished")
	}
}

func TestDrainDeadlineCancels(t *testing.T) {
	f := newFakeLab(1, make(chan struct{})) // never opens
	h := MustOpenHub(t, hub.Config{})
	s, err := h.Subscribe(&f.Lab, values(t, &f.Lab, "n=1"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	h.Drain(ctx)
	_, done, err := s.Next(context.Background())
	if !done || !errors.Is(err, context.Canceled) {
		t.Errorf("after the drain deadline: done %v err %v, want the run cancelled", done, err)
	}
}

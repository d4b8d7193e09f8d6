package hub_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// The tests run in synctest bubbles: synctest.Wait returns once every goroutine of the hub is
// blocked (on a gate, a mailbox, a condition), so no test sleeps or polls.

func values(tb testing.TB, l *lab.Lab, q string) param.Values {
	tb.Helper()
	v, err := l.Params.ParseQuery(q)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// MustOpenHub returns a hub of cfg, two slots unless cfg says otherwise.
func MustOpenHub(tb testing.TB, cfg hub.Config) *hub.Hub {
	tb.Helper()
	if cfg.MaxRuns == 0 {
		cfg.MaxRuns = 2
	}
	return hub.New(cfg)
}

// MustSubscribe subscribes to scenario q of l; the subscription is closed at cleanup.
func MustSubscribe(tb testing.TB, h *hub.Hub, l *lab.Lab, q string) *hub.Sub {
	tb.Helper()
	s, err := h.Subscribe(l, values(tb, l, q))
	if err != nil {
		tb.Fatalf("Subscribe(%s?%s): %v", l.Name, q, err)
	}
	tb.Cleanup(s.Close)
	return s
}

// step lets k updates of g's run of scenario q through.
func step(tb testing.TB, g *labtest.Gated, q string, k int) {
	tb.Helper()
	if err := g.Step(context.Background(), q, k); err != nil {
		tb.Fatal(err)
	}
}

// readAll reads s until its run ends and returns the folded result and the run's error.
func readAll(tb testing.TB, l *lab.Lab, q string, s *hub.Sub) (*lab.Result, error) {
	tb.Helper()
	r := lab.NewResult(l, values(tb, l, q))
	for {
		u, done, err := s.Next(context.Background())
		if done || err != nil {
			r.Apply(u)
			return r, err
		}
		r.Apply(u)
	}
}

func points(r *lab.Result) int {
	if len(r.Series) == 0 {
		return 0
	}
	return len(r.Series[0].X)
}

func TestResultAndCache(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		h := MustOpenHub(t, hub.Config{CacheSize: 4})
		v := values(t, g.Lab, "n=3&steps=5")
		r1, err := h.Result(context.Background(), g.Lab, v)
		if err != nil {
			t.Fatal(err)
		}
		if points(r1) != 5 {
			t.Fatalf("series has %d points, want 5", points(r1))
		}
		r2, err := h.Result(context.Background(), g.Lab, v)
		if err != nil {
			t.Fatal(err)
		}
		if g.Runs() != 1 {
			t.Errorf("ran %d times; the second request should come from the cache", g.Runs())
		}
		if points(r2) != 5 || r2.URL != "/fake?n=3&steps=5" {
			t.Errorf("cached result differs: %+v", r2)
		}
	})
}

// TestCacheBoundedInBytes: the finished results kept are bounded by their size as JSON, not
// only their count: a result larger than CacheBytes is run again when asked for again, while
// smaller ones come from the cache, and each evicts the oldest when they would not fit.
func TestCacheBoundedInBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		r := mustResult(t, MustOpenHub(t, hub.Config{}), g.Lab, "n=1&steps=5")
		small, err := json.Marshal(lab.Update{Summary: r.Summary, Series: r.Series}) // as the hub keeps it
		if err != nil {
			t.Fatal(err)
		}
		// Room for two results of 5 steps, not three, and none of 1,000.
		h := MustOpenHub(t, hub.Config{CacheSize: 100, CacheBytes: int64(5 * len(small) / 2)})
		runs0 := g.Runs()
		ask := func(query string, want int) {
			t.Helper()
			mustResult(t, h, g.Lab, query)
			if got := g.Runs() - runs0; got != want {
				t.Errorf("after %s: %d runs, want %d", query, got, want)
			}
		}
		ask("n=1&steps=5", 1)
		ask("n=1&steps=5", 1) // cached
		ask("n=1&steps=1000", 2)
		ask("n=1&steps=1000", 3) // larger than the bound: not kept
		ask("n=2&steps=5", 4)
		ask("n=3&steps=5", 5) // evicts n=1, the oldest
		ask("n=2&steps=5", 5)
		ask("n=1&steps=5", 6)
	})
}

// mustResult returns the result of query on l from h.
func mustResult(tb testing.TB, h *hub.Hub, l *lab.Lab, query string) *lab.Result {
	tb.Helper()
	r, err := h.Result(context.Background(), l, values(tb, l, query))
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

func TestViewersShareOneRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{})
		results := make([]*lab.Result, 10)
		var wg sync.WaitGroup
		for i := range results {
			s := MustSubscribe(t, h, g.Lab, "n=2")
			wg.Go(func() {
				r, err := readAll(t, g.Lab, "n=2", s)
				if err != nil {
					t.Error(err)
				}
				results[i] = r
			})
		}
		step(t, g, "n=2", 3)
		wg.Wait()
		if g.Runs() != 1 {
			t.Errorf("%d runs for 10 viewers of one scenario, want 1", g.Runs())
		}
		for i, r := range results {
			if points(r) != 3 {
				t.Errorf("viewer %d got %d points, want 3", i, points(r))
			}
		}
	})
}

func TestLateViewerSeesEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{})
		MustSubscribe(t, h, g.Lab, "n=5&steps=4")
		step(t, g, "n=5&steps=4", 2)
		synctest.Wait() // both updates are in the run's state
		late := MustSubscribe(t, h, g.Lab, "n=5&steps=4")
		step(t, g, "n=5&steps=4", 2)
		r, err := readAll(t, g.Lab, "n=5&steps=4", late)
		if err != nil {
			t.Fatal(err)
		}
		if points(r) != 4 {
			t.Errorf("late viewer has %d points, want all 4", points(r))
		}
	})
}

func TestSlowReaderGetsMergedState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		h := MustOpenHub(t, hub.Config{})
		s := MustSubscribe(t, h, g.Lab, "n=1&steps=1000")
		synctest.Wait() // the run is over; its 1000 updates wait in the mailbox
		if h.Running() != 0 {
			t.Fatalf("%d runs in flight, want 0", h.Running())
		}
		u, done, err := s.Next(context.Background())
		if err != nil || !done {
			t.Fatalf("done %v err %v", done, err)
		}
		if len(u.Series) != 1 || len(u.Series[0].X) != 1000 || u.Progress.Done != 1000 {
			t.Errorf("merged update: %d series, progress %+v", len(u.Series), u.Progress)
		}
	})
}

func TestBusyAndBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 1, Budget: 100})
		s := MustSubscribe(t, h, g.Lab, "n=1&steps=1")
		if _, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=2")); !errors.Is(err, hub.ErrBusy) {
			t.Errorf("second scenario with one slot: err = %v, want ErrBusy", err)
		}
		// Another viewer of the running scenario is not refused.
		MustSubscribe(t, h, g.Lab, "n=1&steps=1")
		var pe *param.Error
		if _, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=101")); !errors.As(err, &pe) || pe.Param != "n" {
			t.Errorf("over budget: err = %v, want a *param.Error naming n", err)
		}
		step(t, g, "n=1&steps=1", 1)
		if _, err := readAll(t, g.Lab, "n=1&steps=1", s); err != nil {
			t.Errorf("run did not finish: %v", err)
		}
	})
}

func TestLastViewerLeavingCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 1})
		s, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=1&steps=10"))
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if g.Running() != 1 {
			t.Fatalf("%d runs executing, want 1", g.Running())
		}
		s.Close()
		synctest.Wait()
		if h.Running() != 0 || g.Running() != 0 {
			t.Fatalf("hub has %d runs, lab %d, after the only viewer left; want 0", h.Running(), g.Running())
		}
		// The slot is free again.
		MustSubscribe(t, h, g.Lab, "n=2")
	})
}

func TestDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		free := labtest.NewGated("fake", false)
		h := MustOpenHub(t, hub.Config{CacheSize: 4})
		if _, err := h.Result(context.Background(), free.Lab, values(t, free.Lab, "n=9")); err != nil {
			t.Fatal(err)
		}
		MustSubscribe(t, h, g.Lab, "n=1&steps=1")
		drained := make(chan struct{})
		go func() {
			h.Drain(context.Background())
			close(drained)
		}()
		synctest.Wait()
		if !h.Draining() {
			t.Fatal("not draining")
		}
		if _, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=2")); !errors.Is(err, hub.ErrDraining) {
			t.Errorf("new run while draining: err = %v, want ErrDraining", err)
		}
		MustSubscribe(t, h, g.Lab, "n=9") // a cached result is still served
		select {
		case <-drained:
			t.Fatal("Drain returned with a run in flight")
		default:
		}
		step(t, g, "n=1&steps=1", 1)
		synctest.Wait()
		select {
		case <-drained:
		default:
			t.Fatal("Drain did not return after the run finished")
		}
	})
}

func TestDrainDeadlineCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true) // never stepped
		h := MustOpenHub(t, hub.Config{})
		s := MustSubscribe(t, h, g.Lab, "n=1")
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		defer cancel()
		start := time.Now()
		h.Drain(ctx)
		if d := time.Since(start); d != 50*time.Millisecond {
			t.Errorf("Drain returned after %v, want the deadline, 50ms", d)
		}
		_, done, err := s.Next(context.Background())
		if !done || !errors.Is(err, context.Canceled) {
			t.Errorf("after the drain deadline: done %v err %v, want the run cancelled", done, err)
		}
	})
}

// ignoring is a lab whose runs ignore cancellation: each waits for one token of gate and
// returns nil, as a run does that finishes just as it is cancelled.
func ignoring(gate chan struct{}, runs *atomic.Int32) *lab.Lab {
	return &lab.Lab{
		Name:   "ignoring",
		Params: param.Set{{Name: "k", Kind: param.Int, Default: "0", Min: 0, Max: 9}},
		Run: func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
			runs.Add(1)
			<-gate
			emit(lab.Update{Summary: map[string]any{"k": v.Int("k")}})
			return nil
		},
	}
}

// TestCacheKeepsOneEntryPerKey: a run cancelled as it finished and a fresh run of the same
// scenario both store their (equal) results; the cache must hold the key once, so evicting
// the older store does not un-cache the newer.
func TestCacheKeepsOneEntryPerKey(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gate := make(chan struct{})
		var runs atomic.Int32
		l := ignoring(gate, &runs)
		h := MustOpenHub(t, hub.Config{MaxRuns: 2, CacheSize: 2})
		a, err := h.Subscribe(l, values(t, l, "k=1"))
		if err != nil {
			t.Fatal(err)
		}
		a.Close()                     // cancels the run, which ignores it
		MustSubscribe(t, h, l, "k=1") // a fresh run of the same key
		gate <- struct{}{}
		gate <- struct{}{}
		synctest.Wait()
		if runs.Load() != 2 || h.Running() != 0 {
			t.Fatalf("%d runs, %d in flight; want 2 finished", runs.Load(), h.Running())
		}
		go func() { gate <- struct{}{} }()
		if _, err := h.Result(context.Background(), l, values(t, l, "k=2")); err != nil { // evicts the oldest entry
			t.Fatal(err)
		}
		defer close(gate) // lets a run of k=1, should one start, end
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if _, err := h.Result(ctx, l, values(t, l, "k=1")); err != nil || runs.Load() != 3 {
			t.Errorf("k=1 ran again (%d runs, err %v): the cache of 2 holding k=1 and k=2 lost k=1", runs.Load(), err)
		}
	})
}

// TestPanicEndsOnlyTheRun: a lab that panics ends its run with ErrPanic; the hub goes on.
func TestPanicEndsOnlyTheRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		h := MustOpenHub(t, hub.Config{MaxRuns: 1, CacheSize: 4})
		_, err := h.Result(context.Background(), g.Lab, values(t, g.Lab, "panic=run"))
		if !errors.Is(err, hub.ErrPanic) {
			t.Fatalf("err = %v, want ErrPanic", err)
		}
		synctest.Wait()
		if h.Running() != 0 {
			t.Fatalf("%d runs in flight after the panic", h.Running())
		}
		if _, err := h.Result(context.Background(), g.Lab, values(t, g.Lab, "n=4")); err != nil {
			t.Errorf("the next run: %v", err)
		}
	})
}

// workLab is a lab whose runs compute: units units of work of unit each (a sleep, on the
// synctest clock, standing for CPU time), on two workers through engine.Trials, so that the
// hub's CPUs pace them. It records when each run's first unit started.
type workLab struct {
	*lab.Lab
	mu    sync.Mutex
	first map[int64]time.Time // by the run's n
}

func newWorkLab() *workLab {
	w := &workLab{first: map[int64]time.Time{}}
	w.Lab = &lab.Lab{
		Name: "work",
		Params: param.Set{
			{Name: "n", Kind: param.Int, Default: "0", Min: 0, Max: 1e9},
			{Name: "units", Kind: param.Int, Default: "20", Min: 1, Max: 1e9},
			{Name: "unit", Kind: param.Duration, Default: "1ms", Min: 0.001, Max: 1000},
		},
		Cost:       func(v param.Values) int64 { return v.Int("units") * v.Duration("unit").Microseconds() },
		CostParams: []string{"units", "unit"},
		Run: func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
			n, units, unit := v.Int("n"), v.Int("units"), v.Duration("unit")
			var done atomic.Int64
			err := engine.Trials(ctx, int(units), 2, func() func(int) error {
				return func(int) error {
					w.mu.Lock()
					if _, ok := w.first[n]; !ok {
						w.first[n] = time.Now()
					}
					w.mu.Unlock()
					select {
					case <-time.After(unit):
					case <-ctx.Done():
						return ctx.Err()
					}
					done.Add(1)
					return nil
				}
			})
			emit(lab.Update{Progress: &lab.Progress{Done: done.Load(), Total: units}})
			return err
		},
	}
	return w
}

// TestHeavyRunsDoNotStallOthers: while two of the heaviest runs compute on both CPUs, a light
// scenario starts within two quanta — its estimate waits for a CPU too (Hub.Admit), then its
// run: each goes first in the queue, but neither can take a CPU before a quantum of a heavy
// run ends — and finishes within twice the time it takes alone and those two quanta. The
// durations are on synctest's fake clock, where computing is sleeping and the hub paces in
// wall time: they are the hub's schedule, the same on any machine, not a measure of its speed.
func TestHeavyRunsDoNotStallOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkLab()
		h := MustOpenHub(t, hub.Config{MaxRuns: 8, CPUs: 2, WallClock: true})
		const light = "n=3&units=20&unit=1ms" // 10ms on two idle CPUs

		start := time.Now()
		if _, err := h.Result(context.Background(), w.Lab, values(t, w.Lab, light)); err != nil {
			t.Fatal(err)
		}
		idle := time.Since(start)
		if idle != 10*time.Millisecond {
			t.Fatalf("the light run took %v alone, want 10ms", idle)
		}

		MustSubscribe(t, h, w.Lab, "n=1&units=1000000")
		MustSubscribe(t, h, w.Lab, "n=2&units=1000000")
		time.Sleep(time.Second) // the heavy runs have computed for a second each

		asked := time.Now()
		if _, err := h.Result(context.Background(), w.Lab, values(t, w.Lab, "n=4&units=20&unit=1ms")); err != nil {
			t.Fatal(err)
		}
		took := time.Since(asked)
		w.mu.Lock()
		wait := w.first[4].Sub(asked)
		w.mu.Unlock()
		t.Logf("alone %v; beside two heavy runs: first unit after %v, done after %v", idle, wait, took)
		if wait > 2*engine.Quantum {
			t.Errorf("the light run waited %v for a CPU, want at most two quanta (%v), its estimate's and its own", wait, 2*engine.Quantum)
		}
		if took > 2*idle+2*engine.Quantum {
			t.Errorf("the light run took %v beside heavy runs, more than twice its %v alone and two quanta", took, idle)
		}
	})
}

// TestRunCPULimit: a run that computes for longer than MaxRunCPU is stopped with an error that
// names the parameter to lower and a value that fits, which then runs. On synctest's fake clock
// (see TestHeavyRunsDoNotStallOthers) the run is stopped exactly when its two workers have
// computed the limit between them, within a quantum each: after half a second, an eighth of
// its 8,000 units done, so the value is nine tenths of that, about 900.
func TestRunCPULimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := newWorkLab()
		h := MustOpenHub(t, hub.Config{MaxRuns: 2, CPUs: 2, MaxRunCPU: time.Second, WallClock: true})
		start := time.Now()
		_, err := h.Result(context.Background(), w.Lab, values(t, w.Lab, "units=8000&unit=1ms")) // 8s of computing
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != "units" {
			t.Fatalf("err = %v, want a *param.Error naming units", err)
		}
		t.Logf("stopped after %v: %v", time.Since(start), pe.Msg)
		if d := time.Since(start); d > 600*time.Millisecond {
			t.Errorf("stopped after %v on two CPUs, want about 500ms", d)
		}
		want := "this scenario needed more than 1s of computing and was stopped 12% of the way; lower units to " + pe.Fit + " or less (or lower unit)"
		if fit, _ := strconv.Atoi(pe.Fit); pe.Msg != want || fit < 850 || fit > 950 {
			t.Errorf("error %q (fit %q), want %q with about 900", pe.Msg, pe.Fit, want)
		}
		if h.Running() != 0 {
			synctest.Wait()
		}
		if _, err := h.Result(context.Background(), w.Lab, values(t, w.Lab, "units="+pe.Fit+"&unit=1ms")); err != nil {
			t.Errorf("the value suggested: %v", err)
		}
	})
}

// TestSupersededRunFreesItsSlot: a run whose only viewer leaves gives its slot back at once,
// before its goroutine has noticed the cancellation.
func TestSupersededRunFreesItsSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 1})
		a, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=1&linger=1s")) // takes a second to stop
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		a.Close()
		if b, err := h.Subscribe(g.Lab, values(t, g.Lab, "n=2")); err != nil {
			t.Errorf("the viewer's next scenario: %v, want a slot at once", err)
		} else {
			defer b.Close()
		}
		if h.Running() != 2 {
			t.Errorf("%d runs in flight, want the new one and the one still stopping", h.Running())
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if h.Running() != 1 {
			t.Errorf("%d runs in flight a second later, want 1", h.Running())
		}
	})
}

// TestRunCPULimitAtTheEnd: a run stopped after reporting all its units done (still finishing
// the last) is not said to be stopped "100% of the way", and is still told a value that fits.
func TestRunCPULimitAtTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &lab.Lab{
			Name:       "finishing",
			Params:     param.Set{{Name: "units", Kind: param.Int, Default: "20", Min: 1, Max: 1e9}},
			Cost:       func(v param.Values) int64 { return v.Int("units") },
			CostParams: []string{"units"},
			Run: func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
				emit(lab.Update{Progress: &lab.Progress{Done: v.Int("units"), Total: v.Int("units")}})
				return engine.Trials(ctx, 100, 1, func() func(int) error { // the finishing: 10s of computing
					return func(int) error {
						select {
						case <-time.After(100 * time.Millisecond):
							return nil
						case <-ctx.Done():
							return ctx.Err()
						}
					}
				})
			},
		}
		h := MustOpenHub(t, hub.Config{MaxRuns: 1, CPUs: 1, MaxRunCPU: time.Second, WallClock: true})
		_, err := h.Result(context.Background(), l, values(t, l, "units=1000"))
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Fit == "" || !strings.Contains(pe.Msg, "was stopped just before its end; lower units to "+pe.Fit) {
			t.Errorf("err = %v, want a stop just before the end naming units and a value", err)
		}
	})
}

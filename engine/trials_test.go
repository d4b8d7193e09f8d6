package engine_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/engine"
)

// setGOMAXPROCS sets GOMAXPROCS for the rest of the test and restores it afterwards.
func setGOMAXPROCS(t *testing.T, n int) {
	t.Helper()
	old := runtime.GOMAXPROCS(n)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
}

// simulate runs a small world on a worker's private loop and generator and summarises it.
func simulate(l *engine.Loop, p *engine.Source, r *rand.Rand, trial int) uint64 {
	engine.Seed(p, 2024, engine.Network, uint64(trial), 0)
	l.Reset(5000)
	for actor := range int32(20) {
		l.After(time.Duration(r.IntN(1000)), actor, 0)
	}
	var h uint64 = 14695981039346656037
	for ev, ok := l.Step(); ok; ev, ok = l.Step() {
		h = (h ^ uint64(ev.At) ^ uint64(ev.Actor)<<40) * 1099511628211
		if r.IntN(10) < 9 {
			l.After(time.Duration(r.IntN(1000)), ev.Actor, ev.Kind+1)
		}
	}
	return h ^ uint64(l.Steps())
}

func runTrials(t *testing.T, n, workers int) []uint64 {
	t.Helper()
	results := make([]uint64, n)
	runs := make([]atomic.Int32, n)
	var workersMade atomic.Int32
	err := engine.Trials(context.Background(), n, workers, func() func(int) error {
		workersMade.Add(1)
		var (
			l engine.Loop
			p engine.Source
		)
		r := rand.New(&p)
		return func(trial int) error {
			runs[trial].Add(1)
			results[trial] = simulate(&l, &p, r, trial)
			return nil
		}
	})
	if err != nil {
		t.Fatalf("Trials(n=%d, workers=%d) = %v", n, workers, err)
	}
	for i := range runs {
		if c := runs[i].Load(); c != 1 {
			t.Fatalf("workers=%d: trial %d ran %d times, want 1", workers, i, c)
		}
	}
	if w := int(workersMade.Load()); w > max(workers, 1) {
		t.Errorf("workers=%d: newWorker called %d times", workers, w)
	}
	return results
}

func TestTrialsDeterministic(t *testing.T) {
	const n = 200
	want := runTrials(t, n, 1)
	distinct := make(map[uint64]bool)
	for _, v := range want {
		distinct[v] = true
	}
	if len(distinct) < n/2 {
		t.Fatalf("only %d distinct results out of %d: the test world is too trivial", len(distinct), n)
	}
	for _, procs := range []int{1, 2, runtime.NumCPU()} {
		for _, workers := range []int{-3, 0, 1, 2, 8, n, 5 * n} {
			t.Run(fmt.Sprintf("procs=%d/workers=%d", procs, workers), func(t *testing.T) {
				setGOMAXPROCS(t, procs)
				got := runTrials(t, n, workers)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("trial %d = %#x, want %#x (as with one worker)", i, got[i], want[i])
					}
				}
			})
		}
	}
}

func TestTrialsCancel(t *testing.T) {
	const n, k = 1000, 10
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var started atomic.Int32
			err := engine.Trials(ctx, n, workers, func() func(int) error {
				return func(trial int) error {
					started.Add(1)
					switch {
					case trial == k:
						cancel()
					case trial > k:
						// Hold later trials until the cancel, so the bound below is exact
						// whatever the scheduling.
						<-ctx.Done()
					}
					return nil
				}
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Trials = %v, want context.Canceled", err)
			}
			// Trials 0..k, plus at most one trial past k in flight on each other worker.
			if s := int(started.Load()); s > k+workers {
				t.Errorf("%d trials started, want at most %d", s, k+workers)
			}
		})
	}
}

func TestTrialsContextDoneBeforeStart(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel2()
	tests := []struct {
		name string
		ctx  context.Context
		want error
	}{
		{"canceled", canceled, context.Canceled},
		{"deadline", expired, context.DeadlineExceeded},
	}
	for _, tc := range tests {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				var started atomic.Int32
				err := engine.Trials(tc.ctx, 100, workers, func() func(int) error {
					return func(int) error { started.Add(1); return nil }
				})
				if !errors.Is(err, tc.want) {
					t.Errorf("Trials = %v, want %v", err, tc.want)
				}
				if s := started.Load(); s != 0 {
					t.Errorf("%d trials started on a done context, want 0", s)
				}
			})
		}
	}
}

var errTrial = errors.New("trial failed")

func TestTrialsError(t *testing.T) {
	const n = 100
	for _, k := range []int{0, 37, n - 1} {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("k=%d/workers=%d", k, workers), func(t *testing.T) {
				var started, after atomic.Int32
				err := engine.Trials(context.Background(), n, workers, func() func(int) error {
					return func(trial int) error {
						started.Add(1)
						if trial > k {
							after.Add(1)
						}
						if trial == k {
							return fmt.Errorf("trial %d: %w", trial, errTrial)
						}
						return nil
					}
				})
				if !errors.Is(err, errTrial) || err.Error() != fmt.Sprintf("trial %d: %v", k, errTrial) {
					t.Fatalf("Trials = %v, want the error of trial %d", err, k)
				}
				if workers == 1 && after.Load() != 0 {
					t.Errorf("one worker: %d trials after the failing one ran, want 0", after.Load())
				}
				if s := int(started.Load()); s > n {
					t.Errorf("%d trials started, want at most %d", s, n)
				}
			})
		}
	}
}

func TestTrialsFailureStopsHandingOut(t *testing.T) {
	const n, k = 1000, 5
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			failing := make(chan struct{})
			var after atomic.Int32
			err := engine.Trials(context.Background(), n, workers, func() func(int) error {
				return func(trial int) error {
					switch {
					case trial == k:
						close(failing)
						return errTrial
					case trial > k:
						// Later trials cannot outrun the failure.
						<-failing
						time.Sleep(time.Millisecond)
						after.Add(1)
					}
					return nil
				}
			})
			if err != errTrial {
				t.Fatalf("Trials = %v, want %v", err, errTrial)
			}
			// Each other worker may have one later trial in flight; handing out all the rest
			// means the failure did not stop the run. (The bound is loose against scheduling.)
			if a := int(after.Load()); a > (n-k-1)/2 {
				t.Errorf("%d of the %d trials after the failing one ran", a, n-k-1)
			}
		})
	}
}

func TestTrialsLowestIndexErrorWins(t *testing.T) {
	const n, j, k = 50, 3, 4
	errJ, errK := errors.New("trial j"), errors.New("trial k")
	for _, workers := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			jStarted := make(chan struct{})
			err := engine.Trials(context.Background(), n, workers, func() func(int) error {
				return func(trial int) error {
					switch trial {
					case j:
						close(jStarted)
						return errJ
					case k:
						<-jStarted // both fail, in whichever order
						return errK
					}
					return nil
				}
			})
			if err != errJ {
				t.Fatalf("Trials = %v, want the error of the lower trial (%v)", err, errJ)
			}
		})
	}
}

func TestTrialsZero(t *testing.T) {
	for _, workers := range []int{0, 1, 2, 8} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			var started atomic.Int32
			err := engine.Trials(context.Background(), 0, workers, func() func(int) error {
				return func(int) error { started.Add(1); return nil }
			})
			if err != nil {
				t.Errorf("Trials(n=0) = %v, want nil", err)
			}
			if started.Load() != 0 {
				t.Errorf("Trials(n=0) ran %d trials", started.Load())
			}
		})
	}
}

// countingPacer admits every quantum and counts them, refusing after limit quanta when limit
// is positive.
type countingPacer struct {
	acquired, released atomic.Int32
	inside             atomic.Int32 // quanta acquired and not yet released
	most               atomic.Int32
	used               atomic.Int64
	limit              int32
}

var errTooMuch = errors.New("pacer: this run has computed enough")

func (p *countingPacer) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if p.limit > 0 && p.acquired.Load() >= p.limit {
		return errTooMuch
	}
	p.acquired.Add(1)
	in := p.inside.Add(1)
	for m := p.most.Load(); in > m && !p.most.CompareAndSwap(m, in); m = p.most.Load() {
	}
	return nil
}

func (p *countingPacer) Release(used time.Duration) {
	p.inside.Add(-1)
	p.released.Add(1)
	p.used.Add(int64(used))
}

// TestTrialsPaced: a paced run asks its pacer for every quantum of work, hands each back, gets
// the same results as an unpaced one, and stops with the pacer's error when refused.
func TestTrialsPaced(t *testing.T) {
	const n = 200
	want := runTrials(t, n, 1)
	for _, workers := range []int{1, 3} {
		p := &countingPacer{}
		ctx := engine.WithPacer(context.Background(), p)
		got := make([]uint64, n)
		err := engine.Trials(ctx, n, workers, func() func(int) error {
			var (
				l engine.Loop
				s engine.Source
			)
			r := rand.New(&s)
			return func(trial int) error {
				if p.inside.Load() < 1 {
					t.Errorf("trial %d ran outside a quantum", trial)
				}
				got[trial] = simulate(&l, &s, r, trial)
				return nil
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("workers=%d: paced results differ from unpaced ones", workers)
		}
		if a, r := p.acquired.Load(), p.released.Load(); a == 0 || a != r || p.used.Load() <= 0 {
			t.Errorf("workers=%d: %d quanta acquired, %d released, %v used", workers, a, r, time.Duration(p.used.Load()))
		}
		if m := p.most.Load(); m > int32(workers) {
			t.Errorf("workers=%d: %d quanta at once", workers, m)
		}
	}

	// On synctest's clock, each trial takes a tenth of a quantum: the one quantum the pacer
	// grants holds exactly ten trials.
	synctest.Test(t, func(t *testing.T) {
		p := &countingPacer{limit: 1}
		ctx := engine.WithPacer(context.Background(), p)
		ran := atomic.Int32{}
		err := engine.Trials(ctx, 1000, 2, func() func(int) error {
			return func(int) error {
				ran.Add(1)
				time.Sleep(engine.Quantum / 10)
				return nil
			}
		})
		if !errors.Is(err, errTooMuch) {
			t.Errorf("refused run: Trials = %v, want the pacer's error", err)
		}
		if r := ran.Load(); r != 10 {
			t.Errorf("refused run ran %d trials, want the 10 of its one quantum", r)
		}
		if err := engine.Pace(ctx, func() error { return nil }); !errors.Is(err, errTooMuch) {
			t.Errorf("Pace after the limit = %v, want the pacer's error", err)
		}
	})
}

// TestPaceMeasuresCPU: a paced worker reports the CPU time it used, not the time it spent
// waiting (where the system can tell thread CPU time: Linux).
func TestPaceMeasuresCPU(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("thread CPU time is measured on Linux only")
	}
	p := &countingPacer{}
	ctx := engine.WithPacer(context.Background(), p)
	if err := engine.Pace(ctx, func() error { time.Sleep(50 * time.Millisecond); return nil }); err != nil {
		t.Fatal(err)
	}
	if used := time.Duration(p.used.Load()); used > 25*time.Millisecond {
		t.Errorf("sleeping 50ms counted as %v of computing", used)
	}
	p.used.Store(0)
	if err := engine.Pace(ctx, func() error {
		x := 1.0
		for i := range 20_000_000 {
			x += math.Sqrt(float64(i))
		}
		if x < 0 {
			t.Log(x)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if used := time.Duration(p.used.Load()); used <= 0 {
		t.Errorf("a busy loop counted as %v of computing", used)
	}
}

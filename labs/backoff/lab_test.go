package backoff

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"os"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// mustRun runs a scenario URL query on a new lab value, whose memo is empty, so the
// simulation itself is tested.
func mustRun(tb testing.TB, query string) *lab.Result {
	tb.Helper()
	return mustRunOn(tb, Lab(), query)
}

// mustRunOn runs a scenario URL query on lab l.
func mustRunOn(tb testing.TB, l *lab.Lab, query string) *lab.Result {
	tb.Helper()
	return labtest.MustRun(tb, l, query)
}

func strategies(tb testing.TB, r *lab.Result) map[string]StrategySummary {
	tb.Helper()
	m, ok := r.Summary["strategies"].(map[string]StrategySummary)
	if !ok {
		tb.Fatalf("summary.strategies is %T", r.Summary["strategies"])
	}
	return m
}

// TestPostClaims checks the claims of Brooker's "Exponential Backoff and Jitter" at N=100 with
// 100 trials, the post's setting (base 5ms, cap 2s, network 10ms ± 2ms).
func TestPostClaims(t *testing.T) {
	heavy.Test(t)
	if testing.Short() {
		t.Skip("simulates 50,000 clients; skipped with -short")
	}
	r := mustRun(t, "clients=100&trials=100&sweep=40:190:50")
	s := strategies(t, r)
	none, exp, full, equal, decorr := s["none"], s["exponential"], s["full"], s["equal"], s["decorrelated"]
	t.Logf("writes: none %.0f, exponential %.0f, full %.0f, equal %.0f, decorrelated %.0f", none.Writes, exp.Writes, full.Writes, equal.Writes, decorr.Writes)
	t.Logf("completion ms: none %.0f, exponential %.0f, full %.0f, equal %.0f, decorrelated %.0f", none.CompletionMS, exp.CompletionMS, full.CompletionMS, equal.CompletionMS, decorr.CompletionMS)

	t.Run("full jitter needs fewer than half the writes of no-jitter exponential", func(t *testing.T) {
		if !(full.Writes < exp.Writes/2) {
			t.Errorf("full %.1f, exponential %.1f", full.Writes, exp.Writes)
		}
	})
	t.Run("full ≈ equal < decorrelated in work", func(t *testing.T) {
		if math.Abs(full.Writes-equal.Writes) > 0.1*full.Writes {
			t.Errorf("full %.1f and equal %.1f differ by more than 10%%", full.Writes, equal.Writes)
		}
		if !(full.Writes < decorr.Writes && equal.Writes < decorr.Writes) {
			t.Errorf("full %.1f, equal %.1f, decorrelated %.1f", full.Writes, equal.Writes, decorr.Writes)
		}
	})
	t.Run("no-jitter exponential takes by far the longest", func(t *testing.T) {
		for name, o := range s {
			if name != "exponential" && !(exp.CompletionMS > 3*o.CompletionMS) {
				t.Errorf("exponential %.0f ms is not 3× %s %.0f ms", exp.CompletionMS, name, o.CompletionMS)
			}
		}
	})
	t.Run("equal jitter is the slowest of the jittered", func(t *testing.T) {
		if !(equal.CompletionMS > full.CompletionMS && equal.CompletionMS > decorr.CompletionMS) {
			t.Errorf("equal %.0f, full %.0f, decorrelated %.0f", equal.CompletionMS, full.CompletionMS, decorr.CompletionMS)
		}
	})
	t.Run("full does less work than decorrelated but takes a little longer", func(t *testing.T) {
		if !(full.Writes < decorr.Writes && full.CompletionMS > decorr.CompletionMS && full.CompletionMS < 1.5*decorr.CompletionMS) {
			t.Errorf("full %.1f writes %.0f ms, decorrelated %.1f writes %.0f ms", full.Writes, full.CompletionMS, decorr.Writes, decorr.CompletionMS)
		}
	})
	t.Run("work grows about quadratically in N without jitter", func(t *testing.T) {
		sweep := r.Summary["sweep"].(map[string][]SweepPoint)
		for _, name := range []string{"none", "exponential"} {
			pts := sweep[name]
			a, b := pts[0], pts[len(pts)-1]
			slope := math.Log(b.Writes/a.Writes) / math.Log(float64(b.Clients)/float64(a.Clients))
			t.Logf("%s: work ∝ N^%.2f between N=%d and N=%d", name, slope, a.Clients, b.Clients)
			if name == "none" && (slope < 1.7 || slope > 2.3) {
				t.Errorf("none: log-log slope %.2f, want about 2", slope)
			}
			if fj := sweep["full"]; name == "none" {
				fs := math.Log(fj[len(fj)-1].Writes/fj[0].Writes) / math.Log(float64(b.Clients)/float64(a.Clients))
				if !(fs < slope) {
					t.Errorf("full jitter's work grows as N^%.2f, no faster than none's N^%.2f expected", fs, slope)
				}
			}
		}
	})
}

// TestGolden pins a small scenario's whole result, bit for bit, and checks it does not depend
// on GOMAXPROCS.
func TestGolden(t *testing.T) {
	const query = "clients=30&base=10ms&trials=8&seed=7&sweep=10:30:10&retries=6&strategies=none,linear,exponential,full,equal,decorrelated,constant"
	// The runs fill the page's charts and tables, and one with its sweep off leaves its
	// charts empty for a reason the page can say.
	labtest.CheckView(t, Lab(), query, "clients=5&trials=2&sweep=off")
	var outs [][]byte
	for _, procs := range []int{1, 2, 7} {
		old := runtime.GOMAXPROCS(procs)
		r := mustRun(t, query)
		runtime.GOMAXPROCS(old)
		b, err := json.MarshalIndent(r, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, b)
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Fatalf("result differs between GOMAXPROCS settings")
		}
	}
	golden := "testdata/small.golden.json"
	if *update {
		if err := os.WriteFile(golden, outs[0], 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(want, outs[0]) {
		t.Errorf("result differs from %s; if the change is intended, run go test -update and explain it: shared URLs will show new numbers", golden)
	}
}

// TestMemoMatchesSimulation checks a scenario computed from memoised points equals one
// simulated afresh.
func TestMemoMatchesSimulation(t *testing.T) {
	const q = "clients=20&trials=5&sweep=10:30:10"
	fresh := mustRun(t, q)
	l := Lab()
	mustRunOn(t, l, "clients=30&trials=5&sweep=10:30:10") // fills l's memo with N=10..30
	memoised := mustRunOn(t, l, q)
	a, _ := json.Marshal(fresh)
	b, _ := json.Marshal(memoised)
	if !bytes.Equal(a, b) {
		t.Error("memoised result differs from a fresh one")
	}
}

// TestSchedule reproduces the table of the Qiita post “Exponential backoff における経過時間とリトライ間隔の関係” for base 1s, multiplier 1.1, cap 1h.
func TestSchedule(t *testing.T) {
	r := mustRun(t, "base=1s&multiplier=1.1&cap=1h&retries=49&sweep=off&trials=1&clients=1")
	steps := r.Summary["schedule"].([]ScheduleStep)
	want := []struct {
		retry          int
		sleep, elapsed float64 // seconds, to 3 decimals
	}{{1, 1.000, 1.000}, {2, 1.100, 2.100}, {3, 1.210, 3.310}, {48, 88.197, 960.172}, {49, 97.017, 1057.190}}
	for _, w := range want {
		got := steps[w.retry-1]
		if got.Retry != w.retry || math.Round(got.SleepMS) != math.Round(w.sleep*1000) || math.Round(got.ElapsedMS) != math.Round(w.elapsed*1000) {
			t.Errorf("retry %d: sleep %.3fs elapsed %.3fs, want %.3fs %.3fs", w.retry, got.SleepMS/1000, got.ElapsedMS/1000, w.sleep, w.elapsed)
		}
		// The relation t_{n+1} = a + (r−1)·T_n, uncapped.
		if w.retry < 49 {
			if next := steps[w.retry].SleepMS; math.Abs(next-got.NextFromElapsed) > 1e-3 {
				t.Errorf("retry %d: a + (r−1)·T_n = %.6f ms, t_(n+1) = %.6f ms", w.retry, got.NextFromElapsed, next)
			}
		}
	}
	rel := r.Summary["schedule_relation"].(map[string]float64)
	if math.Abs(rel["next_pct_of_elapsed"]-10) > 1e-9 {
		t.Errorf("next interval is %.3f%% of elapsed, want 10%% for r = 1.1", rel["next_pct_of_elapsed"])
	}
}

// TestCostIsUpperBound checks the budget estimate bounds what simulations really deliver.
func TestCostIsUpperBound(t *testing.T) {
	w := &World{}
	for _, name := range Strategies {
		for _, n := range []int{1, 2, 10, 60, 150} {
			p := Policy(name, 5*time.Millisecond, 2*time.Second, 2)
			for trial := range 3 {
				out, err := w.Simulate(context.Background(), Config{Clients: n, Policy: p, LatencyMean: 10 * time.Millisecond,
					LatencySD: 2 * time.Millisecond, Seed: 1, Trial: trial}, nil)
				if err != nil {
					t.Fatal(err)
				}
				if events := w.loop.Steps(); events > simEvents(int64(n)) {
					t.Errorf("%s N=%d: %d events, estimate %d", name, n, events, simEvents(int64(n)))
				}
				if out.Writes < int64(n) {
					t.Errorf("%s N=%d: %d writes, fewer than the clients", name, n, out.Writes)
				}
			}
		}
	}
}

// TestCommonRandomNumbers checks strategies see the same network: with one client there is no
// contention, so every policy's single attempt takes the same time in the same trial.
func TestCommonRandomNumbers(t *testing.T) {
	w := &World{}
	var first time.Duration
	for i, name := range Strategies {
		out, err := w.Simulate(context.Background(), Config{Clients: 1, Policy: Policy(name, 5*time.Millisecond, time.Second, 2),
			LatencyMean: 10 * time.Millisecond, LatencySD: 2 * time.Millisecond, Seed: 3, Trial: 4}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if out.Writes != 1 {
			t.Errorf("%s: %d writes for one client", name, out.Writes)
		}
		if i == 0 {
			first = out.Completion
		} else if out.Completion != first {
			t.Errorf("%s: completion %v, %s had %v", name, out.Completion, Strategies[0], first)
		}
	}
}

// TestCancel cancels a long run as it reports its first progress: it must stop with the
// context's error, long before its work is done.
func TestCancel(t *testing.T) {
	v, _ := Params.ParseQuery("clients=1000&strategies=none&trials=1000&sweep=off")
	ctx, cancel := context.WithCancel(context.Background())
	var last lab.Progress
	_, err := Lab().Execute(ctx, v, func(u lab.Update) {
		if u.Progress != nil {
			last = *u.Progress
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if last.Total == 0 || last.Done > last.Total/10 {
		t.Errorf("last progress %+v: the run went on after it was cancelled", last)
	}
}

func TestBudget(t *testing.T) {
	v, _ := Params.ParseQuery("clients=1000&trials=1000")
	err := Lab().CheckBudget(v, 200_000_000)
	if err == nil {
		t.Fatal("no error for a scenario of ~10^12 events")
	}
	if def := Params.Defaults(); Lab().CheckBudget(def, 200_000_000) != nil {
		t.Errorf("the default scenario is over budget: cost %d", Lab().Cost(def))
	}
}

// BenchmarkReferenceSweep is the reference simulator's full sweep: clients 10..190 step 10 ×
// 5 strategies × 100 trials = 9,500 simulations, without the memo. Besides time per sweep it
// reports the process's CPU time per sweep (cpu-s/op: user + system, every worker and the
// garbage collector included) and per write attempt (ns/attempt: the world schedules one
// event per attempt), which the other engineers' load on a shared machine disturbs less than
// wall time.
func BenchmarkReferenceSweep(b *testing.B) {
	v, _ := Params.ParseQuery("")
	s := scenarioOf(v)
	tr := lab.NewTracker(func(lab.Update) {}, 0)
	run := newRunner()
	b.ReportAllocs()
	cpu0 := processCPU(b)
	ev0 := run.events.Load()
	for b.Loop() {
		run.points = newMemo(memoSize) // nothing memoised
		for _, n := range s.sweep {
			p := run.newPoint(s, int(n), s.strategies, false)
			if err := run.advance(context.Background(), s, p, 0, s.trials, tr); err != nil {
				b.Fatal(err)
			}
		}
	}
	cpu := processCPU(b) - cpu0
	attempts := run.events.Load() - ev0
	b.ReportMetric(9500*float64(b.N)/b.Elapsed().Seconds(), "sims/s")
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(attempts), "ns/attempt")
}

// processCPU returns the CPU time, user and system, the test process has used so far.
func processCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSimulate measures one simulation of 100 clients with each policy, and the process's
// CPU time per write attempt.
func BenchmarkSimulate(b *testing.B) {
	for _, name := range []string{"none", "exponential", "full"} {
		b.Run(name, func(b *testing.B) {
			w := &World{}
			cfg := Config{Clients: 100, Policy: Policy(name, 5*time.Millisecond, 2*time.Second, 2),
				LatencyMean: 10 * time.Millisecond, LatencySD: 2 * time.Millisecond, Seed: 1}
			var events int64
			b.ReportAllocs()
			cpu0 := processCPU(b)
			for i := 0; b.Loop(); i++ {
				cfg.Trial = i % 100
				if _, err := w.Simulate(context.Background(), cfg, nil); err != nil {
					b.Fatal(err)
				}
				events += w.loop.Steps()
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64((processCPU(b)-cpu0).Nanoseconds())/float64(events), "ns/attempt")
		})
	}
}

// BenchmarkDragClients is what a viewer dragging the clients slider costs at the default
// scenario: the sweep is memoised, so only the chosen N is simulated.
func BenchmarkDragClients(b *testing.B) {
	l := Lab()
	_ = mustRunOn(b, l, "") // warm the memo with the default sweep
	for i := 0; b.Loop(); i++ {
		n := 101 + i%800
		v, _ := Params.ParseQuery("clients=" + itoa(n))
		if _, err := l.Execute(context.Background(), v, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestProgress checks a run reports progress that only grows and ends complete.
func TestProgress(t *testing.T) {
	v, _ := Params.ParseQuery("clients=40&trials=10&sweep=10:40:10")
	var last *lab.Progress
	_, err := Lab().Execute(context.Background(), v, func(u lab.Update) {
		if u.Progress == nil {
			return
		}
		if last != nil && u.Progress.Done < last.Done {
			t.Errorf("progress went back from %d to %d", last.Done, u.Progress.Done)
		}
		last = u.Progress
	})
	if err != nil {
		t.Fatal(err)
	}
	if last == nil || last.Done != last.Total || last.Total == 0 {
		t.Errorf("final progress %+v, want done = total", last)
	}
}

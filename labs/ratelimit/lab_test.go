package ratelimit

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// mustRunOn runs a scenario URL query on lab l.
func mustRunOn(tb testing.TB, l *lab.Lab, query string) *lab.Result {
	tb.Helper()
	return labtest.MustRun(tb, l, query)
}

func mustRun(tb testing.TB, query string) *lab.Result {
	tb.Helper()
	return mustRunOn(tb, Lab(), query)
}

func algorithms(tb testing.TB, r *lab.Result) map[string]AlgorithmSummary {
	tb.Helper()
	m, ok := r.Summary["algorithms"].(map[string]AlgorithmSummary)
	if !ok {
		tb.Fatalf("summary.algorithms is %T", r.Summary["algorithms"])
	}
	return m
}

func marshal(tb testing.TB, r *lab.Result) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestPostClaims checks what Criteo's post (and the issue) teach, each on the traffic that
// shows it, at a limit of 100 per window.
func TestPostClaims(t *testing.T) {
	const base = "limit=100&window=1m&duration=10m"
	tests := []struct {
		name  string
		query string
		check func(t *testing.T, a map[string]AlgorithmSummary)
	}{
		{"fixed window admits twice the limit across a boundary; the sliding log never exceeds it",
			base + "&traffic=boundary&load=1",
			func(t *testing.T, a map[string]AlgorithmSummary) {
				if got := a["fixed_window"].MaxInWindow; got != 200 {
					t.Errorf("fixed window: most in a window %d, want 200 (100 at 07:09:59, 100 at 07:10:00)", got)
				}
				if log := a["sliding_log"]; log.MaxInWindow > 100 || log.OverAdmitted != 0 {
					t.Errorf("sliding log: most in a window %d, over-admitted %d", log.MaxInWindow, log.OverAdmitted)
				}
			}},
		{"a full token bucket with burst = limit admits close to twice the limit in one window under overload",
			base + "&traffic=poisson&load=3&algorithms=token_bucket,gcra,sliding_log",
			func(t *testing.T, a map[string]AlgorithmSummary) {
				for _, name := range []string{"token_bucket", "gcra"} {
					if x := a[name].MaxInWindowX; x < 1.9 || x > 2 {
						t.Errorf("%s: most in a window %.2f× the limit, want about 2", name, x)
					}
				}
				if a["token_bucket"] != withStore(a["gcra"], a["token_bucket"]) {
					t.Errorf("token bucket %+v and GCRA %+v admit differently", a["token_bucket"], a["gcra"])
				}
				if got := a["sliding_log"].MaxInWindow; got > 100 {
					t.Errorf("sliding log: %d in a window", got)
				}
			}},
		{"the approximation's error shrinks as the sub-windows grow (Poisson traffic)",
			"limit=1000&duration=1m&algorithms=sliding_window,subwindows&subwindows=4",
			func(t *testing.T, a map[string]AlgorithmSummary) {
				one, four := a["sliding_window"], a["subwindows"]
				r := mustRun(t, "limit=1000&duration=1m&algorithms=subwindows&subwindows=30")
				thirty := algorithms(t, r)["subwindows"]
				t.Logf("estimate error: k=1 %.3f%%, k=4 %.3f%%, k=30 %.3f%%; most in a window %d, %d, %d",
					one.EstimateErrorPct, four.EstimateErrorPct, thirty.EstimateErrorPct, one.MaxInWindow, four.MaxInWindow, thirty.MaxInWindow)
				if !(one.EstimateErrorPct > four.EstimateErrorPct && four.EstimateErrorPct > thirty.EstimateErrorPct) {
					t.Errorf("errors do not shrink with k")
				}
				if !(one.MaxInWindow >= four.MaxInWindow && four.MaxInWindow >= thirty.MaxInWindow && thirty.MaxInWindow > 1000) {
					t.Errorf("most in a window does not shrink towards the limit with k")
				}
				if one.EstimateErrorPct > 2 {
					t.Errorf("k=1: error %.2f%% of the limit, want small on Poisson traffic", one.EstimateErrorPct)
				}
			}},
		{"the fixed window's estimate drops at every boundary: far from the exact count",
			base + "&algorithms=fixed_window,sliding_window",
			func(t *testing.T, a map[string]AlgorithmSummary) {
				if !(a["fixed_window"].EstimateErrorPct > 10*a["sliding_window"].EstimateErrorPct) {
					t.Errorf("fixed window error %.2f%%, sliding window %.2f%%", a["fixed_window"].EstimateErrorPct, a["sliding_window"].EstimateErrorPct)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) { tc.check(t, algorithms(t, mustRun(t, tc.query))) })
	}
}

// withStore returns a with b's state size: equal admissions but different state.
func withStore(a, b AlgorithmSummary) AlgorithmSummary {
	a.StateBytes, a.EstimateErrorPct = b.StateBytes, b.EstimateErrorPct
	return a
}

// TestWorkedExample is the post's 00:01:43 example: the count of minute 00:01 plus minute
// 00:00's count times 17/60.
func TestWorkedExample(t *testing.T) {
	rule := ratelimit.NewSlidingWindowRule(ratelimit.Limit{Count: 100, Per: time.Minute}, 1)
	var s ratelimit.SlidingWindowState
	at := func(m, sec int) int64 { return int64(time.Duration(m)*time.Minute + time.Duration(sec)*time.Second) }
	for i := range 60 { // 60 calls in minute 00:00
		rule.Update(&s, at(0, i), 1)
	}
	for i := range 30 { // 30 calls in 00:01:00–00:01:42
		rule.Update(&s, at(1, i), 1)
	}
	want := 30 + 60*17.0/60
	if got := rule.Estimate(s, at(1, 43)); math.Abs(got-want) > 1e-9 {
		t.Errorf("estimate at 00:01:43 = %v, want 30 + 60·17/60 = %v", got, want)
	}
	// The lab's counters formulation gives the same estimate from the two counters.
	c, err := rule.Counters()
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Estimate([]int64{60, 30}, at(1, 43)); math.Abs(got-want) > 1e-9 {
		t.Errorf("counters estimate = %v, want %v", got, want)
	}
}

// TestStores: with several instances and store latency, non-atomic shared state over-admits
// and an atomic script does not; atomic scripts decide as one in-process limiter; local
// counters admit up to instances × the limit; sticky sessions over-admit at the scale-out.
func TestStores(t *testing.T) {
	const base = "limit=100&window=1s&duration=20s&load=2&algorithms=fixed_window,sliding_log,subwindows,token_bucket&store_latency=20ms&instances=4"
	inProcess := algorithms(t, mustRun(t, "limit=100&window=1s&duration=20s&load=2&algorithms=fixed_window,sliding_log,subwindows,token_bucket"))
	run := func(q string) map[string]AlgorithmSummary { return algorithms(t, mustRun(t, base+"&"+q)) }

	atomicStore := run("store=atomic")
	for name, a := range atomicStore {
		a.StoreOps, inProcess[name] = 0, func(b AlgorithmSummary) AlgorithmSummary { b.StoreOps = 0; return b }(inProcess[name])
		if a != inProcess[name] {
			t.Errorf("atomic %s: %+v, in process %+v", name, a, inProcess[name])
		}
	}
	if log := atomicStore["sliding_log"]; log.OverAdmitted != 0 || log.MaxInWindow > 100 {
		t.Errorf("atomic sliding log over-admits: %+v", log)
	}

	for _, store := range []string{"racy", "local", "async"} {
		a := run("store=" + store)
		for _, name := range []string{"fixed_window", "sliding_log", "subwindows"} {
			if a[name].MaxInWindow <= 100 || a[name].Admitted <= atomicStore[name].Admitted {
				t.Errorf("%s %s: admitted %d (atomic %d), most in a window %d: no over-admission",
					store, name, a[name].Admitted, atomicStore[name].Admitted, a[name].MaxInWindow)
			}
		}
	}
	local := run("store=local")
	if log := local["sliding_log"]; log.Rejected != 0 || log.MaxInWindow > 400 {
		t.Errorf("local counters on 4 instances, 200 offered per window: %+v, want all admitted (each instance sees 50)", log)
	}

	cas := run("store=cas")
	if log := cas["sliding_log"]; log.OverAdmitted != 0 || log.MaxInWindow > 100 {
		t.Errorf("compare-and-swap sliding log over-admits: %+v", log)
	}
	if cas["token_bucket"].StoreOps <= 2 {
		t.Errorf("compare-and-swap under contention: %.2f store ops per request, want retries", cas["token_bucket"].StoreOps)
	}

	incr := run("store=incr")
	if incr["sliding_log"].Store != "get_set" || incr["fixed_window"].Store != "incr" {
		t.Errorf("incr: stores %q and %q", incr["sliding_log"].Store, incr["fixed_window"].Store)
	}
	// INCR-then-check never lets a window's counter pass the limit.
	if fw := incr["fixed_window"]; fw.MaxInWindow > 200 {
		t.Errorf("incr fixed window: %d in a window", fw.MaxInWindow)
	}

	sticky := algorithms(t, mustRun(t, "limit=100&window=1s&duration=20s&load=2&algorithms=sliding_log&store=local&balancer=sticky"))
	if log := sticky["sliding_log"]; log.OverAdmitted == 0 || log.MaxInWindow <= 100 {
		t.Errorf("sticky sessions: the scale-out should over-admit: %+v", log)
	}
}

// TestGolden pins the default scenario's whole result, and checks it does not depend on
// GOMAXPROCS.
func TestGolden(t *testing.T) {
	goldens := []struct{ file, query string }{
		{"default", ""},
		{"distributed", "limit=50&duration=5s&instances=3&store=racy&store_latency=5ms&skew=100ms&balancer=random&algorithms=fixed_window,sliding_log,token_bucket"},
	}
	labtest.CheckView(t, Lab(), goldens[0].query, goldens[1].query, "duration=5s&sweep=1:9:4",
		"duration=5s&store=cas&instances=2&store_latency=5ms&latency_sweep=0:10:5&instances_sweep=4:4:1",
		"duration=2s&limit=50&instances=2&store=incr&algorithms=token_bucket&latency_sweep=0:10:5&instances_sweep=3:3:1") // the runs fill the page's charts and tables
	for _, g := range goldens {
		var outs [][]byte
		for _, procs := range []int{1, 2, 7} {
			old := runtime.GOMAXPROCS(procs)
			outs = append(outs, marshal(t, mustRun(t, g.query)))
			runtime.GOMAXPROCS(old)
		}
		for i := 1; i < len(outs); i++ {
			if !bytes.Equal(outs[0], outs[i]) {
				t.Fatalf("%s: the result depends on GOMAXPROCS", g.file)
			}
		}
		path := "testdata/" + g.file + ".golden.json"
		if *update {
			if err := os.WriteFile(path, outs[0], 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(outs[0], want) {
			t.Errorf("%s: result differs from %s (run with -update if the change is intended)", g.file, path)
		}
	}
}

// TestInvariants runs random scenarios over the whole parameter space (kept small) and checks
// what holds for any of them: every request is admitted or rejected, once; over-admissions
// are admissions; the sliding log behind an atomic store with true clocks is exact; every
// series ends complete.
func TestInvariants(t *testing.T) {
	heavy.Test(t)
	rng := rand.New(rand.NewPCG(7, 7))
	pick := func(options []string) string { return options[rng.IntN(len(options))] }
	for i := range 60 {
		algs := []string{}
		for _, a := range Algorithms {
			if rng.IntN(2) == 0 {
				algs = append(algs, a)
			}
		}
		if len(algs) == 0 {
			algs = []string{"sliding_log"}
		}
		q := fmt.Sprintf("algorithms=%s&limit=%d&window=%dms&subwindows=%d&burst=%d&leak=%.2f&traffic=%s&load=%.2f&duration=%dms"+
			"&instances=%d&balancer=%s&store=%s&store_latency=%dms&skew=%dms&seed=%d",
			strings.Join(algs, ","), 1+rng.IntN(300), 10+rng.IntN(3000), 2+rng.IntN(59), rng.IntN(400), 0.1+rng.Float64()*9.9,
			pick(Traffics), 0.1+rng.Float64()*5, 1000+rng.IntN(5000), 1+rng.IntN(64), pick(Balancers), pick(Stores),
			rng.IntN(1001), rng.IntN(3)*rng.IntN(30001), i)
		if strings.Contains(q, "balancer=sticky") { // sticky starts on one instance (a rule)
			q = regexp.MustCompile(`instances=\d+`).ReplaceAllString(q, "instances=1")
		}
		r := mustRun(t, q)
		offered := r.Summary["offered"].(int64)
		v, _ := Params.ParseQuery(q)
		s := scenarioOf(v)
		for name, a := range algorithms(t, r) {
			if a.Admitted+a.Rejected != offered || a.OverAdmitted > a.Admitted || a.WronglyRejected > a.Rejected ||
				(a.Admitted > 0) != (a.MaxInWindow > 0) {
				t.Errorf("%s: %s: %+v of %d offered", q, name, a, offered)
			}
			oneClock := s.skew == 0 || s.instances == 1 && s.balancer != "sticky" // sticky adds an instance at the scale-out
			if name == "sliding_log" && s.store == "atomic" && oneClock && (a.OverAdmitted != 0 || a.MaxInWindow > s.limit) {
				t.Errorf("%s: the atomic sliding log over-admits: %+v", q, a)
			}
		}
		for _, sr := range r.Series {
			want := nSamples + 1
			switch {
			case sr.Name == "limit":
				want = 2
			case sr.Chart == "rate":
				want = nBins
			case sr.Name == "sweep limit":
				want = 2
			case strings.HasPrefix(sr.Chart, "sweep_"): // a point per k of the sweep
				want = len(s.sweep)
			}
			if len(sr.X) != want || len(sr.Y) != want {
				t.Errorf("%s: series %s has %d points, want %d", q, sr.Name, len(sr.X), want)
			}
		}
	}
}

package loadbalance

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// mustRun runs a scenario URL query on a new lab value.
func mustRun(tb testing.TB, query string) *lab.Result {
	tb.Helper()
	return mustRunOn(tb, Lab(), query)
}

// mustRunOn runs a scenario URL query on lab l.
func mustRunOn(tb testing.TB, l *lab.Lab, query string) *lab.Result {
	tb.Helper()
	return labtest.MustRun(tb, l, query)
}

func policies(tb testing.TB, r *lab.Result) map[string]policySummary {
	tb.Helper()
	m, ok := r.Summary["policies"].(map[string]policySummary)
	if !ok {
		tb.Fatalf("summary.policies is %T", r.Summary["policies"])
	}
	return m
}

func connSummary(tb testing.TB, r *lab.Result) connStatsRow {
	tb.Helper()
	c, ok := r.Summary["connections"].(connStatsRow)
	if !ok {
		tb.Fatalf("summary.connections is %T", r.Summary["connections"])
	}
	return c
}

// noTraffic keeps a subsetting test's simulation negligible.
const noTraffic = "&rate=0.1&duration=1s&policy=round_robin"

// TestSubsettingClaims checks the chapter's figures 20-3 to 20-5 and its 12/3/10 example.
func TestSubsettingClaims(t *testing.T) {
	rel := func(c connStatsRow) float64 { return c.SD / c.Mean }
	random30 := connSummary(t, mustRun(t, "clients=300&backends=300&subset=90&subsetting=random"+noTraffic))
	random10 := connSummary(t, mustRun(t, "clients=300&backends=300&subset=30&subsetting=random"+noTraffic))
	det10 := connSummary(t, mustRun(t, "clients=300&backends=300&subset=10&subsetting=deterministic"+noTraffic))
	t.Logf("random 30%%: %+v; random 10%%: %+v; deterministic 10 of 300: %+v", random30, random10, det10)
	tests := []struct {
		name string
		ok   bool
	}{
		{"random 30% leaves a wide spread: the busiest backend has 20% more connections than the mean",
			float64(random30.Max) > 1.2*random30.Mean && float64(random30.Min) < 0.8*random30.Mean},
		{"random 10% spreads wider, relative to the mean, than 30%", rel(random10) > 1.5*rel(random30) &&
			float64(random10.Max)/random10.Mean > float64(random30.Max)/random30.Mean},
		{"deterministic 10 of 300: every backend has exactly 10 connections", det10.Min == 10 && det10.Max == 10},
	}
	for _, tt := range tests {
		if !tt.ok {
			t.Errorf("%s: does not hold", tt.name)
		}
	}

	// The chapter's example: 12 backends, subsets of 3, 10 clients: 2 or 3 connections each,
	// in three rounds of four clients (the last round short).
	r := mustRun(t, "clients=10&backends=12&subset=3&subsetting=deterministic"+noTraffic)
	if c := connSummary(t, r); c.Min != 2 || c.Max != 3 {
		t.Errorf("12/3/10: connections from %d to %d, want 2 to 3", c.Min, c.Max)
	}
	rounds, ok := r.Summary["rounds"].([]roundRow)
	if !ok || len(rounds) != 3 {
		t.Fatalf("12/3/10: summary.rounds is %#v, want 3 rounds", r.Summary["rounds"])
	}
	for i, rd := range rounds {
		if want := 4; i == 2 {
			want = 2 // clients 8 and 9
			if got := strings.Count(rd.List, "["); got != want {
				t.Errorf("round %d: %q has %d subsets, want %d", i, rd.List, got, want)
			}
		} else if got := strings.Count(rd.List, "["); got != want {
			t.Errorf("round %d: %q has %d subsets, want %d", i, rd.List, got, want)
		}
	}
	subsets := r.Summary["subsets"].([]clientSubset)
	if len(subsets) != 10 || subsets[4].Round != "1" || subsets[9].Round != "2" {
		t.Errorf("12/3/10: subsets %+v: clients 4–7 are in round 1 and 8–9 in round 2", subsets)
	}
	// Large scenarios do not list subsets.
	if _, ok := mustRun(t, "clients=100"+noTraffic).Summary["subsets"]; ok {
		t.Errorf("100 clients: summary.subsets should be left out")
	}
}

// TestDeterministicAtMostOneApart: for sizes that do not divide evenly, the lab's connection
// counts under deterministic subsetting still differ by at most one (the algorithm's own
// property test covers many more sizes).
func TestDeterministicAtMostOneApart(t *testing.T) {
	for _, size := range [][3]int{{10, 12, 5}, {7, 13, 4}, {300, 299, 7}, {31, 100, 9}, {1, 5, 3}, {50, 7, 7}} {
		clients, backends, k := size[0], size[1], size[2]
		starts, conns := subsets("deterministic", 1, clients, backends, k)
		c := connStats(connections(backends, conns))
		if c.Max-c.Min > 1 {
			t.Errorf("%d clients, %d backends, subset %d: connections %d to %d", clients, backends, k, c.Min, c.Max)
		}
		for cl := range clients {
			if got := int(starts[cl+1] - starts[cl]); got != min(k, backends) {
				t.Errorf("%d/%d/%d: client %d has %d backends", clients, backends, k, cl, got)
			}
		}
	}
}

// policyScenario is a service where clients' own view of load means something: 50 clients with
// many requests in flight over subsets of 5, queries whose costs differ 1000×, machines 2×.
const policyScenario = "clients=50&backends=50&subset=5&subsetting=deterministic&rate=10&cost_spread=1000&machine_spread=2&duration=30s"

// TestPolicyClaims: simple round robin leaves a wide CPU spread (the chapter measured up to
// 2×) which least-loaded round robin and weighted round robin narrow.
func TestPolicyClaims(t *testing.T) {
	ps := policies(t, mustRun(t, policyScenario+"&policy=round_robin,least_loaded,weighted,random,p2c"))
	for name, p := range ps {
		t.Logf("%-12s CPU %.1f–%.1f%% (mean %.1f) max/min %.2f max/mean %.2f wasted %.1f%% p99 %.0f ms",
			name, p.CPUMin, p.CPUMax, p.CPUMean, p.MaxOverMin, p.MaxOverMean, p.WastedCPUPct, p.LatencyP99MS)
	}
	rr, ll, w := ps["round_robin"], ps["least_loaded"], ps["weighted"]
	if !(rr.MaxOverMin > 1.5) {
		t.Errorf("round robin: max/min CPU %.2f, want a wide spread (> 1.5)", rr.MaxOverMin)
	}
	for name, p := range map[string]policySummary{"least-loaded": ll, "weighted": w} {
		if !(p.MaxOverMin < rr.MaxOverMin && p.WastedCPUPct < 0.8*rr.WastedCPUPct) {
			t.Errorf("%s: max/min %.2f, wasted %.1f%%; round robin %.2f, %.1f%%: want both lower",
				name, p.MaxOverMin, p.WastedCPUPct, rr.MaxOverMin, rr.WastedCPUPct)
		}
	}
	if !(ps["p2c"].WastedCPUPct < ps["random"].WastedCPUPct) {
		t.Errorf("two choices wastes %.1f%%, random %.1f%%: want less", ps["p2c"].WastedCPUPct, ps["random"].WastedCPUPct)
	}
	for name, p := range ps {
		if p.Errors != 0 {
			t.Errorf("%s: %d errors in a healthy service at half load", name, p.Errors)
		}
	}
}

// TestLameDuckVersusAbruptStop: backends that go through lame duck drain without an error;
// stopped abruptly, they fail what they hold.
func TestLameDuckVersusAbruptStop(t *testing.T) {
	const base = "clients=100&backends=100&subset=10&subsetting=deterministic&duration=40s&event_share=0.2"
	lame := policies(t, mustRun(t, base+"&event=lame_duck"))
	abrupt := policies(t, mustRun(t, base+"&event=abrupt_stop"))
	for _, name := range []string{"round_robin", "least_loaded", "weighted"} {
		t.Logf("%s: lame duck %d errors, abrupt stop %d", name, lame[name].Errors, abrupt[name].Errors)
		if lame[name].Errors != 0 {
			t.Errorf("%s: lame duck: %d errors, want none", name, lame[name].Errors)
		}
		if abrupt[name].Stopped < 20 || abrupt[name].Errors != abrupt[name].Stopped {
			t.Errorf("%s: abrupt stop: %d errors (%d by the stop), want the requests in flight to fail", name, abrupt[name].Errors, abrupt[name].Stopped)
		}
	}
}

// TestSinkholing: a backend that fails fast draws traffic under least-loaded policies, which
// see it with no active requests; counting recent errors as active requests fixes it.
func TestSinkholing(t *testing.T) {
	const base = policyScenario + "&failing=1&policy=round_robin,least_loaded,p2c"
	plain := policies(t, mustRun(t, base))
	fixed := policies(t, mustRun(t, base+"&count_errors=true"))
	rr := plain["round_robin"].FailFast
	t.Logf("fail-fast errors: round robin %d; least-loaded %d, fixed %d; two choices %d, fixed %d",
		rr, plain["least_loaded"].FailFast, fixed["least_loaded"].FailFast, plain["p2c"].FailFast, fixed["p2c"].FailFast)
	if fixed["round_robin"].FailFast != rr {
		t.Errorf("counting errors changed round robin, which does not read them")
	}
	for _, name := range []string{"least_loaded", "p2c"} {
		if !(float64(plain[name].FailFast) > 1.4*float64(rr)) {
			t.Errorf("%s: %d requests to the fail-fast backend, round robin %d: want a sinkhole", name, plain[name].FailFast, rr)
		}
		if !(fixed[name].FailFast < rr) {
			t.Errorf("%s counting errors: %d requests to the fail-fast backend, round robin %d: want fewer", name, fixed[name].FailFast, rr)
		}
	}
}

// TestFlowControl: with a limit of one active request per connection, clients that want more
// in flight than their subset allows are refused.
func TestFlowControl(t *testing.T) {
	ps := policies(t, mustRun(t, "clients=20&backends=20&subset=2&rate=20&duration=10s&max_active=1&policy=round_robin"))
	if p := ps["round_robin"]; p.Rejected == 0 || p.Errors != p.Rejected {
		t.Errorf("flow control: %d rejected of %d errors, want rejections", p.Rejected, p.Errors)
	}
}

// goldenQuery is a small scenario with every feature on.
const goldenQuery = "clients=12&backends=10&subset=3&subsetting=deterministic&policy=round_robin,least_loaded,weighted,random,p2c&" +
	"rate=5&duration=40s&event=abrupt_stop&event_share=0.2&failing=1&count_errors=true&client_spread=3&seed=7&sweep=2:10:4&load_sweep=20:100:40"

// TestGolden pins a small scenario's whole result, bit for bit, and checks that it depends
// neither on GOMAXPROCS nor on how the run is cut into steps.
func TestGolden(t *testing.T) {
	// The runs fill the page's charts and tables, and those a run under random subsetting
	// leaves empty say why.
	labtest.CheckView(t, Lab(), goldenQuery, "clients=10&backends=10&subset=3&duration=2s", "clients=40&backends=10&subset=3&duration=2s")
	var outs [][]byte
	for _, c := range []struct {
		procs int
		chunk float64
	}{{1, 0}, {2, 1}, {7, 1e12}, {2, 3000}} {
		old := runtime.GOMAXPROCS(c.procs)
		rn := newRunner()
		rn.chunk = c.chunk
		outs = append(outs, marshal(t, mustRunOn(t, rn.lab(), goldenQuery)))
		runtime.GOMAXPROCS(old)
	}
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[0], outs[i]) {
			t.Fatalf("run %d differs from run 0: results depend on GOMAXPROCS or on the steps", i)
		}
	}
	const path = "testdata/small.golden.json"
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
		t.Errorf("result differs from %s (run with -update if the change is intended)", path)
	}
}

func marshal(tb testing.TB, r *lab.Result) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return append(b, '\n')
}

// TestProgressive: the connections histogram comes first, before any traffic is simulated;
// then a first complete picture (every chart) with the first refinement; then refinements
// up to the whole duration, each sampling interval sent once; and the fold equals a one-step
// run's result at several GOMAXPROCS.
func TestProgressive(t *testing.T) {
	const q = "duration=20s&clients=60&backends=40&subset=8&sweep=8:40:16&load_sweep=50:100:25"
	v, err := params.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	one := newRunner()
	one.chunk = 1e12
	oneStep := marshal(t, mustRunOn(t, one.lab(), q))
	for _, procs := range []int{1, 2, 4} {
		old := runtime.GOMAXPROCS(procs)
		rn := newRunner()
		rn.chunk = 2000
		l := rn.lab()
		var (
			updates  int
			firstCPU = -1 // update carrying the first CPU series
			firstHis = -1 // update carrying the connections histogram
			refines  []int64
			picture  map[string]bool
			sent     = map[string]int{}
		)
		fold := lab.NewResult(l, v)
		_, err := l.Execute(context.Background(), v, func(u lab.Update) {
			fold.Apply(u)
			for _, s := range u.Series {
				if s.Name == "connections" && firstHis < 0 {
					firstHis = updates
				}
				if s.Chart == "cpu" && firstCPU < 0 {
					firstCPU = updates
				}
				if s.Upsert {
					sent[s.Name] += len(s.X)
				}
			}
			if u.Refine != nil {
				refines = append(refines, u.Refine.Done)
				if picture == nil {
					picture = map[string]bool{}
					for _, s := range fold.Series {
						picture[s.Chart] = true
					}
				}
			}
			updates++
		})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if !(firstHis >= 0 && firstHis < firstCPU) {
			t.Errorf("GOMAXPROCS=%d: connections histogram in update %d, first CPU in %d: the histogram comes first", procs, firstHis, firstCPU)
		}
		if len(refines) < 2 || refines[len(refines)-1] != 20 || !slices.IsSorted(refines) {
			t.Errorf("GOMAXPROCS=%d: refinements %v, want several, ascending, ending at 20 s", procs, refines)
		}
		for _, c := range view.Charts {
			if !picture[c.ID] {
				t.Errorf("GOMAXPROCS=%d: the first picture has nothing in chart %s", procs, c.ID)
			}
		}
		if sent["cpu round_robin"] != 20 {
			t.Errorf("GOMAXPROCS=%d: %d CPU points sent for 20 sampling intervals: each once", procs, sent["cpu round_robin"])
		}
		if got := marshal(t, fold); !bytes.Equal(got, oneStep) {
			t.Errorf("GOMAXPROCS=%d: the progressive result differs from the one-step result", procs)
		}
	}
}

func mustParse(tb testing.TB, q string) scenario {
	tb.Helper()
	v, err := params.ParseQuery(q)
	if err != nil {
		tb.Fatal(err)
	}
	return scenarioOf(v)
}

// TestSteadyStateDoesNotAllocate: a pick through the simulation's view of a subset allocates
// nothing, under every policy; and once its queues have grown, a simulation allocates only
// when a bucket of the event wheel meets more events than it ever held, a few times per
// simulated second against thousands of requests.
func TestSteadyStateDoesNotAllocate(t *testing.T) {
	heavy.Test(t)
	for _, policy := range policyNames {
		s := mustParse(t, "duration=2m&subsetting=deterministic&policy="+policy)
		starts, conns := subsets(s.Subsetting, s.Seed, s.Clients, s.Backends, s.Subset)
		w := newWorld(config{Policy: policy, Env: s.env(starts, conns)})
		ctx := context.Background()
		if err := w.Advance(ctx, 60); err != nil {
			t.Fatal(err)
		}
		c := 0
		if allocs := testing.AllocsPerRun(1000, func() {
			c = (c + 1) % s.Clients
			w.view.first, w.view.n, w.view.now = starts[c], int(starts[c+1]-starts[c]), w.loop.Now()
			w.clients[c].picker.Pick(&w.view)
		}); allocs != 0 {
			t.Errorf("%s: %.2f allocations per pick", policy, allocs)
		}
		k, before := 60, w.Requests
		allocs := testing.AllocsPerRun(20, func() {
			k++
			if err := w.Advance(ctx, k); err != nil {
				t.Fatal(err)
			}
		})
		perRequest := allocs * 21 / float64(w.Requests-before)
		if perRequest > 0.01 {
			t.Errorf("%s: %.4f allocations per request", policy, perRequest)
		}
	}
}

// TestMemo: a lab value keeps finished policy simulations, so ticking a policy on simulates
// only that one, and the result is the same, bit for bit, as a fresh lab's.
func TestMemo(t *testing.T) {
	const base = "clients=40&backends=30&subset=6&duration=20s&event=lame_duck&failing=1"
	rn := newRunner()
	l := rn.lab()
	mustRunOn(t, l, base+"&policy=round_robin,weighted")
	before := rn.work.Load()
	got := marshal(t, mustRunOn(t, l, base+"&policy=round_robin,weighted,p2c"))
	added := rn.work.Load() - before
	fresh := newRunner()
	want := marshal(t, mustRunOn(t, fresh.lab(), base+"&policy=round_robin,weighted,p2c"))
	if !bytes.Equal(got, want) {
		t.Errorf("with two policies memoised, the result differs from a fresh lab's")
	}
	s := mustParse(t, base+"&policy=p2c")
	setup := subsetsWork(s.Subsetting, s) + connSweepWork(s) // subsets and the sweep are computed again; the comparison is cached
	if est := simWork(s); float64(added-setup) > 1.5*est {
		t.Errorf("ticking p2c on simulated %d work units; p2c alone needs about %.0f", added-setup, est)
	}
	// Everything memoised: nothing simulated, same result.
	before = rn.work.Load()
	again := marshal(t, mustRunOn(t, l, base+"&policy=round_robin,weighted,p2c"))
	if rn.work.Load()-before != setup || !bytes.Equal(again, want) {
		t.Errorf("a fully memoised run simulated %d units or gave another result", rn.work.Load()-before-setup)
	}
	// Order matters for the first-policy fields only; the memo serves any order.
	if a, b := mustRunOn(t, l, base+"&policy=weighted,round_robin"), mustRunOn(t, fresh.lab(), base+"&policy=weighted,round_robin"); !bytes.Equal(marshal(t, a), marshal(t, b)) {
		t.Errorf("policies in another order: memoised result differs")
	}
}

// TestEdges runs scenarios at the corners of the parameter space: each completes, its
// connections add up to the subsets' sizes, and every backend is listed once.
func TestEdges(t *testing.T) {
	const short = "&duration=3s&rate=5"
	for _, q := range []string{
		"clients=1&backends=1&subset=1",
		"clients=1&backends=3000&subset=1&subsetting=aperture",
		"clients=2000&backends=3&subset=2&subsetting=aperture",
		"clients=5&backends=1&subset=1&failing=1",
		"clients=5&backends=2&subset=2&failing=1&event=abrupt_stop&event_share=0.5",
		"clients=5&backends=1&subset=1&event=lame_duck",
		"clients=3&backends=7&subset=7&subsetting=rendezvous&max_active=1&policy=round_robin,least_loaded,weighted,random,p2c",
		"clients=30&backends=30&cost_spread=1000&machine_spread=4&antagonists=1&client_spread=100&count_errors=true",
		"subsetting=deterministic&clients=29&backends=31&subset=4&event=abrupt_stop&failing=3",
	} {
		t.Run(q, func(t *testing.T) {
			r := mustRun(t, q+short)
			s := mustParse(t, q+short)
			backends, ok := r.Summary["backends"].([]backendRow)
			if !ok || len(backends) != s.Backends {
				t.Fatalf("summary.backends is %T with %d entries, want %d", r.Summary["backends"], len(backends), s.Backends)
			}
			starts, _ := subsets(s.Subsetting, s.Seed, s.Clients, s.Backends, s.Subset)
			total := 0
			for _, b := range backends {
				total += b.Connections
			}
			if want := int(starts[s.Clients]); total != want {
				t.Errorf("connections add up to %d, the subsets hold %d", total, want)
			}
			for name, p := range policies(t, r) {
				if p.Errors != p.Rejected+p.FailFast+p.Stopped+p.Shed {
					t.Errorf("%s: %d errors, but %d+%d+%d+%d by cause", name, p.Errors, p.Rejected, p.FailFast, p.Stopped, p.Shed)
				}
			}
		})
	}
}

// TestBudget: a scenario beyond the server's budget is refused before it runs, with an error
// that names clients and a value that fits.
func TestBudget(t *testing.T) {
	l := Lab()
	v, err := params.ParseQuery("clients=3000&rate=100&duration=10m")
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckBudget(v, 200_000_000)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "clients" || !strings.Contains(pe.Msg, "lower clients to ") {
		t.Fatalf("CheckBudget = %v, want an error naming clients", err)
	}
	def, _ := params.ParseQuery("")
	if err := l.CheckBudget(def, 200_000_000); err != nil {
		t.Errorf("the default scenario is refused: %v", err)
	}
}

package api_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestHeaviestAdmittedFinishes: a run the budget admits finishes. For each lab it builds the
// heaviest scenario the budget admits from the corner where every cost parameter is at its
// largest (every option of a list, the longest range): the first integer cost parameter is
// lowered to the largest value that fits the budget, by the lab's own estimate. That scenario
// must run to completion through the JSON API of a server configured as `playground serve`
// is, not be stopped by the per-run CPU limit, the safety net under the estimates. Its CPU
// time and estimated events are logged, with the margin to the limit:
//
//	backoff?strategies=…&clients=1000&trials=10&sweep=10:1000:10: 2e+08 estimated events, 15.79 CPU-s (wall 1m45.14s), 81 ns each; the CPU limit 1m0s is 3.8× that
//
// (Skipped under the race detector, which slows these runs tenfold, and with -short; CI runs
// it without either.)
func TestHeaviestAdmittedFinishes(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("heavy runs: run without -race and -short (CI does)")
	}
	srv := MustOpenServer(t, func(o *serverOptions) {
		o.hub = hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, MaxRunCPU: api.DefaultMaxRunCPU, CacheSize: 64}
	})
	for _, l := range srv.Labs.All() {
		t.Run(l.Name, func(t *testing.T) {
			v, ok := heaviestAdmitted(t, l, api.DefaultBudget)
			if !ok {
				t.Fatalf("no cost parameter of %s, lowered alone from the heaviest corner, fits the budget", l.Name)
			}
			q := v.Encode()
			est := l.Cost(v)
			start, cpu0 := time.Now(), processCPU(t)
			resp, body := srv.getHeavy(t, "/api/v1/"+l.Name+"?"+q)
			cpu, wall := processCPU(t)-cpu0, time.Since(start)
			t.Logf("%s?%s: %.2g estimated events, %.2f CPU-s (wall %v), %.0f ns each; the CPU limit %v is %.1f× that",
				l.Name, q, float64(est), cpu.Seconds(), wall.Round(time.Millisecond), float64(cpu.Nanoseconds())/float64(max(est, 1)),
				api.DefaultMaxRunCPU, api.DefaultMaxRunCPU.Seconds()/cpu.Seconds())
			if resp.StatusCode != http.StatusOK {
				if strings.Contains(string(body), "computing") {
					t.Fatalf("admitted by the budget, then stopped by the CPU limit (%v) after %.2f CPU-s: %s", api.DefaultMaxRunCPU, cpu.Seconds(), body)
				}
				t.Fatalf("%d %s", resp.StatusCode, body)
			}
		})
	}
}

// heaviestAdmitted returns the scenario of TestHeaviestAdmittedFinishes: every cost parameter
// of l at its largest, then the first integer one that, lowered alone, can make the scenario
// fit budget lowered to the largest value with which it fits. It reports false when none can.
func heaviestAdmitted(tb testing.TB, l *lab.Lab, budget int64) (param.Values, bool) {
	tb.Helper()
	v := l.Params.Defaults()
	for _, name := range l.CostParams {
		sp, _ := l.Params.Lookup(name)
		if w, err := v.With(name, largest(sp)); err == nil {
			v = w
		}
	}
	if err := l.CheckBudget(v, budget); err == nil {
		return v, true // the heaviest corner fits
	}
	for _, name := range l.CostParams {
		sp, _ := l.Params.Lookup(name)
		if sp.Kind != param.Int {
			continue
		}
		with := func(n int64) param.Values {
			w, err := v.With(name, strconv.FormatInt(n, 10))
			if err != nil {
				tb.Fatal(err)
			}
			return w
		}
		lo, hi := int64(sp.Min), v.Int(name)
		if l.CheckBudget(with(lo), budget) != nil {
			continue
		}
		for lo < hi { // the largest n in [lo, hi] that fits
			mid := lo + (hi-lo+1)/2
			if l.CheckBudget(with(mid), budget) == nil {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return with(lo), true
	}
	return v, false
}

// largest is the heaviest value of a parameter as a URL writes it: its maximum, every option
// of a list, the longest range up to its maximum; the default for other kinds.
func largest(sp param.Spec) string {
	switch sp.Kind {
	case param.Int, param.Float:
		return strconv.FormatFloat(sp.Max, 'f', -1, 64)
	case param.Duration:
		return param.FormatDuration(time.Duration(sp.Max * float64(time.Millisecond)))
	case param.EnumList:
		return strings.Join(sp.Options, ",")
	case param.IntRange:
		to := int64(sp.Max)
		step := max(1, (to-int64(sp.Min))/int64(max(sp.MaxLen-1, 1)))
		from := max(int64(sp.Min), to-int64(sp.MaxLen-1)*step)
		return strconv.FormatInt(from, 10) + ":" + strconv.FormatInt(to, 10) + ":" + strconv.FormatInt(step, 10)
	}
	return sp.Default
}

// getHeavy is Get for a run that may take minutes on a busy machine: the only bound on its
// wait is the test binary's -timeout (a bound on hangs; the CPU limit bounds the run itself).
func (s *Server) getHeavy(t *testing.T, path string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, s.URL+path, nil)
	if err != nil {
		t.Fatalf("GET %.80s: %v", path, err)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatalf("GET %.80s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %.80s: reading body: %v", path, err)
	}
	return resp, b
}

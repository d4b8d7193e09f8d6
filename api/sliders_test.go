package api_test

import (
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

// TestEverySliderEnd runs, through the JSON API of a server configured as `playground serve`
// is, every value at each end of every slider of every lab, the other parameters at their
// defaults. Admission is decided by the estimated work alone, before the run: every end must
// be admitted (the page offers it), and a run the budget admits must finish — never be
// stopped by the per-run CPU limit, the safety net under the estimates. Each end's CPU time
// (the test process's, which serves it), wall time and estimated events are logged:
//
//	backoff?trials=1000: 1.5e+08 estimated events, 9.30 CPU-s (wall 33.536s), 61 ns each; the CPU limit 1m0s is 6.5× that
//
// (Some of these runs take seconds; under the race detector, which slows them tenfold, the
// test is skipped: CI runs it again without it.)
func TestEverySliderEnd(t *testing.T) {
	srv := mustOpenServed(t)
	var heaviest struct {
		name string
		cpu  time.Duration
	}
	for _, l := range srv.Labs.All() {
		for _, sp := range l.Params {
			if sp.Random || (sp.Kind != param.Int && sp.Kind != param.Float && sp.Kind != param.Duration) {
				continue
			}
			for _, end := range []float64{sp.Min, sp.Max} {
				value := strconv.FormatFloat(end, 'f', -1, 64)
				if sp.Kind == param.Duration {
					value = param.FormatDuration(time.Duration(end * float64(time.Millisecond)))
				}
				q := sp.Name + "=" + value
				t.Run(l.Name+"/"+q, func(t *testing.T) {
					v, err := l.Params.ParseQuery(q)
					if err != nil {
						t.Fatal(err)
					}
					if err := l.CheckBudget(v, api.DefaultBudget); err != nil {
						t.Fatalf("refused before the run, though the page offers it: %v", err)
					}
					if cpu := srv.mustFinish(t, l, v); cpu > heaviest.cpu {
						heaviest.name, heaviest.cpu = l.Name+"?"+q, cpu
					}
				})
			}
		}
	}
	if heaviest.cpu > 0 {
		t.Logf("heaviest end %s: %.2f CPU-s, %.1f× under the CPU limit of %v",
			heaviest.name, heaviest.cpu.Seconds(), api.DefaultMaxRunCPU.Seconds()/heaviest.cpu.Seconds(), api.DefaultMaxRunCPU)
	}
}

// mustOpenServed opens a server whose hub is configured as `playground serve` configures it:
// the default work budget and CPU limit. Its runs are heavy: under the race detector, which
// slows them tenfold, and with -short the test is skipped (CI runs it without either).
func mustOpenServed(t *testing.T) *Server {
	t.Helper()
	if raceEnabled || testing.Short() {
		t.Skip("heavy runs: run without -race and -short (CI does)")
	}
	return MustOpenServer(t, func(o *serverOptions) {
		o.hub = hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, MaxRunCPU: api.DefaultMaxRunCPU, CacheSize: 64}
	})
}

// mustFinish runs scenario v of l through the JSON API and fails t unless it finishes; a run
// stopped by the CPU limit fails saying so. It logs the run's estimated events, CPU time
// (the test process's, which serves it) and wall time, and returns the CPU time. Its wait is
// bounded only by the test binary's -timeout: a heavy run may take minutes on a busy machine
// (the CPU limit bounds the run itself).
func (s *Server) mustFinish(t *testing.T, l *lab.Lab, v param.Values) time.Duration {
	t.Helper()
	q, est := v.Encode(), l.Cost(v)
	start, cpu0 := time.Now(), processCPU(t)
	resp, body := s.GetContext(t, t.Context(), "/api/v1/"+l.Name+"?"+q)
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
	return cpu
}

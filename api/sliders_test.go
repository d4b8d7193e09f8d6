package api_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/param"
)

// TestEverySliderEnd runs, through the JSON API of a server configured as `playground serve`
// is, every value at each end of every slider of every lab, the other parameters at their
// defaults. Admission is decided by the estimated work alone, before the run: every end must
// be admitted (the page offers it), and a run the budget admits must finish — never be
// stopped by the per-run CPU limit, the safety net under the estimates. Each end's wall time,
// CPU time (the test process's, which serves it) and estimated events are logged:
//
//	TestEverySliderEnd/backoff/trials=1000: 9.30 CPU-s (wall 33.536s), 1.5e+08 estimated events, 61 ns each
//
// (Some of these runs take seconds; under the race detector, which slows them tenfold, the
// test is skipped: CI runs it again without it.)
func TestEverySliderEnd(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("heavy runs: run without -race and -short (CI does)")
	}
	srv := MustOpenServer(t, func(o *serverOptions) {
		o.hub = hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, MaxRunCPU: api.DefaultMaxRunCPU, CacheSize: 64}
	})
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
					est := l.Cost(v)
					start, cpu0 := time.Now(), processCPU(t)
					resp, body := srv.getHeavy(t, "/api/v1/"+l.Name+"?"+q)
					cpu, wall := processCPU(t)-cpu0, time.Since(start)
					t.Logf("%.2f CPU-s (wall %v), %.2g estimated events, %.0f ns each",
						cpu.Seconds(), wall.Round(time.Millisecond), float64(est), float64(cpu.Nanoseconds())/float64(max(est, 1)))
					if resp.StatusCode != http.StatusOK {
						if strings.Contains(string(body), "computing") {
							t.Fatalf("admitted by the budget, then stopped by the CPU limit (%v) after %.2f CPU-s: %s",
								api.DefaultMaxRunCPU, cpu.Seconds(), body)
						}
						t.Fatalf("%d %s", resp.StatusCode, body)
					}
					if cpu > heaviest.cpu {
						heaviest.name, heaviest.cpu = l.Name+"?"+q, cpu
					}
				})
			}
		}
	}
	t.Logf("heaviest end %s: %.2f CPU-s, %.1f× under the CPU limit of %v",
		heaviest.name, heaviest.cpu.Seconds(), api.DefaultMaxRunCPU.Seconds()/heaviest.cpu.Seconds(), api.DefaultMaxRunCPU)
}

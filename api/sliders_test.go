package api_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/internal/heavy"
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
				q := sp.Name + "=" + sp.Format(end)
				if _, err := l.Parse(q); err != nil {
					// The end breaks a rule across parameters at the defaults: the API says so,
					// naming the rule's parameters, and the end runs with another of them moved
					// to fit, when that fits the budget.
					t.Run(l.Name+"/"+q+"/refused", func(t *testing.T) {
						resp, body := srv.Get(t, "/api/v1/"+l.Name+"?"+q)
						if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"params":["`) {
							t.Errorf("%d %s, want 400 naming the rule's parameters", resp.StatusCode, body)
						}
					})
					var ok bool
					if q, ok = keepRules(t, l, q, err); !ok {
						continue
					}
				}
				t.Run(l.Name+"/"+q, func(t *testing.T) {
					v, err := l.Params.ParseQuery(q)
					if err != nil {
						t.Fatal(err)
					}
					if err := l.CheckBudget(v, api.DefaultBudget); err != nil {
						if !slices.Contains(l.RefusedEnds, q) {
							t.Fatalf("refused before the run, though the page offers it: %v", err)
						}
						// A range the budget bounds, as the lab declares (a week of traffic at the
						// default rate): refused up front, naming the parameter and a value that
						// fits — which is admitted and finishes.
						if v, err = fitted(t, l, v, err); err != nil {
							t.Fatal(err)
						}
					} else if slices.Contains(l.RefusedEnds, q) {
						t.Errorf("%s declares %s refused at the defaults (lab.Lab.RefusedEnds), but the budget admits it", l.Name, q)
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

// fitted returns v with the value the budget's refusal err suggests ("lower duration to
// 2h1m12s or less"), after checking that the refusal names a parameter and that the value it
// suggests keeps the lab's rules and is admitted.
func fitted(t *testing.T, l *lab.Lab, v param.Values, err error) (param.Values, error) {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param == "" {
		return v, fmt.Errorf("refused without naming a parameter: %v", err)
	}
	m := regexp.MustCompile(`lower ` + regexp.QuoteMeta(pe.Param) + ` to (\S+)`).FindStringSubmatch(pe.Msg)
	if m == nil {
		return v, fmt.Errorf("refused without a value of %s that fits: %v", pe.Param, pe.Msg)
	}
	w, err := v.With(pe.Param, m[1])
	if err != nil {
		return v, fmt.Errorf("the suggested %s=%s is not a valid value: %v", pe.Param, m[1], err)
	}
	if _, err := l.Parse(w.Encode()); err != nil {
		return v, fmt.Errorf("the suggested %s=%s breaks a rule: %v", pe.Param, m[1], err)
	}
	if err := l.CheckBudget(w, api.DefaultBudget); err != nil {
		return v, fmt.Errorf("the suggested %s=%s is refused too: %v", pe.Param, m[1], err)
	}
	t.Logf("refused up front (%s); runs with %s=%s", pe.Msg, pe.Param, m[1])
	return w, nil
}

// mustOpenServed opens a server whose hub is configured as `playground serve` configures it:
// the default work budget and CPU limit. Its runs are heavy: under the race detector, which
// slows them tenfold, and with -short the test is skipped (CI runs it without either).
func mustOpenServed(t *testing.T) *Server {
	t.Helper()
	heavy.Test(t)
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
	t.Logf("%s?%s: %.2g estimated work units, %.2f CPU-s (wall %v), %.0f ns each; the CPU limit %v is %.1f× that",
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

// keepRules returns query q, which sets one parameter and breaks a rule across parameters
// (err), with one of the rule's other parameters moved to fit: to the same value (the edge of
// the rule: cap=1ms with base=1ms), else to the first end of its slider that keeps the rules;
// or false when none does within the default budget (subset=1000 needs 1,000 backends, more
// work than one run may do at the other defaults).
func keepRules(t *testing.T, l *lab.Lab, q string, err error) (string, bool) {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) || len(pe.Params) < 2 {
		t.Fatalf("%s %s: %v", l.Name, q, err)
	}
	for _, name := range pe.Params {
		sp, ok := l.Params.Lookup(name)
		if !ok || strings.HasPrefix(q, name+"=") {
			continue
		}
		_, same, _ := strings.Cut(q, "=")
		values := []string{same}
		for _, end := range []float64{sp.Min, sp.Max} {
			values = append(values, sp.Format(end))
		}
		for _, value := range values {
			if v, err := l.Parse(q + "&" + name + "=" + value); err == nil && l.CheckBudget(v, api.DefaultBudget) == nil {
				return q + "&" + name + "=" + value, true
			}
		}
	}
	t.Logf("%s %s: no value of %v keeps the rules within the budget", l.Name, q, pe.Params)
	return "", false
}

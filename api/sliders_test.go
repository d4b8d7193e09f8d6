package api_test

import (
	"errors"
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
// defaults: each must run to completion, neither refused by the budget nor stopped by the
// per-run CPU limit. (Some of these runs take seconds; under the race detector, which slows
// them tenfold, the test is skipped: CI runs it again without it.)
func TestEverySliderEnd(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("heavy runs: run without -race and -short (CI does)")
	}
	srv := MustOpenServer(t, func(o *serverOptions) {
		o.hub = hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, MaxRunCPU: api.DefaultMaxRunCPU, CacheSize: 64}
	})
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
					start := time.Now()
					resp, body := srv.Get(t, "/api/v1/"+l.Name+"?"+q)
					if resp.StatusCode != http.StatusOK {
						t.Fatalf("%d %s", resp.StatusCode, body)
					}
					t.Logf("%v", time.Since(start).Round(time.Millisecond))
				})
			}
		}
	}
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
		if !ok || q[:len(name)+1] == name+"=" {
			continue
		}
		_, same, _ := strings.Cut(q, "=")
		values := []string{same}
		for _, end := range []float64{sp.Min, sp.Max} {
			value := strconv.FormatFloat(end, 'f', -1, 64)
			if sp.Kind == param.Duration {
				value = param.FormatDuration(time.Duration(end * float64(time.Millisecond)))
			}
			values = append(values, value)
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

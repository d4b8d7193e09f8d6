package api_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
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

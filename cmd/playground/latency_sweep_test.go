package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunLatencySweep: the rate limiter's store-latency sweep comes out of the CLI, in JSON
// (summary.latency_sweep, summary.cas_ceiling) and in CSV (the chart's series), at the
// latencies asked for with the chosen one added.
func TestRunLatencySweep(t *testing.T) {
	const u = "/ratelimit?algorithms=sliding_log&limit=100&load=2&duration=10s&instances=4&store=cas&store_latency=25ms&latency_sweep=0:40:20"
	code, out, errs := runCLI("run", "-q", u)
	if code != 0 {
		t.Fatalf("run %s: exit %d: %s", u, code, errs)
	}
	var res struct {
		Summary struct {
			Sweep []struct {
				LatencyMS float64 `json:"store_latency_ms"`
				Store     string  `json:"store"`
				AdmittedX float64 `json:"admitted_x"`
			} `json:"latency_sweep"`
			Ceiling map[string]struct {
				CeilingX  float64 `json:"ceiling_x"`
				AtCeiling bool    `json:"at_ceiling"`
			} `json:"cas_ceiling"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	var cas []float64
	for _, p := range res.Summary.Sweep {
		if p.Store == "cas" {
			cas = append(cas, p.LatencyMS)
		}
	}
	if len(res.Summary.Sweep) != 16 || len(cas) != 4 || cas[0] != 0 || cas[1] != 20 || cas[2] != 25 || cas[3] != 40 {
		t.Errorf("summary.latency_sweep has %d points, cas at %v ms: want 16, cas at 0, 20, 25 (the chosen) and 40", len(res.Summary.Sweep), cas)
	}
	if c := res.Summary.Ceiling["sliding_log"]; c.CeilingX != 0.4 || !c.AtCeiling {
		t.Errorf("summary.cas_ceiling.sliding_log = %+v, want at a ceiling of 0.4× limit", c)
	}
	code, out, errs = runCLI("run", "-q", "-format", "csv", u)
	if code != 0 {
		t.Fatalf("run -format csv %s: exit %d: %s", u, code, errs)
	}
	for _, want := range []string{"latency async,latency_admitted,async,25,", "latency cas,latency_admitted,cas,40,", "latency incr,latency_admitted,get_set,0,", "latency cas ceiling,latency_admitted,cas ceiling,"} {
		if !strings.Contains(out, want) {
			t.Errorf("csv lacks %q", want)
		}
	}
}

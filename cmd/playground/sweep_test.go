package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestRunLoadBalanceSweep: the load-balancing lab's subset-size sweep comes out of the CLI, in
// JSON (summary.subset_sweep) and in CSV (the sweep charts' series), at the sizes asked for.
func TestRunLoadBalanceSweep(t *testing.T) {
	const u = "/loadbalance?clients=40&backends=40&subset=8&duration=3s&policy=round_robin&sweep=4:40:12"
	code, out, errs := runCLI("run", "-q", u)
	if code != 0 {
		t.Fatalf("run %s: exit %d: %s", u, code, errs)
	}
	var res struct {
		Summary struct {
			Sweep map[string][]struct {
				Subset int     `json:"subset"`
				Conn   float64 `json:"conn_max_over_mean"`
				CPU    float64 `json:"cpu_max_over_mean"`
			} `json:"subset_sweep"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	random := res.Summary.Sweep["random"]
	if len(random) != 4 || random[0].Subset != 4 || random[3].Subset != 40 || random[0].CPU < 1 || random[0].Conn <= 1 {
		t.Errorf("summary.subset_sweep.random = %+v, want subsets 4, 16, 28, 40 with spreads", random)
	}
	code, out, errs = runCLI("run", "-q", "-format", "csv", u)
	if code != 0 {
		t.Fatalf("run -format csv %s: exit %d: %s", u, code, errs)
	}
	for _, want := range []string{"conn spread random,sweep_conn,random,4,", "cpu spread deterministic,sweep_cpu,deterministic,40,", "p99 random,sweep_p99,random,28,"} {
		if !strings.Contains(out, want) {
			t.Errorf("csv lacks %q", want)
		}
	}
}

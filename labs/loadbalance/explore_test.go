package loadbalance

import (
	"context"
	"os"
	"testing"
	"time"
)

func TestExplore(t *testing.T) {
	q := os.Getenv("LBQ")
	if q == "" {
		t.Skip()
	}
	v, err := Params.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	l := Lab()
	start := time.Now()
	r, err := l.Execute(context.Background(), v, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%v cost %d", time.Since(start), Cost(v))
	for name, p := range r.Summary["policies"].(map[string]PolicySummary) {
		t.Logf("%-12s cpu %.1f/%.1f/%.1f max/mean %.2f max/min %.2f wasted %.1f err %d (rej %d ff %d stop %d) p50 %.0f p99 %.0f", name, p.CPUMin, p.CPUMean, p.CPUMax, p.MaxOverMean, p.MaxOverMin, p.WastedCPUPct, p.Errors, p.Rejected, p.FailFast, p.Stopped, p.LatencyP50MS, p.LatencyP99MS)
	}
	t.Logf("connections %+v", r.Summary["connections"])
}

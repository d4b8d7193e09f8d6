package retrystorm

import (
	"fmt"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

func TestExplore(t *testing.T) {
	all := "policies=none,retries,adaptive,grpc,aws,budget,breaker,circuit,throttle"
	for _, q := range []string{all, all + "&trigger=capacity", all + "&trigger=spike", all + "&duration=2m",
		all + "&trigger=outage&failure=0.5&trigger_start=0s&trigger_length=10s&duration=10s&clients=100&rate=1000&capacity=100000&service=concurrency&service_time=0s&backoff=none",
	} {
		start := time.Now()
		r := newRunner()
		res := labtest.MustRun(t, r.lab(), q)
		line := ""
		for p, ps := range res.Summary["policies"].(map[string]PolicySummary) {
			line += fmt.Sprintf("\n  %-9s amp %.3f succ %.2f%% %s", p, ps.Amplification, ps.SuccessPct, ps.Verdict)
		}
		t.Logf("%q in %v work %d est %d mem %.1fMB:%s", q, time.Since(start), r.work.Load(), costOf(mustParseQ(t, q)), float64(memoryOf(mustParseQ(t, q)))/1e6, line)
	}
}

func mustParseQ(t *testing.T, q string) param.Values {
	v, err := Params.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

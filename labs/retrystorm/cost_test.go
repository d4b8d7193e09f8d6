package retrystorm

import (
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab/labtest"
)

// costScenarios span the parameter space: every policy, storms and calm, each trigger, both
// service models, layers, shedding, long sleeps and timeouts, small and many clients, and the
// sweeps. tight marks those where the estimate must be within 2× both ways: a storm that
// happens, or a service that cannot storm; elsewhere it may be above the work by up to the
// retries' bound (a storm that could happen and does not), never below it by more than 2×.
var costScenarios = []struct {
	q     string
	tight bool
}{
	{"", true},
	{allPolicies, true},
	{allPolicies + "&trigger=capacity", true},
	{allPolicies + "&trigger=spike&spike=3", true},
	{allPolicies + "&trigger=none", true},
	{allPolicies + "&retries=10&layers=2&duration=20s&trigger_start=5s&trigger_length=5s", false},
	{"policies=retries&retries=3&layers=3&duration=10s&trigger_start=2s&rate=100", true},
	{"policies=retries,budget&service=concurrency&service_time=1s&capacity=100&rate=40&retries=2&timeout=3s&network=100ms&backoff=none&trigger=spike&trigger_start=20s&trigger_length=5s&duration=80s", true},
	{brooker + "&failure=0.5&" + allPolicies, true},
	{brooker + "&failure=0.01&policies=retries,adaptive&retries=10", true},
	{"policies=retries&failure=0.05&duration=30s", false},
	{"policies=retries,throttle,circuit&clients=1000&rate=100&duration=30s", true},
	{"policies=retries&shed=limit&queue_limit=50&duration=30s", true},
	{"policies=retries&shed=deadline&duration=30s", false},
	{"policies=retries,budget&backoff=exponential&base=1s&cap=1m&timeout=10s&duration=2m", false},
	{"policies=none,retries&rate=2000&capacity=100000&duration=10s&trigger_start=5s", true},
	{"policies=adaptive,budget&rate=0.1&clients=1&duration=5m", true},
	{"policies=retries,adaptive&sweep=0:100:25&duration=20s", false},
	{"policies=retries,breaker&client_sweep=1:1000:333&duration=20s", true},
}

// TestCostBoundsWork compares the cost estimate with the work runs really do (counted as they
// go, one unit per event): never below half of it anywhere, and within 2× either way where a
// storm happens or none can.
func TestCostBoundsWork(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t) // the estimate's arithmetic: nothing for the race detector
	scenarios := costScenarios
	for _, c := range scenarios {
		v, err := Params.ParseQuery(c.q)
		if err != nil {
			t.Fatal(err)
		}
		r := newRunner()
		labtest.MustRun(t, r.lab(), c.q)
		est, got := float64(costOf(v)), float64(r.work.Load())
		ratio := max(est, 1000) / max(got, 1000)
		t.Logf("%q: estimated %.0f, counted %.0f (×%.2f)", c.q, est, got, ratio)
		if ratio < 0.5 || (c.tight && ratio > 2) {
			t.Errorf("%q: estimated %.0f work, counted %.0f (×%.2f)", c.q, est, got, ratio)
		}
	}
}

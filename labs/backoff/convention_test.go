package backoff

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

// recorder is a policy that notes the sleeps another policy returns, by attempt.
type recorder struct {
	p      backoff.Policy
	sleeps map[int]time.Duration
}

func (r *recorder) Sleep(attempt int, prev time.Duration, rnd backoff.Rand) time.Duration {
	d := r.p.Sleep(attempt, prev, rnd)
	if _, ok := r.sleeps[attempt]; !ok {
		r.sleeps[attempt] = d
	}
	return d
}

// TestBaseConventions: the simulated strategies count retries as Brooker's simulator does,
// the first retry sleeping a·r under exponential backoff, while the retry schedule counts as
// the Qiita post does, its retry 1 sleeping a. The schedule table shows both for each retry,
// and the base's help says which is which.
func TestBaseConventions(t *testing.T) {
	const a, cap, r = 5 * time.Millisecond, 2 * time.Second, 3.0
	rec := &recorder{p: Policy("exponential", a, cap, r), sleeps: map[int]time.Duration{}}
	var w World
	if _, err := w.Simulate(context.Background(), Config{Clients: 20, Policy: rec, LatencyMean: 10 * time.Millisecond, LatencySD: 2 * time.Millisecond, Seed: 1}, nil); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, "clients=20&base=5ms&multiplier=3&trials=1&sweep=off&strategies=exponential")
	steps := res.Summary["schedule"].([]ScheduleStep)
	for n := 1; n <= 4; n++ {
		simulated, ok := rec.sleeps[n]
		if !ok {
			t.Fatalf("the simulation made no retry %d", n)
		}
		st := steps[n-1]
		t.Logf("retry %d: simulated exponential sleeps %v; the schedule's t_n %.0f ms, its simulated column %.0f ms", n, simulated, st.SleepMS, st.SimulatedSleepMS)
		if got := time.Duration(st.SimulatedSleepMS * 1e6); got != simulated {
			t.Errorf("retry %d: the schedule's simulated column says %v, the simulation slept %v", n, got, simulated)
		}
		if want := float64(a) * pow(r, n-1) / 1e6; st.SleepMS != want {
			t.Errorf("retry %d: t_n = %v ms, want a·r^(n−1) = %v ms (the Qiita post)", n, st.SleepMS, want)
		}
	}
	help := ""
	for _, sp := range Params {
		if sp.Name == "base" {
			help = sp.Help
		}
	}
	if strings.HasPrefix(strings.ToLower(help), "first sleep") || !strings.Contains(help, "a·r") {
		t.Errorf("base's help %q: want it to say the simulated strategies' first retry sleeps up to a·r", help)
	}
}

func pow(x float64, n int) float64 {
	p := 1.0
	for range n {
		p *= x
	}
	return p
}

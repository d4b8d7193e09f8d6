package retry_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// Every policy satisfies Policy.
var (
	_ retry.Policy = retry.None{}
	_ retry.Policy = retry.Retries{}
	_ retry.Policy = (*retry.Adaptive)(nil)
	_ retry.Policy = (*retry.GRPC)(nil)
	_ retry.Policy = (*retry.AWS)(nil)
	_ retry.Policy = (*retry.Budget)(nil)
	_ retry.Policy = (*retry.Breaker)(nil)
	_ retry.Policy = (*retry.Circuit)(nil)
	_ retry.Policy = (*retry.Throttle)(nil)
)

const (
	ms  = int64(time.Millisecond)
	sec = int64(time.Second)
)

// counting is a Rand that returns v and counts the draws.
type counting struct {
	n int
	v float64
}

func (c *counting) Float64() float64 { c.n++; return c.v }

// request runs one request through p at now: attempt k fails with outcomes[k] (Success ends the
// request; an attempt past the end of outcomes succeeds), up to n retries. It returns the
// attempts sent and whether the request succeeded; firstRefused reports a refused first try.
func request(p retry.Policy, now int64, n int, outcomes ...retry.Outcome) (sent int, ok, firstRefused bool) {
	prev := retry.Success
	for k := 0; k <= n; k++ {
		cost, allowed := p.Allow(now, k, prev)
		if !allowed {
			return sent, false, k == 0
		}
		o := retry.Success
		if k < len(outcomes) {
			o = outcomes[k]
		}
		sent++
		p.Record(now, k, o, cost)
		if o == retry.Success {
			return sent, true, false
		}
		prev = o
	}
	return sent, false, false
}

// fails returns n copies of Failure.
func fails(n int) []retry.Outcome {
	o := make([]retry.Outcome, n)
	for i := range o {
		o[i] = retry.Failure
	}
	return o
}

// load runs requests independent requests through p, one after another: each attempt fails
// with probability x (one draw from rng per attempt sent), with up to n retries. It returns the
// attempts sent and the requests that succeeded.
func load(p retry.Policy, rng *rand.Rand, now int64, x float64, requests, n int) (attempts, successes int) {
	for range requests {
		prev := retry.Success
		for k := 0; k <= n; k++ {
			cost, ok := p.Allow(now, k, prev)
			if !ok {
				break
			}
			attempts++
			o := retry.Success
			if rng.Float64() < x {
				o = retry.Failure
			}
			p.Record(now, k, o, cost)
			if o == retry.Success {
				successes++
				break
			}
			prev = o
		}
	}
	return attempts, successes
}

func TestOutcomeString(t *testing.T) {
	for o, want := range map[retry.Outcome]string{
		retry.Success: "success", retry.Failure: "failure", retry.Timeout: "timeout", 7: "outcome(7)",
	} {
		if got := o.String(); got != want {
			t.Errorf("Outcome(%d).String() = %q, want %q", o, got, want)
		}
	}
}

func TestNone(t *testing.T) {
	var p retry.None
	for _, tc := range []struct {
		attempt int
		want    bool
	}{{0, true}, {1, false}, {2, false}, {10, false}} {
		if cost, ok := p.Allow(0, tc.attempt, retry.Failure); ok != tc.want || cost != 0 {
			t.Errorf("Allow(attempt %d) = %d, %v; want 0, %v", tc.attempt, cost, ok, tc.want)
		}
	}
	if sent, ok, _ := request(p, 0, 3, fails(4)...); sent != 1 || ok {
		t.Errorf("a failing request sent %d attempts (ok %v), want 1", sent, ok)
	}
}

// With independent failures at rate x, N retries send Σ x^k attempts per request (k = 0..N) and
// succeed with probability 1 − x^(N+1): 1.875 and 93.75% at x = 0.5, N = 3.
func TestRetriesAmplification(t *testing.T) {
	tests := []struct {
		x          float64
		n          int
		load, succ float64
	}{
		{0.5, 3, 1.875, 0.9375},
		{0.75, 2, 1 + 0.75 + 0.5625, 1 - 0.421875},
		{1, 3, 4, 0},
		{0, 3, 1, 1},
	}
	for _, tc := range tests {
		rng := rand.New(rand.NewPCG(1, 2))
		const requests = 200_000
		a, s := load(retry.Retries{}, rng, 0, tc.x, requests, tc.n)
		gotLoad, gotSucc := float64(a)/requests, float64(s)/requests
		// 200,000 requests: the standard error of both is below 0.003.
		if d := gotLoad - tc.load; d > 0.01 || d < -0.01 {
			t.Errorf("x=%v N=%d: %.4f attempts per request, want %.4f", tc.x, tc.n, gotLoad, tc.load)
		}
		if d := gotSucc - tc.succ; d > 0.01 || d < -0.01 {
			t.Errorf("x=%v N=%d: success %.4f, want %.4f", tc.x, tc.n, gotSucc, tc.succ)
		}
	}
}

// Every policy but Circuit and Throttle lets every first try go, whatever failed before.
func TestFirstTriesAlwaysGo(t *testing.T) {
	policies := map[string]retry.Policy{
		"none":     retry.None{},
		"retries":  retry.Retries{},
		"adaptive": retry.DefaultAdaptive(),
		"grpc":     retry.DefaultGRPC(),
		"aws":      retry.DefaultAWS(),
		"budget":   retry.DefaultBudget(),
		"breaker":  retry.DefaultBreaker(),
	}
	for name, p := range policies {
		for i := range 1000 {
			now := int64(i) * ms
			cost, ok := p.Allow(now, 0, retry.Success)
			if !ok {
				t.Fatalf("%s refused first try %d after %d failures", name, i, i)
			}
			p.Record(now, 0, retry.Failure, cost)
		}
	}
}

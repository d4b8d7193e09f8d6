package retry_test

import (
	"bufio"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// TestBrookerGolden replays testdata/brooker_golden.txt, written by Marc Brooker's own
// AdaptiveRetryStrategy and CircuitBreakerRetryStrategy (mbrooker/simulator_example,
// retry_sim/retry_strategy.py, driven by testdata/brooker_golden.py): for every request, the
// outcomes of the attempts his code sent. Adaptive and Breaker must let exactly those attempts
// go (a retry after each failure but the last, none after the last) and end each request with
// the same state, bit for bit: the bucket, or failures/calls.
func TestBrookerGolden(t *testing.T) {
	f, err := os.Open("testdata/brooker_golden.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()

	adaptive, breaker := retry.DefaultAdaptive(), retry.DefaultBreaker()
	lines, refused := map[string]int{}, map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		name, sent := fields[0], fields[2]
		var p retry.Policy
		n := 1 << 30 // his adaptive strategy has no N: the bucket alone bounds retries
		switch name {
		case "adaptive":
			p = adaptive
		case "breaker":
			p, n = breaker, 3 // CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1)
		default:
			t.Fatalf("unknown policy in %q", sc.Text())
		}
		lines[name]++

		if _, ok := p.Allow(0, 0, retry.Success); !ok {
			t.Fatalf("%s: first try refused: %s", name, sc.Text())
		}
		for k := range len(sent) {
			o := retry.Success
			if sent[k] == 'F' {
				o = retry.Failure
			}
			p.Record(0, k, o, 0)
			if o == retry.Success {
				if k != len(sent)-1 {
					t.Fatalf("%s: success before the last attempt: %s", name, sc.Text())
				}
				break
			}
			if k+1 > n {
				if k != len(sent)-1 {
					t.Fatalf("%s: attempts beyond N: %s", name, sc.Text())
				}
				break
			}
			_, ok := p.Allow(0, k+1, o)
			if want := k < len(sent)-1; ok != want {
				t.Fatalf("%s: retry %d allowed = %v, Brooker's code: %v (%s)", name, k+1, ok, want, sc.Text())
			}
			if !ok {
				refused[name]++
			}
		}

		want := make([]float64, 0, 2)
		for _, s := range fields[3:] {
			b, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, math.Float64frombits(b))
		}
		switch name {
		case "adaptive":
			if got := adaptive.Tokens(); math.Float64bits(got) != math.Float64bits(want[0]) {
				t.Fatalf("adaptive: bucket %v, Brooker's code %v (%s)", got, want[0], sc.Text())
			}
		case "breaker":
			if got, w := breaker.Ratio(), want[1]/want[0]; math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("breaker: failures/calls %v, Brooker's code %v (%s)", got, w, sc.Text())
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// The golden exercises both decisions of both policies.
	for _, name := range []string{"adaptive", "breaker"} {
		if lines[name] < 1000 || refused[name] < 100 {
			t.Errorf("%s: %d requests, %d refused retries in the golden; want ≥ 1000 and ≥ 100", name, lines[name], refused[name])
		}
	}
}

// Brooker's bucket on a short sequence, by hand: it starts full at 5; a first try deposits 0.1
// (capped at 5); a retry needs more than 1 token and takes 1.
func TestAdaptiveRules(t *testing.T) {
	a := retry.DefaultAdaptive()
	if got := a.Tokens(); got != 5 {
		t.Fatalf("new bucket holds %v, want 5 (starts full)", got)
	}
	// A request that always fails retries while tokens > 1: 5 → 4 → 3 → 2 → 1, then 1 > 1 fails.
	sent, ok, _ := request(a, 0, 100, fails(100)...)
	if sent != 5 || ok || a.Tokens() != 1 {
		t.Fatalf("first failing request: %d attempts, bucket %v; want 5 attempts (4 retries), bucket 1", sent, a.Tokens())
	}
	// The next request deposits 0.1 (1.1 > 1): one retry, leaving about 0.1.
	if sent, _, _ := request(a, 0, 100, fails(100)...); sent != 2 {
		t.Fatalf("second failing request sent %d attempts, want 2", sent)
	}
	// Now about ten requests' deposits are needed before the next retry: none of the next nine
	// retries (0.2 ... 1.0, and 1.0 is not > 1).
	for i := range 9 {
		if sent, _, _ := request(a, 0, 100, fails(100)...); sent != 1 {
			t.Fatalf("request %d after the bucket emptied retried (%d attempts, bucket %v)", i, sent, a.Tokens())
		}
	}
	// Successes cost nothing and deposit only on their first try.
	b := retry.NewAdaptive(0.1, 5)
	for range 10 {
		request(b, 0, 3)
	}
	if b.Tokens() != 5 {
		t.Errorf("successes changed a full bucket to %v", b.Tokens())
	}
	if cost, ok := b.Allow(0, 1, retry.Failure); !ok || cost != 1 || b.Tokens() != 4 {
		t.Errorf("retry from a full bucket: cost %d ok %v bucket %v; want 1, true, 4", cost, ok, b.Tokens())
	}
	// A zero capacity never retries; a negative deposit deposits nothing.
	z := retry.NewAdaptive(-1, 0)
	if _, ok := z.Allow(0, 1, retry.Failure); ok {
		t.Error("a bucket of capacity 0 allowed a retry")
	}
}

// Brooker's retry-only breaker: calls count first tries, failures count every failed attempt,
// retries stop while failures/calls > threshold (strictly).
func TestBreakerRules(t *testing.T) {
	b := retry.NewBreaker(0.1)
	// 10 successful requests: calls 10, failures 0.
	for range 10 {
		request(b, 0, 3)
	}
	// The 11th fails on its first try: failures 1, calls 11, 1/11 ≤ 0.1: retry allowed; the retry
	// fails too: 2/11 > 0.1: no more.
	if sent, _, _ := request(b, 0, 3, fails(4)...); sent != 2 {
		t.Fatalf("request 11 sent %d attempts, want 2", sent)
	}
	if got := b.Ratio(); got != 2.0/11 {
		t.Fatalf("ratio %v, want 2/11", got)
	}
	// First tries still go, and succeed; retries wait until calls ≥ 20 (2/20 = 0.1 is not above
	// 0.1)... but the failure of the next request counts first: 3 failures need 30 calls.
	for range 18 {
		request(b, 0, 3)
	}
	// calls 29: a request failing once makes 3/30 = 0.1, not above: its retry goes.
	if sent, ok, _ := request(b, 0, 3, retry.Failure); sent != 2 || !ok {
		t.Fatalf("at 3/30 the retry was refused (%d attempts, ok %v)", sent, ok)
	}
	// calls 30, failures 3; the next failure makes 4/31 > 0.1: refused.
	if sent, _, _ := request(b, 0, 3, retry.Timeout); sent != 1 {
		t.Fatalf("at 4/31 the retry went (%d attempts)", sent)
	}
	// Threshold 0: any failure stops retries; a negative threshold is 0.
	z := retry.NewBreaker(-1)
	request(z, 0, 3)
	if sent, _, _ := request(z, 0, 3, retry.Failure); sent != 1 {
		t.Errorf("threshold 0 retried")
	}
}

// brookerRun reproduces the load of Brooker's retry_sim/retry_sim.py at failure rate x with
// clients clients each starting requests at rate per second for 10 s: his Client starts one
// call at once and the next ones after exponential gaps, so each client makes 1 + Poisson(10·rate)
// requests. Neither the bucket nor the breaker depends on time, only on the order of a client's
// first tries and failures, which this runs one request after another (his calls rarely overlap:
// 10 ms each way). It returns attempts per request and the share of requests that succeed.
func brookerRun(newPolicy func() retry.Policy, n, clients int, rate, x float64, seed uint64) (amp, success float64) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var attempts, successes, requests int
	for range clients {
		p := newPolicy()
		m := 1
		for t := rng.ExpFloat64() / rate; t <= 10; t += rng.ExpFloat64() / rate {
			m++
		}
		a, s := load(p, rng, 0, x, m, n)
		attempts, successes, requests = attempts+a, successes+s, requests+m
	}
	return float64(attempts) / float64(requests), float64(successes) / float64(requests)
}

// The published results at x = 0.5: Brooker's simulator (retry_sim.py as in his repository,
// Python's random.seed(1)) gives, with 100 clients × 10/s, three retries 1.879× and 93.65%
// success, the adaptive bucket 1.142×, the breaker 1.000×; with 100/s split over 10, 100 and
// 1,000 clients, the bucket 1.140×, 1.465×, 1.885× and the breaker 1.000×. Below, each figure
// is the mean of his simulator over seeds 1 to 20, with the spread of those 20 runs (sd); the
// same policies here must land within 5 sd of his mean (at least ±0.005), on three seeds.
func TestBrookerPublishedLoads(t *testing.T) {
	adaptive := func() retry.Policy { return retry.DefaultAdaptive() }
	breaker := func() retry.Policy { return retry.DefaultBreaker() }
	three := func() retry.Policy { return retry.Retries{} }
	tests := []struct {
		name       string
		policy     func() retry.Policy
		n, clients int
		rate       float64
		amp, ampSD float64 // Brooker's simulator, 20 seeds
		suc, sucSD float64
	}{
		{"three_retries", three, 3, 100, 10, 1.8812, 0.0104, 0.9360, 0.0022},
		{"adaptive_10pct", adaptive, 1 << 30, 100, 10, 1.1416, 0.0005, 0.5699, 0.0044},
		{"breaker_10pct", breaker, 3, 100, 10, 1.0000, 0.0001, 0.4994, 0.0042},
		{"adaptive 10 clients", adaptive, 1 << 30, 10, 10, 1.142, 0.002, 0.567, 0.016},
		{"adaptive 100 clients", adaptive, 1 << 30, 100, 1, 1.461, 0.010, 0.729, 0.021},
		{"adaptive 1000 clients", adaptive, 1 << 30, 1000, 0.1, 1.892, 0.030, 0.942, 0.007},
		{"breaker 1000 clients", breaker, 3, 1000, 0.1, 1.0000, 0.0000, 0.4941, 0.0087},
	}
	within := func(got, mean, sd float64) bool { return math.Abs(got-mean) <= max(5*sd, 0.005) }
	for _, tc := range tests {
		for seed := uint64(1); seed <= 3; seed++ {
			amp, suc := brookerRun(tc.policy, tc.n, tc.clients, tc.rate, 0.5, seed)
			t.Logf("%s seed %d: %.4f×, %.2f%% success", tc.name, seed, amp, 100*suc)
			if !within(amp, tc.amp, tc.ampSD) || !within(suc, tc.suc, tc.sucSD) {
				t.Errorf("%s seed %d: %.4f× and %.2f%% success; Brooker's simulator: %.4f× (sd %.4f) and %.2f%% (sd %.2f)",
					tc.name, seed, amp, 100*suc, tc.amp, tc.ampSD, 100*tc.suc, 100*tc.sucSD)
			}
		}
	}
}

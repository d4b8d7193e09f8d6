package retrystorm

import (
	"fmt"
	"math"
	"net/url"
	"testing"
)

// with returns query base with the parameters of the query over set (replacing base's).
func with(base, over string) string {
	q, err := url.ParseQuery(base)
	if err != nil {
		panic(err)
	}
	o, err := url.ParseQuery(over)
	if err != nil {
		panic(err)
	}
	for k, v := range o {
		q[k] = v
	}
	return q.Encode()
}

// brooker is the setting of Marc Brooker's retry simulator (mbrooker/simulator_example,
// retry_sim): a service failing a share of the calls whatever its load (here: an outage over
// the whole run on a service of ample capacity and no service time), 100 clients of 10
// requests a second each, exponential network delays of 10 ms each way, retries at once (no
// backoff), 10 s.
const brooker = "trigger=outage&trigger_start=0s&trigger_length=1m&duration=10s&clients=100&rate=1000&capacity=100000&service=concurrency&service_time=0s&backoff=none"

// theoryOf returns, for independent failures at rate x and N retries at one layer, the calls
// per request 1 + x + … + x^N and the success 1 − x^(N+1), with their standard deviations
// over n requests.
func theoryOf(x float64, n, requests int) (amp, ampSD, succ, succSD float64) {
	var m1, m2 float64 // moments of the calls per request
	for k := 0; k <= n; k++ {
		p := math.Pow(x, float64(k)) * (1 - x) // k+1 calls, the last one succeeding
		if k == n {
			p = math.Pow(x, float64(n)) // n+1 calls, whatever the last one does
		}
		m1 += float64(k+1) * p
		m2 += float64((k+1)*(k+1)) * p
	}
	succ = 1 - math.Pow(x, float64(n+1))
	r := float64(requests)
	return m1, math.Sqrt((m2 - m1*m1) / r), succ, math.Sqrt(succ * (1 - succ) / r)
}

// TestIndependentFailures: with independent failures at rate x, N retries make 1 + x + … + x^N
// calls per request and succeed with 1 − x^(N+1) (Brooker's post writes x^N for the failure;
// it is x^(N+1)): within four standard deviations of the chance in 10,000 requests, and at
// x = 1 exactly N + 1 calls and no success. At x = 0.5 and N = 3: 1.875 calls and 93.75%
// (Brooker's simulator: 1.88× and 93.5%).
func TestIndependentFailures(t *testing.T) {
	for _, n := range []int{0, 1, 3, 5, 10} {
		for _, x := range []float64{0.1, 0.5, 0.9, 1} {
			q := with(brooker, fmt.Sprintf("policies=retries&retries=%d&failure=%g", n, x))
			p := policies(t, mustRun(t, q))["retries"]
			amp, ampSD, succ, succSD := theoryOf(x, n, int(p.Requests))
			t.Logf("N=%d x=%.1f: %.4f calls per request (theory %.4f ± %.4f), %.4f success (%.4f ± %.4f)", n, x, p.Amplification, amp, ampSD, p.Success, succ, succSD)
			if math.Abs(p.Amplification-amp) > 4*ampSD+1e-9 {
				t.Errorf("N=%d, x=%g: %.4f calls per request, want %.4f ± %.4f", n, x, p.Amplification, amp, 4*ampSD)
			}
			if math.Abs(p.Success-succ) > 4*succSD+1e-9 {
				t.Errorf("N=%d, x=%g: success %.4f, want %.4f ± %.4f", n, x, p.Success, succ, 4*succSD)
			}
		}
	}
}

// TestLayersMultiply: N retries at each of L layers, every call failing, make (N+1)^L calls at
// the service per request: 64 at 3 × 3 (SRE book, chapter 22), 16 at two layers.
func TestLayersMultiply(t *testing.T) {
	for layers, want := range map[int]float64{1: 4, 2: 16, 3: 64} {
		q := with(brooker, fmt.Sprintf("policies=retries&retries=3&failure=1&layers=%d&rate=100&clients=10", layers))
		p := policies(t, mustRun(t, q))["retries"]
		if p.Amplification != want || p.Succeeded != 0 {
			t.Errorf("%d layers: %g calls per request, %d succeeded; want %g and none", layers, p.Amplification, p.Succeeded, want)
		}
	}
}

// TestBrookerBucketAndBreaker: Brooker's adaptive retry bucket keeps the load near 1 + its
// deposit at a high failure rate, and his retry-only breaker sends first tries only: at
// x = 0.5 with 100 clients of 10 a second over 10 s, his simulator measures 1.14× for the
// bucket (57% success) and 1.00× for the breaker (49.8%).
func TestBrookerBucketAndBreaker(t *testing.T) {
	ps := policies(t, mustRun(t, with(brooker, "failure=0.5&policies=adaptive,breaker")))
	if a := ps["adaptive"]; math.Abs(a.Amplification-1.14) > 0.02 || math.Abs(a.SuccessPct-57) > 1.5 {
		t.Errorf("adaptive: %.3f× and %.1f%%, want about 1.14× and 57%%", a.Amplification, a.SuccessPct)
	}
	if b := ps["breaker"]; b.Amplification > 1.005 || math.Abs(b.SuccessPct-49.8) > 1.5 {
		t.Errorf("breaker: %.3f× and %.1f%%, want about 1.00× and 49.8%%", b.Amplification, b.SuccessPct)
	}
}

// TestClientCount: at the same total rate (100 a second) and x = 0.5, more and smaller clients
// let Brooker's bucket retry more, each bucket starting full: his simulator measures 1.14,
// 1.45 and 1.87× at 10, 100 and 1,000 clients; the breaker stays at about 1.00×.
func TestClientCount(t *testing.T) {
	r := mustRun(t, with(brooker, "failure=0.5&rate=100&retries=10&policies=adaptive,breaker&client_sweep=10:1000:90"))
	rows := r.Summary["client_sweep"].(map[string][]clientRow)
	want := map[int64]float64{10: 1.14, 100: 1.45, 1000: 1.87}
	for _, row := range rows["adaptive"] {
		if w, ok := want[row.Clients]; ok {
			t.Logf("adaptive, %d clients: %.3f×", row.Clients, row.Amplification)
			if math.Abs(row.Amplification-w) > 0.06 {
				t.Errorf("adaptive, %d clients: %.3f×, want about %.2f×", row.Clients, row.Amplification, w)
			}
		}
	}
	for _, row := range rows["breaker"] {
		if row.Amplification > 1.05 {
			t.Errorf("breaker, %d clients: %.3f×, want about 1.00×", row.Clients, row.Amplification)
		}
	}
}

// TestGRPCStopsAtHalf: gRPC's throttling sends no retry once its tokens are at maxTokens/2:
// with every call failing, each client's 10 tokens lose one a failure, and retries stop after
// the fourth (10 → 6 allows it, the fifth failure leaves 5): four retries per client and layer.
func TestGRPCStopsAtHalf(t *testing.T) {
	p := policies(t, mustRun(t, with(brooker, "failure=1&retries=10&policies=grpc&clients=10&rate=100")))["grpc"]
	if p.Retries != 4*10 {
		t.Errorf("gRPC: %d retries from 10 clients, want 40 (4 each)", p.Retries)
	}
}

// TestMetastable: at the defaults — 600 requests a second on a service of 1,000, an outage
// failing every call for 10 s — N retries keep the service over its capacity after the
// outage: the calls, retries included, stay above it to the end (metastable), while no
// retries, a retry budget and Brooker's bucket recover within seconds.
func TestMetastable(t *testing.T) {
	ps := policies(t, mustRun(t, allPolicies))
	if p := ps["retries"]; p.State != "metastable" || p.RecoveryS != nil || p.EndLoadPct < 200 {
		t.Errorf("N retries: %s (%s), %.0f%% of capacity at the end; want metastable, over 200%%", p.State, p.Verdict, p.EndLoadPct)
	}
	for _, name := range []string{"none", "adaptive", "budget", "grpc", "aws", "breaker"} {
		p := ps[name]
		if p.State != "recovered" || p.RecoveryS == nil || *p.RecoveryS > 5 {
			t.Errorf("%s: %s (%s), want recovered within 5 s", name, p.State, p.Verdict)
		}
	}
}

package retry_test

import (
	"testing"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// From a full quota of 500, retries after failures take 5 each: 100 of them empty it; after
// timeouts they take 10: 50. A retry that does not fit is refused and takes nothing.
func TestAWSExhaustion(t *testing.T) {
	tests := []struct {
		name    string
		c       retry.AWSConfig
		prev    retry.Outcome
		cost    int
		retries int
	}{
		{"failures", retry.DefaultAWSConfig, retry.Failure, 5, 100},
		{"timeouts", retry.DefaultAWSConfig, retry.Timeout, 10, 50},
		{"2026 failures", retry.AWS2026Config, retry.Failure, 14, 35},
		{"2026 timeouts", retry.AWS2026Config, retry.Timeout, 14, 35},
	}
	for _, tc := range tests {
		a := retry.NewAWS(tc.c)
		if a.Tokens() != 500 {
			t.Fatalf("%s: starts with %d tokens, want 500", tc.name, a.Tokens())
		}
		for i := range tc.retries {
			cost, ok := a.Allow(0, 1+i%2, tc.prev)
			if !ok || cost != tc.cost {
				t.Fatalf("%s: retry %d: cost %d ok %v, want %d, true", tc.name, i+1, cost, ok, tc.cost)
			}
			a.Record(0, 1+i%2, tc.prev, cost) // failed retries give nothing back
		}
		if cost, ok := a.Allow(0, 1, tc.prev); ok || cost != 0 {
			t.Fatalf("%s: retry %d allowed with %d tokens left", tc.name, tc.retries+1, a.Tokens())
		}
		if want := 500 - tc.retries*tc.cost; a.Tokens() != want {
			t.Errorf("%s: %d tokens left, want %d", tc.name, a.Tokens(), want)
		}
		if _, ok := a.Allow(0, 0, retry.Success); !ok {
			t.Errorf("%s: first try refused on an empty quota", tc.name)
		}
	}
	// A timeout retry needs 10 where a failure retry needs 5.
	a := retry.DefaultAWS()
	for range 99 {
		a.Allow(0, 1, retry.Failure)
	}
	if a.Tokens() != 5 {
		t.Fatalf("tokens %d, want 5", a.Tokens())
	}
	if _, ok := a.Allow(0, 1, retry.Timeout); ok {
		t.Error("a timeout retry went with 5 tokens")
	}
	if cost, ok := a.Allow(0, 1, retry.Failure); !ok || cost != 5 || a.Tokens() != 0 {
		t.Errorf("the last 5 tokens: cost %d ok %v left %d; want 5, true, 0 (cost ≤ tokens goes)", cost, ok, a.Tokens())
	}
}

// Successes refill: a successful first try adds 1 up to the cap; a successful retry refunds its
// cost (plus 1 in the default, aws-sdk-go-v2 before v1.48.0; only its cost in 2026).
func TestAWSRefill(t *testing.T) {
	drain := func(a *retry.AWS, tokens int) {
		for a.Tokens() > tokens {
			a.Allow(0, 1, retry.Failure)
		}
		if a.Tokens() != tokens {
			t.Fatalf("drained to %d, want %d", a.Tokens(), tokens)
		}
	}
	tests := []struct {
		name     string
		c        retry.AWSConfig
		from     int
		outcomes []retry.Outcome
		want     int
	}{
		{"first try success +1", retry.DefaultAWSConfig, 400, nil, 401},
		{"first try success at the cap", retry.DefaultAWSConfig, 500, nil, 500},
		{"first try failure", retry.DefaultAWSConfig, 400, fails(1), 400},
		{"retry success refunds 5, +1", retry.DefaultAWSConfig, 400, fails(1), 401},
		{"timeout retry success refunds 10, +1", retry.DefaultAWSConfig, 400, []retry.Outcome{retry.Timeout}, 401},
		{"two retries, the second succeeds: refunds the last", retry.DefaultAWSConfig, 400, fails(2), 396},
		{"refund capped", retry.DefaultAWSConfig, 500, fails(1), 500},
		{"2026 first try success +1", retry.AWS2026Config, 402, nil, 403},
		{"2026 retry success refunds 14 only", retry.AWS2026Config, 402, fails(1), 402},
		{"2026 two retries, the second succeeds", retry.AWS2026Config, 402, fails(2), 388},
		{"2026 timeout retry", retry.AWS2026Config, 402, []retry.Outcome{retry.Timeout}, 402},
	}
	for _, tc := range tests {
		a := retry.NewAWS(tc.c)
		drain(a, tc.from)
		n := 3
		if tc.name == "first try failure" {
			n = 0 // no retry: the request ends with its failure
		}
		request(a, 0, n, tc.outcomes...)
		if a.Tokens() != tc.want {
			t.Errorf("%s: from %d, %d tokens; want %d", tc.name, tc.from, a.Tokens(), tc.want)
		}
	}
}

// aws-sdk-go-v2's retry2026_test.go, "retry eventually succeeds": 500 → 486 → 472 → success → 486.
func TestAWS2026SDKCase(t *testing.T) {
	a := retry.NewAWS(retry.AWS2026Config)
	a.Allow(0, 0, retry.Success)
	a.Record(0, 0, retry.Failure, 0)
	c1, _ := a.Allow(0, 1, retry.Failure)
	if a.Tokens() != 486 {
		t.Fatalf("after the first retry %d, want 486", a.Tokens())
	}
	a.Record(0, 1, retry.Failure, c1)
	c2, _ := a.Allow(0, 2, retry.Failure)
	if a.Tokens() != 472 {
		t.Fatalf("after the second retry %d, want 472", a.Tokens())
	}
	a.Record(0, 2, retry.Success, c2)
	if a.Tokens() != 486 {
		t.Fatalf("after the success %d, want 486", a.Tokens())
	}
	// "retry quota reached after a single retry": 14 tokens allow one retry, then none.
	b := retry.NewAWS(retry.AWSConfig{Tokens: 14, RetryCost: 14, TimeoutRetryCost: 14, NoRetryIncrement: 1})
	if sent, _, _ := request(b, 0, 2, fails(3)...); sent != 2 || b.Tokens() != 0 {
		t.Errorf("14 tokens: %d attempts, %d left; want 2, 0", sent, b.Tokens())
	}
	// Negative settings count as 0: a quota of 0 allows no retry, costs of 0 always fit.
	z := retry.NewAWS(retry.AWSConfig{Tokens: -5, RetryCost: -1})
	if cost, ok := z.Allow(0, 1, retry.Failure); !ok || cost != 0 {
		t.Errorf("zero cost on an empty quota: %d, %v; want 0, true", cost, ok)
	}
}

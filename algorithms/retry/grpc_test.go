package retry_test

import (
	"testing"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// gRFC A6: token_count starts at maxTokens; a failure takes 1, a success adds tokenRatio; no
// retry while token_count ≤ maxTokens/2.
func TestGRPCThreshold(t *testing.T) {
	tests := []struct {
		maxTokens, ratio float64
		failures         int  // failed attempts, no success, from a full count
		retry            bool // a retry allowed after them
	}{
		{10, 0.1, 0, true},
		{10, 0.1, 1, true},
		{10, 0.1, 4, true},   // 6 > 5
		{10, 0.1, 5, false},  // 5 ≤ 5: exactly at the threshold
		{10, 0.1, 6, false},  // 4
		{10, 0.1, 50, false}, // floored at 0
		{4, 0.5, 1, true},    // 3 > 2
		{4, 0.5, 2, false},   // 2 ≤ 2
		{3, 0.5, 1, true},    // 2 > 1.5
		{3, 0.5, 2, false},   // 1 ≤ 1.5
		{0, 0.1, 0, false},   // maxTokens 0: 0 ≤ 0
	}
	for _, tc := range tests {
		g := retry.NewGRPC(tc.maxTokens, tc.ratio)
		for k := range tc.failures {
			o := retry.Failure
			if k%2 == 1 {
				o = retry.Timeout // timeouts count as failures too
			}
			g.Record(0, 0, o, 0)
		}
		if _, ok := g.Allow(0, 1, retry.Failure); ok != tc.retry {
			t.Errorf("maxTokens %v ratio %v after %d failures (tokens %v): retry %v, want %v",
				tc.maxTokens, tc.ratio, tc.failures, g.Tokens(), ok, tc.retry)
		}
		if _, ok := g.Allow(0, 0, retry.Success); !ok {
			t.Errorf("maxTokens %v: a first try was refused", tc.maxTokens)
		}
		if want := max(tc.maxTokens-float64(tc.failures), 0); g.Tokens() != want {
			t.Errorf("maxTokens %v after %d failures: tokens %v, want %v", tc.maxTokens, tc.failures, g.Tokens(), want)
		}
	}
}

// With the A6 example values, failing requests with 3 retries: the first sends 4 attempts
// (10 → 6), the second fails its first try (5) and may not retry; successes bring retries back.
func TestGRPCStopsAndRecovers(t *testing.T) {
	g := retry.DefaultGRPC()
	if g.Tokens() != 10 {
		t.Fatalf("starts at %v, want maxTokens 10", g.Tokens())
	}
	if sent, _, _ := request(g, 0, 3, fails(4)...); sent != 4 {
		t.Fatalf("first failing request sent %d attempts, want 4", sent)
	}
	if sent, _, _ := request(g, 0, 3, fails(4)...); sent != 1 {
		t.Fatalf("second failing request sent %d attempts, want 1 (tokens %v)", sent, g.Tokens())
	}
	// Tokens 5. One success lifts it to 5.1 > 5: a retry may go again.
	if _, ok := g.Allow(0, 1, retry.Failure); ok {
		t.Fatal("retry allowed at tokens 5")
	}
	request(g, 0, 3)
	if _, ok := g.Allow(0, 1, retry.Failure); !ok {
		t.Fatalf("retry refused at tokens %v after a success", g.Tokens())
	}
	// A request that fails first (5.1 → 4.1) is refused its retry: successes must lift the
	// count above 6 before the failure for the retry to go, about 10 of them.
	if sent, _, _ := request(g, 0, 3, fails(4)...); sent != 1 {
		t.Fatalf("retry went at %v tokens", g.Tokens())
	}
	for range 19 { // 4.1 + 1.9 = 6.0, in float64 just below 6
		request(g, 0, 3)
	}
	if sent, _, _ := request(g, 0, 3, fails(4)...); sent != 1 {
		t.Fatalf("retry went with about 6 tokens before the failure (now %v)", g.Tokens())
	}
	for range 11 { // about 6.1
		request(g, 0, 3)
	}
	if sent, _, _ := request(g, 0, 3, fails(4)...); sent != 2 {
		t.Fatalf("with about 6.1 tokens before the failure, %d attempts; want 2", sent)
	}
	// Successes are capped at maxTokens.
	for range 1000 {
		request(g, 0, 3)
	}
	if g.Tokens() != 10 {
		t.Errorf("after many successes tokens %v, want 10", g.Tokens())
	}
	// Floored at 0, and recovering from 0 takes more than 50 successes (0.1 each, ≤ 5 stays
	// refused).
	for range 30 {
		g.Record(0, 0, retry.Failure, 0)
	}
	if g.Tokens() != 0 {
		t.Fatalf("after 30 failures tokens %v, want 0", g.Tokens())
	}
	for range 49 {
		g.Record(0, 0, retry.Success, 0)
	}
	if _, ok := g.Allow(0, 1, retry.Failure); ok {
		t.Errorf("retry allowed at %v tokens", g.Tokens())
	}
	for range 3 {
		g.Record(0, 0, retry.Success, 0)
	}
	if _, ok := g.Allow(0, 1, retry.Failure); !ok {
		t.Errorf("retry refused at %v tokens", g.Tokens())
	}
	// Allow takes nothing.
	before := g.Tokens()
	if cost, _ := g.Allow(0, 1, retry.Failure); cost != 0 || g.Tokens() != before {
		t.Errorf("Allow took %d, tokens %v → %v", cost, before, g.Tokens())
	}
}

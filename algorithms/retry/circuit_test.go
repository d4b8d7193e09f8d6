package retry_test

import (
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// call runs one call through the circuit at now: Allow, then Record o if permitted.
func call(cb *retry.Circuit, now int64, o retry.Outcome) bool {
	cost, ok := cb.Allow(now, 0, retry.Success)
	if ok {
		cb.Record(now, 0, o, cost)
	}
	return ok
}

// calls runs the outcomes, one call each, at now.
func calls(t *testing.T, cb *retry.Circuit, now int64, outcomes ...retry.Outcome) {
	t.Helper()
	for i, o := range outcomes {
		if !call(cb, now, o) {
			t.Fatalf("call %d of %d refused (state %v)", i+1, len(outcomes), cb.State())
		}
	}
}

// seq returns n outcomes: the first failed of them Failure (or Timeout, alternately), the rest
// Success.
func seq(n, failed int) []retry.Outcome {
	o := make([]retry.Outcome, n)
	for i := range failed {
		o[i] = retry.Failure
		if i%2 == 1 {
			o[i] = retry.Timeout
		}
	}
	return o
}

// resilience4j's defaults: with 50% failures the circuit opens on the 100th call, not before;
// with 49% it stays closed.
func TestCircuitOpensAtMinimumCalls(t *testing.T) {
	tests := []struct {
		name     string
		outcomes []retry.Outcome
		openAt   int // 1-based call at which it opens; 0: never
	}{
		{"50 failures then 50 successes", seq(100, 50), 100},
		{"99 failures then a success", seq(100, 99), 100},
		{"100 failures", seq(100, 100), 100},
		{"49 failures", seq(100, 49), 0},
		{"50 successes then 50 failures", append(seq(50, 0), fails(50)...), 100},
		// After 100 calls the window slides: 100 successes then failures open it once the
		// last 100 hold 50 failures, at call 150.
		{"sliding: 100 successes then failures", append(seq(100, 0), fails(60)...), 150},
	}
	for _, tc := range tests {
		cb := retry.DefaultCircuit()
		opened := 0
		for i, o := range tc.outcomes {
			if !call(cb, 0, o) {
				t.Fatalf("%s: call %d refused", tc.name, i+1)
			}
			if cb.State() == retry.CircuitOpen {
				opened = i + 1
				break
			}
		}
		if opened != tc.openAt {
			t.Errorf("%s: opened at call %d, want %d", tc.name, opened, tc.openAt)
		}
	}
}

// Open refuses every call, first tries too, for 60 s (strictly after the wait the first call
// goes, half-open); half-open lets 10 trials through and decides from their 10 outcomes.
func TestCircuitOpenAndHalfOpen(t *testing.T) {
	const t0 = 5 * sec
	open := func() *retry.Circuit {
		cb := retry.DefaultCircuit()
		calls(t, cb, t0, fails(100)...)
		if cb.State() != retry.CircuitOpen {
			t.Fatalf("not open after 100 failures")
		}
		return cb
	}

	cb := open()
	for _, now := range []int64{t0, t0 + sec, t0 + 60*sec - 1, t0 + 60*sec} {
		for attempt := range 2 {
			if cost, ok := cb.Allow(now, attempt, retry.Failure); ok || cost != 0 {
				t.Fatalf("attempt %d allowed at %v after opening", attempt, time.Duration(now-t0))
			}
		}
	}
	cb.Record(t0+sec, 0, retry.Success, 0) // a late outcome while open is ignored
	if cb.State() != retry.CircuitOpen {
		t.Fatal("a late success moved an open circuit")
	}
	after := t0 + 60*sec + 1
	for i := range 10 {
		if _, ok := cb.Allow(after, 0, retry.Success); !ok {
			t.Fatalf("half-open trial %d refused", i+1)
		}
		if cb.State() != retry.CircuitHalfOpen {
			t.Fatalf("state %v after the wait", cb.State())
		}
	}
	if _, ok := cb.Allow(after, 0, retry.Success); ok {
		t.Fatal("an 11th half-open call went")
	}

	tests := []struct {
		name   string
		failed int
		want   retry.CircuitState
	}{
		{"5 of 10 fail: open again", 5, retry.CircuitOpen},
		{"10 of 10 fail", 10, retry.CircuitOpen},
		{"4 of 10 fail: closed", 4, retry.CircuitClosed},
		{"none fail", 0, retry.CircuitClosed},
	}
	for _, tc := range tests {
		cb := open()
		for i, o := range seq(10, tc.failed) {
			if !call(cb, after, o) {
				t.Fatalf("%s: trial %d refused", tc.name, i+1)
			}
			if i < 9 && cb.State() != retry.CircuitHalfOpen {
				t.Fatalf("%s: decided after %d trials (state %v)", tc.name, i+1, cb.State())
			}
		}
		if cb.State() != tc.want {
			t.Fatalf("%s: state %v, want %v", tc.name, cb.State(), tc.want)
		}
		switch tc.want {
		case retry.CircuitOpen:
			// Open again for a full wait from the decision.
			if _, ok := cb.Allow(after+60*sec, 0, retry.Success); ok {
				t.Errorf("%s: call allowed within the new wait", tc.name)
			}
			if _, ok := cb.Allow(after+60*sec+1, 0, retry.Success); !ok {
				t.Errorf("%s: call refused after the new wait", tc.name)
			}
		case retry.CircuitClosed:
			// A fresh window: 99 failures do not open it, the 100th does.
			calls(t, cb, after, fails(99)...)
			if cb.State() != retry.CircuitClosed {
				t.Errorf("%s: reopened before 100 calls in the fresh window", tc.name)
			}
			calls(t, cb, after, retry.Failure)
			if cb.State() != retry.CircuitOpen {
				t.Errorf("%s: did not open at the fresh window's 100th failure", tc.name)
			}
		}
	}
}

// Half-open counts any outcome recorded while half-open, whichever state permitted its call.
func TestCircuitHalfOpenDetails(t *testing.T) {
	cb := retry.NewCircuit(retry.CircuitConfig{
		FailureRateThreshold:                  50,
		SlidingWindowSize:                     4,
		MinimumNumberOfCalls:                  4,
		WaitDurationInOpenState:               time.Second,
		PermittedNumberOfCallsInHalfOpenState: 2,
	})
	calls(t, cb, 0, retry.Success, retry.Success, retry.Failure)
	if cb.State() != retry.CircuitClosed {
		t.Fatal("opened below the minimum number of calls")
	}
	calls(t, cb, 0, retry.Timeout) // 2 of 4: 50%
	if cb.State() != retry.CircuitOpen {
		t.Fatal("timeouts do not count as failures")
	}
	if _, ok := cb.Allow(2*sec, 0, retry.Success); !ok || cb.State() != retry.CircuitHalfOpen {
		t.Fatal("first call after the wait not a half-open trial")
	}
	cb.Record(2*sec, 1, retry.Success, 0) // a late outcome of an earlier call counts
	cb.Record(2*sec, 0, retry.Success, 0)
	if cb.State() != retry.CircuitClosed {
		t.Fatalf("state %v after 2 successes half-open, want closed", cb.State())
	}
	// Out-of-range settings: threshold above 100 is 100, sizes below 1 are 1.
	z := retry.NewCircuit(retry.CircuitConfig{FailureRateThreshold: 250})
	calls(t, z, 0, retry.Failure)
	if z.State() != retry.CircuitOpen {
		t.Error("window of 1 with 100% failures did not open")
	}
	for s, want := range map[retry.CircuitState]string{
		retry.CircuitClosed: "closed", retry.CircuitOpen: "open", retry.CircuitHalfOpen: "half-open", 9: "state(9)",
	} {
		if got := s.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", s, got, want)
		}
	}
}

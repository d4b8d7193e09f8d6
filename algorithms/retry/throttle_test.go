package retry_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// Allow draws exactly one Float64 per call, whatever the state, the attempt and the
// probability; Record draws none.
func TestThrottleOneDrawPerAllow(t *testing.T) {
	for _, v := range []float64{0, 0.5, math.Nextafter(1, 0)} {
		r := &counting{v: v}
		th := retry.DefaultThrottle(r)
		work := rand.New(rand.NewPCG(3, 4))
		allows := 0
		for i := range 5000 {
			now := int64(i) * 10 * ms
			attempt := i % 4
			_, ok := th.Allow(now, attempt, retry.Failure)
			allows++
			if r.n != allows {
				t.Fatalf("v=%v: %d draws after %d Allow calls (p was %v)", v, r.n, allows, th.Probability(now))
			}
			if ok {
				o := retry.Failure
				if work.Float64() < 0.2 {
					o = retry.Success
				}
				th.Record(now, attempt, o, 0)
				if r.n != allows {
					t.Fatalf("v=%v: Record drew", v)
				}
			}
		}
	}
}

// The probability is max(0, (requests − K·accepts)/(requests + 1)) over the counts before the
// attempt; requests count locally rejected attempts; the attempt is rejected iff u < p.
func TestThrottleFormula(t *testing.T) {
	tests := []struct {
		k                  float64
		requests, accepted int
	}{
		{2, 0, 0},
		{2, 1, 0},
		{2, 10, 0},
		{2, 100, 40},
		{2, 100, 50},
		{2, 100, 60},
		{1.1, 100, 60},
		{1, 7, 3},
		{0, 5, 5},
	}
	for _, tc := range tests {
		// Build the counts with draws of almost 1, which never reject (p < 1 always).
		r := &counting{v: math.Nextafter(1, 0)}
		th := retry.NewThrottle(tc.k, 2*time.Minute, r)
		for i := range tc.requests {
			if _, ok := th.Allow(0, 0, retry.Success); !ok {
				t.Fatalf("rejected with u just below 1")
			}
			if i < tc.accepted {
				th.Record(0, 0, retry.Success, 0)
			} else {
				th.Record(0, 0, retry.Failure, 0)
			}
		}
		req, acc := th.Counts(0)
		if req != int64(tc.requests) || acc != int64(tc.accepted) {
			t.Fatalf("counts %d, %d; want %d, %d", req, acc, tc.requests, tc.accepted)
		}
		want := max(0, (float64(tc.requests)-tc.k*float64(tc.accepted))/(float64(tc.requests)+1))
		if got := th.Probability(0); got != want {
			t.Errorf("K=%v requests %d accepts %d: p = %v, want %v", tc.k, tc.requests, tc.accepted, got, want)
		}
		if want == 0 {
			continue
		}
		// u just below p rejects, u = p lets it go; both count as requests.
		r.v = math.Nextafter(want, 0)
		if _, ok := th.Allow(0, 1, retry.Failure); ok {
			t.Errorf("K=%v requests %d accepts %d: u just below p = %v let the attempt go", tc.k, tc.requests, tc.accepted, want)
		}
		p := th.Probability(0)
		r.v = p
		if _, ok := th.Allow(0, 0, retry.Failure); !ok {
			t.Errorf("u = p = %v rejected the attempt", p)
		}
		if req, _ := th.Counts(0); req != int64(tc.requests)+2 {
			t.Errorf("requests %d after a rejected and an allowed attempt, want %d", req, tc.requests+2)
		}
	}
}

// Over many draws from a seeded source, local rejections match the formula: each decision is a
// Bernoulli trial with the probability Probability reports just before it, so the count of
// rejections is within a few standard deviations of the sum of those probabilities. The backend
// is the book's: it accepts up to a capacity a second and rejects the rest, and once the window
// is full the client sends it about K times what it accepts, shedding the rest locally.
func TestThrottleRejectionFrequency(t *testing.T) {
	const offered = 1000 // attempts a second, one a millisecond
	for _, capacity := range []int{100, 250, 400, 1000} {
		th := retry.DefaultThrottle(rand.New(rand.NewPCG(7, uint64(capacity))))
		var expected, variance float64
		rejected, sent, accepted, acceptedThisSecond := 0, 0, 0, 0
		const seconds, steady = 400, 200 // count sent and accepted over the last 200 s
		for i := range seconds * offered {
			now := int64(i) * ms
			if i%offered == 0 {
				acceptedThisSecond = 0
			}
			p := th.Probability(now)
			expected += p
			variance += p * (1 - p)
			if _, ok := th.Allow(now, 0, retry.Success); !ok {
				rejected++
				continue
			}
			o := retry.Failure
			if acceptedThisSecond < capacity {
				o = retry.Success
				acceptedThisSecond++
			}
			th.Record(now, 0, o, 0)
			if i >= (seconds-steady)*offered {
				sent++
				if o == retry.Success {
					accepted++
				}
			}
		}
		sd := math.Sqrt(variance)
		t.Logf("capacity %d/s: %d rejected, formula expects %.0f (sd %.1f); last %d s: %d sent, %d accepted",
			capacity, rejected, expected, sd, steady, sent, accepted)
		if math.Abs(float64(rejected)-expected) > 4*sd+1 {
			t.Errorf("capacity %d/s: %d rejected, the formula expects %.0f (sd %.1f)", capacity, rejected, expected, sd)
		}
		ratio := float64(sent) / float64(accepted)
		if capacity < offered/2 {
			if math.Abs(ratio-2) > 0.05 {
				t.Errorf("capacity %d/s: the backend sees %.3f times what it accepts, want about K = 2", capacity, ratio)
			}
		} else if rejected > 0 && capacity == offered {
			t.Errorf("capacity %d/s, everything accepted: %d rejected locally", capacity, rejected)
		}
	}
}

// Counts are kept for two minutes: 120 slices of 1 s, so what happened in slice [0, 1 s) is
// forgotten at 120 s, not before.
func TestThrottleWindow(t *testing.T) {
	th := retry.DefaultThrottle(&counting{v: math.Nextafter(1, 0)})
	for range 10 {
		th.Allow(500*ms, 0, retry.Success)
		th.Record(500*ms, 0, retry.Failure, 0)
	}
	if got := th.Probability(120*sec - 1); got != 10.0/11 {
		t.Fatalf("p just before 120 s = %v, want 10/11", got)
	}
	if got := th.Probability(120 * sec); got != 0 {
		t.Fatalf("p at 120 s = %v, want 0 (forgotten)", got)
	}
	// A refused first try fails its request without a call.
	th2 := retry.DefaultThrottle(&counting{v: 0})
	th2.Allow(0, 0, retry.Success)
	th2.Record(0, 0, retry.Failure, 0) // p = 1/2 now
	if sent, ok, first := request(th2, 0, 3); sent != 0 || ok || !first {
		t.Errorf("with u = 0 < p: %d attempts sent, ok %v, first refused %v; want 0, false, true", sent, ok, first)
	}
}

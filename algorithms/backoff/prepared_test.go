package backoff

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestPreparedMatchesSleep checks that a Prepared policy returns its Sleep's durations bit for
// bit, for every policy, attempts within and beyond the prepared ones, and the extremes of
// base, cap and multiplier, and that it draws exactly when the policy does.
func TestPreparedMatchesSleep(t *testing.T) {
	var policies []Policy
	for _, base := range []time.Duration{-1, 0, 1, 100 * time.Microsecond, 5 * time.Millisecond, time.Second} {
		for _, c := range []time.Duration{-1, 0, 1, time.Millisecond, 2 * time.Second, math.MaxInt64} {
			policies = append(policies, None{}, Constant{Delay: base}, Linear{Base: base, Cap: c}, Decorrelated{Base: base, Cap: c})
			for _, m := range []float64{0, 1, 1.05, 1.5, 2, 3, 10} {
				policies = append(policies, Exponential{base, c, m}, FullJitter{base, c, m}, EqualJitter{base, c, m})
			}
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	var pp Prepared
	for _, p := range policies {
		for range 2 { // again: the tables are reused
			if !pp.Reset(p) {
				t.Fatalf("%#v not prepared", p)
			}
			draws := false
			switch p.(type) {
			case FullJitter, EqualJitter, Decorrelated:
				draws = true
			}
			if pp.Draws() != draws {
				t.Fatalf("%#v: Draws() = %v", p, pp.Draws())
			}
			prev := time.Duration(0)
			for a := -1; a < 3*preparedAttempts; a++ {
				for _, u := range []float64{0, r.Float64(), 1 - 0x1p-53} {
					for _, pv := range []time.Duration{-1, 0, prev, math.MaxInt64 / 2} {
						want := p.Sleep(a, pv, fixedRand(u))
						if got := pp.Sleep(a, pv, u); got != want {
							t.Fatalf("%#v: Sleep(%d, %v, %v) = %v prepared, %v by the policy", p, a, pv, u, got, want)
						}
					}
				}
				prev = pp.Sleep(a, prev, r.Float64())
			}
		}
	}
}

// TestPreparedOther checks that a policy of another package is called through its own Sleep.
func TestPreparedOther(t *testing.T) {
	var pp Prepared
	if pp.Reset(otherPolicy{}) {
		t.Fatal("another package's policy was prepared")
	}
	if got := pp.Sleep(3, 0, 0.5); got != 3*time.Millisecond/2 {
		t.Fatalf("Sleep = %v, want 1.5ms", got)
	}
	if !pp.Reset(FullJitter{Base: time.Millisecond}) || pp.Sleep(1, 0, 0.5) != time.Millisecond {
		t.Fatal("not prepared again after another policy")
	}
}

type otherPolicy struct{}

func (otherPolicy) Sleep(attempt int, prev time.Duration, r Rand) time.Duration {
	return time.Duration(float64(attempt) * float64(time.Millisecond) * r.Float64())
}

// TestToDurationRounds checks toDuration against math.Round around halves, at the edges of
// float64's integers (2^52, 2^53) and of Duration's range, and at random magnitudes.
func TestToDurationRounds(t *testing.T) {
	ref := func(f float64) time.Duration {
		switch {
		case !(f > 0):
			return 0
		case f >= maxNanos:
			return math.MaxInt64
		}
		return time.Duration(math.Round(f))
	}
	xs := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, math.SmallestNonzeroFloat64, 0.49999999999999994, 0.5, 1.5, 2.5, 0x1p52 - 0.5, 0x1p52, 0x1p52 + 1, 0x1p53, 0x1p53 + 2, maxNanos, math.Nextafter(maxNanos, 0)}
	r := rand.New(rand.NewPCG(3, 4))
	for range 1_000_000 {
		f := math.Ldexp(r.Float64(), r.IntN(70)-5)
		xs = append(xs, f, math.Floor(f)+0.5, math.Nextafter(math.Floor(f)+0.5, 0), math.Nextafter(math.Floor(f)+0.5, math.Inf(1)))
	}
	for _, f := range xs {
		if got, want := toDuration(f), ref(f); got != want {
			t.Fatalf("toDuration(%v) = %d, math.Round gives %d", f, got, want)
		}
	}
}

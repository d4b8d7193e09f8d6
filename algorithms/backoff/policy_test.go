package backoff_test

import (
	"math"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

// Every policy is a value that satisfies Policy.
var (
	_ backoff.Policy = backoff.None{}
	_ backoff.Policy = backoff.Constant{}
	_ backoff.Policy = backoff.Linear{}
	_ backoff.Policy = backoff.Exponential{}
	_ backoff.Policy = backoff.FullJitter{}
	_ backoff.Policy = backoff.EqualJitter{}
	_ backoff.Policy = backoff.Decorrelated{}
)

// fixed is a Rand that always returns the same value.
type fixed float64

func (f fixed) Float64() float64 { return float64(f) }

// counting is a Rand that returns 0.5 and counts the draws.
type counting struct{ n int }

func (c *counting) Float64() float64 { c.n++; return 0.5 }

// script is a Rand that returns the given values in order.
type script struct{ vals []float64 }

func (s *script) Float64() float64 {
	v := s.vals[0]
	s.vals = s.vals[1:]
	return v
}

const (
	ms      = time.Millisecond
	maxDur  = time.Duration(math.MaxInt64)
	almost1 = 0.999
)

// justBelow1 is the largest float64 below 1, the largest value Float64 may return.
var justBelow1 = math.Nextafter(1, 0)

func TestSleep(t *testing.T) {
	tests := []struct {
		name    string
		p       backoff.Policy
		attempt int
		prev    time.Duration
		u       float64
		want    time.Duration
	}{
		{"none/1", backoff.None{}, 1, 0, 0.5, 0},
		{"none/10000", backoff.None{}, 10000, time.Hour, 0.5, 0},

		{"constant/1", backoff.Constant{Delay: 250 * ms}, 1, 0, 0, 250 * ms},
		{"constant/7", backoff.Constant{Delay: 250 * ms}, 7, 250 * ms, 0.9, 250 * ms},
		{"constant/10000", backoff.Constant{Delay: 250 * ms}, 10000, 0, 0, 250 * ms},
		{"constant/negative", backoff.Constant{Delay: -time.Second}, 1, 0, 0, 0},

		{"linear/1", backoff.Linear{Base: 100 * ms}, 1, 0, 0, 100 * ms},
		{"linear/7", backoff.Linear{Base: 100 * ms}, 7, 0, 0, 700 * ms},
		{"linear/capped", backoff.Linear{Base: 100 * ms, Cap: 250 * ms}, 3, 0, 0, 250 * ms},
		{"linear/below cap", backoff.Linear{Base: 100 * ms, Cap: 250 * ms}, 2, 0, 0, 200 * ms},
		{"linear/10000", backoff.Linear{Base: time.Second}, 10000, 0, 0, 10000 * time.Second},
		{"linear/overflow", backoff.Linear{Base: time.Hour}, 1 << 40, 0, 0, maxDur},
		{"linear/overflow capped", backoff.Linear{Base: time.Hour, Cap: time.Minute}, 1 << 40, 0, 0, time.Minute},
		{"linear/negative base", backoff.Linear{Base: -time.Second}, 3, 0, 0, 0},

		// The simulator's expo(n) = min(cap, 2**n * base): the first retry sleeps 2·Base.
		{"exponential/1", backoff.Exponential{Base: 100 * ms}, 1, 0, 0, 200 * ms},
		{"exponential/3", backoff.Exponential{Base: 100 * ms}, 3, 0, 0, 800 * ms},
		{"exponential/capped", backoff.Exponential{Base: 100 * ms, Cap: time.Second}, 4, 0, 0, time.Second},
		{"exponential/below cap", backoff.Exponential{Base: 100 * ms, Cap: time.Second}, 3, 0, 0, 800 * ms},
		{"exponential/r=3", backoff.Exponential{Base: 100 * ms, Multiplier: 3}, 2, 0, 0, 900 * ms},
		{"exponential/r=1.5", backoff.Exponential{Base: 100 * ms, Multiplier: 1.5}, 2, 0, 0, 225 * ms},
		{"exponential/r=1.1", backoff.Exponential{Base: time.Second, Multiplier: 1.1}, 2, 0, 0, 1210 * ms},
		{"exponential/simulator 9", backoff.Exponential{Base: 5 * ms, Cap: 2000 * ms}, 8, 0, 0, 1280 * ms},
		{"exponential/simulator 10", backoff.Exponential{Base: 5 * ms, Cap: 2000 * ms}, 9, 0, 0, 2000 * ms},
		{"exponential/10000 capped", backoff.Exponential{Base: 100 * ms, Cap: 2 * time.Second}, 10000, 0, 0, 2 * time.Second},
		{"exponential/10000 uncapped", backoff.Exponential{Base: 100 * ms}, 10000, 0, 0, maxDur},
		{"exponential/10000 huge cap", backoff.Exponential{Base: 100 * ms, Cap: maxDur - 1}, 10000, 0, 0, maxDur - 1},
		{"exponential/10000 zero base", backoff.Exponential{}, 10000, 0, 0, 0},
		{"exponential/negative base", backoff.Exponential{Base: -time.Second}, 3, 0, 0, 0},

		{"full/u=0", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 1, 0, 0, 0},
		{"full/1 u=.5", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 1, 0, 0.5, 100 * ms},
		{"full/3 u=.5", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 3, 0, 0.5, 400 * ms},
		{"full/2 u=.999", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 2, 0, almost1, 399600 * time.Microsecond},
		// Rounding to the nearest nanosecond can reach v itself.
		{"full/2 u=max", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 2, 0, justBelow1, 400 * ms},
		{"full/capped u=.5", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 10, 0, 0.5, 500 * ms},
		{"full/r=3 u=.5", backoff.FullJitter{Base: 100 * ms, Multiplier: 3}, 2, 0, 0.5, 450 * ms},
		{"full/10000 capped u=max", backoff.FullJitter{Base: 100 * ms, Cap: time.Second}, 10000, 0, justBelow1, time.Second},
		{"full/10000 uncapped u=.5", backoff.FullJitter{Base: 100 * ms}, 10000, 0, 0.5, 1 << 62},
		// Without a cap v saturates at 2^63ns, and u·v stays below it.
		{"full/10000 uncapped u=max", backoff.FullJitter{Base: 100 * ms}, 10000, 0, justBelow1, maxDur - 1023},

		{"equal/1 u=0", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 1, 0, 0, 100 * ms},
		{"equal/1 u=.5", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 1, 0, 0.5, 150 * ms},
		{"equal/2 u=.999", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 2, 0, almost1, 399800 * time.Microsecond},
		{"equal/capped u=0", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 10, 0, 0, 500 * ms},
		{"equal/r=3 u=.5", backoff.EqualJitter{Base: 100 * ms, Multiplier: 3}, 2, 0, 0.5, 675 * ms},
		{"equal/10000 capped u=.5", backoff.EqualJitter{Base: 100 * ms, Cap: time.Second}, 10000, 0, 0.5, 750 * ms},
		{"equal/10000 uncapped u=0", backoff.EqualJitter{Base: 100 * ms}, 10000, 0, 0, 1 << 62},
		{"equal/10000 uncapped u=max", backoff.EqualJitter{Base: 100 * ms}, 10000, 0, justBelow1, maxDur},

		// Before the first retry p = Base, as the simulator's sleep = base.
		{"decorrelated/first u=0", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 1, 0, 0, 100 * ms},
		{"decorrelated/first u=.5", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 1, 0, 0.5, 200 * ms},
		{"decorrelated/first u=.999", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 1, 0, almost1, 299800 * time.Microsecond},
		{"decorrelated/prev 200ms", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 2, 200 * ms, 0.5, 350 * ms},
		{"decorrelated/capped", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 5, 900 * ms, 0.5, time.Second},
		{"decorrelated/prev at cap u=0", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 9, time.Second, 0, 100 * ms},
		{"decorrelated/ignores attempt", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 10000, 0, 0.5, 200 * ms},
		{"decorrelated/negative prev", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, 2, -time.Second, 0.5, 200 * ms},
		{"decorrelated/huge prev uncapped", backoff.Decorrelated{Base: 100 * ms}, 2, maxDur, justBelow1, maxDur},
		{"decorrelated/zero base", backoff.Decorrelated{}, 1, 0, 0.5, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Sleep(tt.attempt, tt.prev, fixed(tt.u)); got != tt.want {
				t.Errorf("%#v.Sleep(%d, %v, %v) = %v (%d), want %v (%d)",
					tt.p, tt.attempt, tt.prev, tt.u, got, int64(got), tt.want, int64(tt.want))
			}
		})
	}
}

// TestSeed001Table reproduces the linear versus exponential table of the Zenn
// post "リトライ処理時のExponential Backoff(指数関数バックオフ)戦略", 100ms base.
//
// The post's loop runs attempt = 0, 1, ... and sleeps baseDelay·2**attempt
// before retry attempt+1, so its exponential column is Exponential at
// attempts 0 to 4 (one behind the simulator's numbering, whose first retry
// is attempt 1). Its linear column is labelled delay·attempt with the
// retry number as attempt, which is Linear at attempts 1 to 5.
func TestSeed001Table(t *testing.T) {
	lin := backoff.Linear{Base: 100 * ms}
	exp := backoff.Exponential{Base: 100 * ms}
	table := []struct {
		retry       int
		linear, exp time.Duration
	}{
		{1, 100 * ms, 100 * ms},
		{2, 200 * ms, 200 * ms},
		{3, 300 * ms, 400 * ms},
		{4, 400 * ms, 800 * ms},
		{5, 500 * ms, 1600 * ms},
	}
	for _, row := range table {
		if got := lin.Sleep(row.retry, 0, nil); got != row.linear {
			t.Errorf("retry %d: linear %v, want %v", row.retry, got, row.linear)
		}
		if got := exp.Sleep(row.retry-1, 0, nil); got != row.exp {
			t.Errorf("retry %d: exponential %v, want %v", row.retry, got, row.exp)
		}
	}
}

// TestDraws checks that jittered policies draw exactly one Float64 per call
// and the others none, whatever the parameters, so that policies compared on
// one random stream consume it in step (common random numbers).
func TestDraws(t *testing.T) {
	policies := []struct {
		name  string
		p     backoff.Policy
		draws int
	}{
		{"none", backoff.None{}, 0},
		{"constant", backoff.Constant{Delay: time.Second}, 0},
		{"linear", backoff.Linear{Base: time.Second, Cap: time.Minute}, 0},
		{"exponential", backoff.Exponential{Base: time.Second, Cap: time.Minute}, 0},
		{"full", backoff.FullJitter{Base: time.Second, Cap: time.Minute}, 1},
		{"full/zero", backoff.FullJitter{}, 1},
		{"full/uncapped", backoff.FullJitter{Base: time.Second, Multiplier: 3}, 1},
		{"equal", backoff.EqualJitter{Base: time.Second, Cap: time.Minute}, 1},
		{"equal/zero", backoff.EqualJitter{}, 1},
		{"decorrelated", backoff.Decorrelated{Base: time.Second, Cap: time.Minute}, 1},
		{"decorrelated/zero", backoff.Decorrelated{}, 1},
	}
	calls := []struct {
		attempt int
		prev    time.Duration
	}{{1, 0}, {2, time.Second}, {30, time.Hour}, {10000, maxDur}, {0, 0}}
	for _, tt := range policies {
		t.Run(tt.name, func(t *testing.T) {
			for _, c := range calls {
				var r counting
				tt.p.Sleep(c.attempt, c.prev, &r)
				if r.n != tt.draws {
					t.Errorf("Sleep(%d, %v) drew %d times, want %d", c.attempt, c.prev, r.n, tt.draws)
				}
			}
		})
	}
}

// TestNilRand checks that the policies that draw nothing accept a nil Rand.
func TestNilRand(t *testing.T) {
	for _, p := range []backoff.Policy{
		backoff.None{},
		backoff.Constant{Delay: time.Second},
		backoff.Linear{Base: time.Second},
		backoff.Exponential{Base: time.Second},
	} {
		p.Sleep(3, time.Second, nil)
	}
}

func TestSleepDoesNotAllocate(t *testing.T) {
	r := fixed(0.5)
	for _, bc := range benchPolicies {
		allocs := testing.AllocsPerRun(100, func() {
			sink = bc.p.Sleep(5, 300*ms, r)
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocs per Sleep, want 0", bc.name, allocs)
		}
	}
}

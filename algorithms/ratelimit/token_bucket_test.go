package ratelimit_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// t0 is an arbitrary origin for explicit times.
var t0 = time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)

// at returns t0+d.
func at(d time.Duration) time.Time { return t0.Add(d) }

var inf = math.Inf(1)

const ms = time.Millisecond

type allowStep struct {
	at   time.Duration // offset from t0
	n    int
	want bool
}

func TestAllowN(t *testing.T) {
	tests := []struct {
		name  string
		rate  float64
		burst int
		steps []allowStep
	}{
		{
			name: "starts full", rate: 1, burst: 3,
			steps: []allowStep{{0, 3, true}, {0, 1, false}},
		},
		{
			name: "refill over time", rate: 2, burst: 4,
			steps: []allowStep{
				{0, 4, true},
				{250 * ms, 1, false}, // 0.5 tokens
				{500 * ms, 1, true},  // 1 token
				{500 * ms, 1, false},
				{1500 * ms, 2, true}, // 2 tokens
				{1500 * ms, 1, false},
				{1750 * ms, 1, false}, // 0.5 tokens
				{2 * time.Second, 1, true},
			},
		},
		{
			name: "fractional tokens accumulate across refused calls", rate: 0.5, burst: 1,
			steps: []allowStep{
				{0, 1, true},
				{time.Second, 1, false},
				{1999 * ms, 1, false},
				{2 * time.Second, 1, true},
			},
		},
		{
			name: "burst cap after long idle", rate: 10, burst: 2,
			steps: []allowStep{
				{0, 1, true},
				{time.Hour, 2, true},
				{time.Hour, 1, false},
			},
		},
		{
			name: "n > burst never allowed", rate: 100, burst: 5,
			steps: []allowStep{
				{0, 6, false},
				{0, 5, true}, // the refused call took nothing
				{time.Hour, 6, false},
				{time.Hour, 5, true},
			},
		},
		{
			name: "n <= 0 takes nothing", rate: 0, burst: 1,
			steps: []allowStep{
				{0, 0, true},
				{0, -5, true},
				{0, 1, true},
				{0, 0, true},
				{0, -5, true}, // does not add tokens
				{0, 1, false},
			},
		},
		{
			name: "backwards time adds nothing", rate: 1, burst: 2,
			steps: []allowStep{
				{10 * time.Second, 2, true},
				{5 * time.Second, 1, false},
				{0, 1, false},
				// The clock stays at 10s: the 5s..10s interval is not earned twice.
				{10 * time.Second, 1, false},
				{10500 * ms, 1, false},
				{11 * time.Second, 1, true},
			},
		},
		{
			name: "backwards time still spends tokens", rate: 1, burst: 3,
			steps: []allowStep{
				{10 * time.Second, 1, true},
				{5 * time.Second, 2, true},
				{5 * time.Second, 1, false},
				{11 * time.Second, 1, true},
				{11 * time.Second, 1, false},
			},
		},
		{
			name: "rate 0 allows only the initial burst", rate: 0, burst: 2,
			steps: []allowStep{
				{0, 1, true},
				{time.Hour, 1, true},
				{100 * time.Hour, 1, false},
				{1e6 * time.Hour, 1, false},
			},
		},
		{
			name: "rate +Inf always allows", rate: inf, burst: 0,
			steps: []allowStep{
				{0, 1, true},
				{0, 1, true},
				{0, 1000, true},
				{-time.Hour, 1, true},
			},
		},
		{
			name: "burst 0 never allows with a finite rate", rate: 1e9, burst: 0,
			steps: []allowStep{{0, 1, false}, {time.Hour, 1, false}, {time.Hour, 0, true}},
		},
		{
			name: "negative rate behaves as 0", rate: -3, burst: 1,
			steps: []allowStep{{0, 1, true}, {time.Hour, 1, false}},
		},
		{
			name: "NaN rate behaves as 0", rate: math.NaN(), burst: 1,
			steps: []allowStep{{0, 1, true}, {time.Hour, 1, false}},
		},
		{
			name: "negative burst behaves as 0", rate: 1, burst: -1,
			steps: []allowStep{{0, 1, false}, {time.Hour, 1, false}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ratelimit.NewTokenBucket(tt.rate, tt.burst)
			for i, s := range tt.steps {
				if got := b.AllowN(at(s.at), s.n); got != s.want {
					t.Fatalf("step %d: AllowN(t0+%v, %d) = %t, want %t", i, s.at, s.n, got, s.want)
				}
			}
		})
	}
}

func TestTokens(t *testing.T) {
	type step struct {
		take int           // tokens to take at `at` first (0: none)
		at   time.Duration // offset from t0
		want float64       // Tokens(t0+at) after the take
	}
	tests := []struct {
		name  string
		rate  float64
		burst int
		steps []step
	}{
		{
			name: "refill and cap", rate: 2, burst: 4,
			steps: []step{
				{0, 0, 4},
				{4, 0, 0},
				{0, 250 * ms, 0.5},
				{0, 1500 * ms, 3},
				{0, 10 * time.Second, 4},
			},
		},
		{
			// Tokens must not move the clock: after asking about t0+1s,
			// asking about t0 again still sees the empty bucket.
			name: "read only", rate: 2, burst: 4,
			steps: []step{
				{4, 0, 0},
				{0, time.Second, 2},
				{0, 0, 0},
			},
		},
		{
			name: "backwards", rate: 1, burst: 2,
			steps: []step{
				{2, 10 * time.Second, 0},
				{0, 5 * time.Second, 0},
				{0, 10 * time.Second, 0},
				{0, 11 * time.Second, 1},
			},
		},
		{
			name: "rate 0", rate: 0, burst: 3,
			steps: []step{{1, 0, 2}, {0, time.Hour, 2}},
		},
		{
			name: "rate +Inf", rate: inf, burst: 3,
			steps: []step{{0, 0, inf}, {5, 0, inf}},
		},
		{
			name: "burst 0", rate: 5, burst: 0,
			steps: []step{{0, 0, 0}, {0, time.Hour, 0}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ratelimit.NewTokenBucket(tt.rate, tt.burst)
			for i, s := range tt.steps {
				if s.take > 0 && !b.AllowN(at(s.at), s.take) {
					t.Fatalf("step %d: AllowN(t0+%v, %d) = false", i, s.at, s.take)
				}
				got := b.Tokens(at(s.at))
				if !(got == s.want || math.Abs(got-s.want) < 1e-9) {
					t.Fatalf("step %d: Tokens(t0+%v) = %v, want %v", i, s.at, got, s.want)
				}
			}
		})
	}
}

func TestDelay(t *testing.T) {
	type step struct {
		take int           // tokens to take at `at` first (0: none)
		at   time.Duration // offset from t0
		want time.Duration // Delay(t0+at) after the take
	}
	tests := []struct {
		name  string
		rate  float64
		burst int
		steps []step
	}{
		{
			name: "full bucket", rate: 10, burst: 3,
			steps: []step{{0, 0, 0}, {2, 0, 0}},
		},
		{
			name: "refill", rate: 10, burst: 1,
			steps: []step{
				{1, 0, 100 * ms},
				{0, 40 * ms, 60 * ms},
				{0, 99 * ms, 1 * ms},
				{0, 100 * ms, 0},
				{0, time.Hour, 0},
			},
		},
		{
			name: "slow rate", rate: 0.25, burst: 2,
			steps: []step{
				{2, 0, 4 * time.Second},
				{0, time.Second, 3 * time.Second},
			},
		},
		{
			name: "rounded up to a whole nanosecond", rate: 3, burst: 1,
			// 1/3 s is 333333333.3ns; 333333333ns refills only 0.999999999.
			steps: []step{{1, 0, 333333334}},
		},
		{
			// The bucket's clock is at 1s, so from t0 the refill cannot
			// start before 1s has passed.
			name: "backwards", rate: 10, burst: 1,
			steps: []step{
				{1, time.Second, 100 * ms},
				{0, 0, 1100 * ms},
				{0, 1050 * ms, 50 * ms},
			},
		},
		{
			name: "rate 0 empty", rate: 0, burst: 1,
			steps: []step{{0, 0, 0}, {1, 0, ratelimit.InfDuration}, {0, time.Hour, ratelimit.InfDuration}},
		},
		{
			name: "burst 0", rate: 10, burst: 0,
			steps: []step{{0, 0, ratelimit.InfDuration}},
		},
		{
			name: "rate +Inf", rate: inf, burst: 0,
			steps: []step{{0, 0, 0}, {5, time.Second, 0}},
		},
		{
			name: "too far to represent", rate: 1e-12, burst: 1,
			steps: []step{{1, 0, ratelimit.InfDuration}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := ratelimit.NewTokenBucket(tt.rate, tt.burst)
			for i, s := range tt.steps {
				if s.take > 0 && !b.AllowN(at(s.at), s.take) {
					t.Fatalf("step %d: AllowN(t0+%v, %d) = false", i, s.at, s.take)
				}
				if got := b.Delay(at(s.at)); got != s.want {
					t.Fatalf("step %d: Delay(t0+%v) = %v, want %v", i, s.at, got, s.want)
				}
			}
		})
	}
}

// TestDelayIsExact checks, over random buckets, that a token is available
// exactly Delay after now and not a microsecond earlier.
func TestDelayIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 20000 {
		rate := math.Pow(10, -3+9*r.Float64()) // 1e-3 .. 1e6 per second
		burst := 1 + r.IntN(10)
		b := ratelimit.NewTokenBucket(rate, burst)
		last := at(time.Duration(r.Int64N(int64(time.Hour))))
		b.AllowN(last, burst) // empty it
		// Partly refill, possibly in several steps, then ask, possibly
		// about a time before the bucket's clock.
		for range r.IntN(3) {
			last = last.Add(time.Duration(r.Float64() / rate * float64(time.Second)))
			b.AllowN(last, 1)
		}
		now := last.Add(time.Duration((r.Float64() - 0.2) / rate * float64(time.Second)))
		d := b.Delay(now)
		if d == ratelimit.InfDuration {
			t.Fatalf("case %d: rate %v: Delay = InfDuration", i, rate)
		}
		if got := b.Tokens(now.Add(d)); got < 1 {
			t.Fatalf("case %d: rate %v: Tokens(now+Delay) = %v, want >= 1", i, rate, got)
		}
		if d > time.Microsecond {
			if got := b.Tokens(now.Add(d - time.Microsecond)); got >= 1 {
				t.Fatalf("case %d: rate %v: Delay %v is not tight: Tokens(now+Delay-1µs) = %v", i, rate, d, got)
			}
		}
		if !b.AllowN(now.Add(d), 1) {
			t.Fatalf("case %d: rate %v: AllowN(now+Delay(now), 1) = false", i, rate)
		}
	}
}

// TestConcurrentFixedTime hands out an exact number of tokens to many
// goroutines asking at the same instant.
func TestConcurrentFixedTime(t *testing.T) {
	const burst, goroutines, calls = 100, 16, 200
	b := ratelimit.NewTokenBucket(0, burst)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for range calls {
				if b.AllowN(t0, 1) {
					allowed.Add(1)
				}
				b.Tokens(t0)
				b.Delay(t0)
			}
		})
	}
	wg.Wait()
	if got := allowed.Load(); got != burst {
		t.Errorf("allowed %d calls, want exactly burst = %d", got, burst)
	}
}

// TestConcurrentAllow hammers Allow from many goroutines on the real clock: the total allowed
// can never exceed burst + rate·elapsed, and never falls short of the burst. Each goroutine
// calls at least burst times, however late a busy machine runs it, so the second bound does
// not depend on the machine's speed.
func TestConcurrentAllow(t *testing.T) {
	const (
		rate       = 2000.0
		burst      = 50
		goroutines = 32
		run        = 100 * time.Millisecond
	)
	start := time.Now()
	b := ratelimit.NewTokenBucket(rate, burst)
	var allowed atomic.Int64
	var wg sync.WaitGroup
	for range goroutines {
		wg.Go(func() {
			for i := 0; i < burst || time.Since(start) < run; i++ {
				if b.Allow() {
					allowed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	got := allowed.Load()
	limit := burst + rate*elapsed.Seconds()
	t.Logf("allowed %d in %v (limit %.1f)", got, elapsed, limit)
	if float64(got) > limit {
		t.Errorf("allowed %d calls in %v, more than burst + rate·elapsed = %.1f", got, elapsed, limit)
	}
	if got < burst {
		t.Errorf("allowed %d calls, fewer than the initial burst %d", got, burst)
	}
}

func TestAllowNDoesNotAllocate(t *testing.T) {
	b := ratelimit.NewTokenBucket(1e6, 100)
	now := t0
	allocs := testing.AllocsPerRun(1000, func() {
		now = now.Add(time.Microsecond)
		b.AllowN(now, 1)
		b.Tokens(now)
		b.Delay(now)
	})
	if allocs != 0 {
		t.Errorf("AllowN, Tokens and Delay allocate %v times per call, want 0", allocs)
	}
}

// A connection may change parameters twice in a row, then twice a second.
func ExampleTokenBucket() {
	b := ratelimit.NewTokenBucket(2, 2)
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, off := range []time.Duration{0, 0, 0, 250 * time.Millisecond, 500 * time.Millisecond} {
		now := start.Add(off)
		ok := b.AllowN(now, 1)
		fmt.Printf("t=%v allowed=%t tokens=%.1f next in %v\n", off, ok, b.Tokens(now), b.Delay(now))
	}
	// Output:
	// t=0s allowed=true tokens=1.0 next in 0s
	// t=0s allowed=true tokens=0.0 next in 500ms
	// t=0s allowed=false tokens=0.0 next in 500ms
	// t=250ms allowed=false tokens=0.5 next in 250ms
	// t=500ms allowed=true tokens=0.0 next in 500ms
}

func BenchmarkAllowN(b *testing.B) {
	tb := ratelimit.NewTokenBucket(1e6, 100)
	now := t0
	b.ReportAllocs()
	for b.Loop() {
		now = now.Add(time.Microsecond)
		tb.AllowN(now, 1)
	}
}

func BenchmarkAllowParallel(b *testing.B) {
	tb := ratelimit.NewTokenBucket(1e6, 100)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			tb.Allow()
		}
	})
}

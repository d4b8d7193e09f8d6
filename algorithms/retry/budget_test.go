package retry_test

import (
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/retry"
)

// A fresh client has the reserve: minRetriesPerSec × ttl = 100 retries, no more (the balance
// must be at least one withdrawal: the 100th goes, ≥ not >); the withdrawals expire with their
// time slice, 9 to 10 s later.
func TestBudgetReserve(t *testing.T) {
	b := retry.DefaultBudget()
	if got := b.Balance(0); got != 100 {
		t.Fatalf("fresh balance %d, want 100", got)
	}
	for i := range 100 {
		if cost, ok := b.Allow(int64(i)*ms, 1, retry.Failure); !ok || cost != 1 {
			t.Fatalf("retry %d refused (cost %d) with balance %d", i+1, cost, b.Balance(int64(i)*ms))
		}
	}
	if _, ok := b.Allow(100*ms, 1, retry.Failure); ok {
		t.Fatal("retry 101 allowed from a reserve of 100")
	}
	// The 100 withdrawals were made in slice [0, 1s): they are forgotten when slice [10s, 11s)
	// begins, not before.
	if _, ok := b.Allow(10*sec-1, 1, retry.Failure); ok {
		t.Fatal("withdrawals forgotten before 10 s")
	}
	if got := b.Balance(10 * sec); got != 100 {
		t.Fatalf("balance at 10 s %d, want 100", got)
	}
	if _, ok := b.Allow(10*sec, 1, retry.Failure); !ok {
		t.Fatal("retry refused at 10 s")
	}
}

// Deposits: 1000 units per request, a retry withdraws 5000 (20%): with the reserve of 500,000,
// 1000 requests in one slice allow 100 + 200 retries; the requests' deposits expire after ttl
// like the withdrawals.
func TestBudgetDepositsExpire(t *testing.T) {
	b := retry.DefaultBudget()
	for i := range 1000 {
		if _, ok := b.Allow(int64(i)*ms/2, 0, retry.Success); !ok { // 1000 first tries in 0.5 s
			t.Fatal("first try refused")
		}
	}
	if got := b.Balance(time.Duration(9*sec + 999*ms).Nanoseconds()); got != 300 {
		t.Fatalf("balance at 9.999 s %d, want 100 + 0.2 × 1000 = 300", got)
	}
	if got := b.Balance(10 * sec); got != 100 {
		t.Fatalf("balance at 10 s %d, want 100 (the deposits expired)", got)
	}
	// Withdrawals can outlive the deposits that paid for them: 300 retries at 9.5 s take the
	// balance to 0; at 10 s the deposits expire and it is 100 − 300 = −200 until the
	// withdrawals, made in slice [9 s, 10 s), expire at 19 s.
	c := retry.DefaultBudget()
	for i := range 1000 {
		c.Allow(int64(i)*ms/2, 0, retry.Success)
	}
	for i := range 300 {
		if _, ok := c.Allow(9*sec+sec/2, 1, retry.Failure); !ok {
			t.Fatalf("retry %d refused", i+1)
		}
	}
	if _, ok := c.Allow(9*sec+sec/2, 1, retry.Failure); ok {
		t.Fatal("retry 301 allowed")
	}
	if got := c.Balance(10 * sec); got != -200 {
		t.Fatalf("balance at 10 s %d, want −200", got)
	}
	if got := c.Balance(19 * sec); got != 100 {
		t.Fatalf("balance at 19 s %d, want 100", got)
	}
}

// At a steady 100 requests a second, every one failing and wanting a retry, the budget allows
// 20% of the requests plus 10 a second: 30 retries a second.
func TestBudgetSteadyRate(t *testing.T) {
	tests := []struct {
		name     string
		b        *retry.Budget
		rate     int // requests per second
		wantRate float64
	}{
		{"finagle default", retry.DefaultBudget(), 100, 0.2*100 + 10},
		{"finagle default, 1000/s", retry.DefaultBudget(), 1000, 0.2*1000 + 10},
		{"no floor", retry.NewBudget(10*time.Second, 0, 0.2), 100, 20},
		{"floor only", retry.NewBudget(10*time.Second, 10, 0), 100, 10},
		{"SRE 10%", retry.NewBudget(10*time.Second, 0, 0.1), 100, 10},
		{"linkerd-like 5 s", retry.NewBudget(5*time.Second, 10, 0.2), 100, 30},
		{"empty", retry.NewBudget(10*time.Second, 0, 0), 100, 0},
	}
	for _, tc := range tests {
		gap := sec / int64(tc.rate)
		retries, from := 0, 60*sec // count from 60 s to 160 s, past the start-up reserve
		for now := int64(0); now < 160*sec; now += gap {
			sent, _, _ := request(tc.b, now, 1, fails(2)...)
			if now >= from && sent == 2 {
				retries++
			}
		}
		got := float64(retries) / 100
		t.Logf("%s: %.2f retries/s", tc.name, got)
		// Over 100 s the window's slices make the count exact to within a slice's worth.
		if d := got - tc.wantRate; d > 0.2 || d < -0.2 {
			t.Errorf("%s: %.2f retries/s at %d requests/s, want %.1f", tc.name, got, tc.rate, tc.wantRate)
		}
	}
}

// Finagle's parameter ranges: ttl in [1 s, 60 s], the reserve counts whole seconds.
func TestBudgetParameters(t *testing.T) {
	tests := []struct {
		ttl     time.Duration
		minRPS  int
		percent float64
		balance int
	}{
		{10 * time.Second, 10, 0.2, 100},
		{500 * time.Millisecond, 10, 0.2, 10}, // ttl taken as 1 s
		{2 * time.Minute, 10, 0.2, 600},       // ttl taken as 60 s
		{2500 * time.Millisecond, 4, 0.5, 8},  // 4 × 2 whole seconds
		{10 * time.Second, -3, 0.2, 0},        // negative floor: 0
		{10 * time.Second, 10, -1, 100},       // negative percent: 0, floor only
		{10 * time.Second, 0, 0, 0},           // empty
	}
	for _, tc := range tests {
		b := retry.NewBudget(tc.ttl, tc.minRPS, tc.percent)
		if got := b.Balance(0); got != tc.balance {
			t.Errorf("NewBudget(%v, %d, %v): balance %d, want %d", tc.ttl, tc.minRPS, tc.percent, got, tc.balance)
		}
	}
	// percentCanRetry 2: every request allows two retries.
	b := retry.NewBudget(10*time.Second, 0, 2)
	b.Allow(0, 0, retry.Success)
	if got := b.Balance(0); got != 2 {
		t.Errorf("percent 2: balance %d after a request, want 2", got)
	}
}

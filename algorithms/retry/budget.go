package retry

import (
	"math"
	"time"
)

// Defaults of [Budget]: Finagle's RetryBudget() (RetryBudget.scala: DefaultTtl,
// DefaultMinRetriesPerSec, and 0.2), which Linkerd's retry budgets share.
const (
	DefaultBudgetTTL              = 10 * time.Second // deposits and withdrawals expire after about ttl
	DefaultBudgetMinRetriesPerSec = 10               // retries a second allowed on top of the ratio
	DefaultBudgetPercentCanRetry  = 0.2              // retries allowed per request
)

// budgetSlices is the number of time slices of Budget's window: WindowedAdder(ttl, 10, now) in
// Finagle's TokenBucket.newLeakyBucket.
const budgetSlices = 10

// budgetScale is Finagle's TokenRetryBudget.ScaleFactor: a request deposits 1000 units and a
// retry withdraws 1000/percentCanRetry, so that the ratio needs no floating point.
const budgetScale = 1000

// Budget is a ratio retry budget: over a sliding window of about ttl, a client's retries may be
// percentCanRetry of its requests plus minRetriesPerSec a second, however many fail. It is
// Finagle's RetryBudget, whose defaults (ttl 10 s, 10 retries a second, 20%) Linkerd's retry
// budgets share (a ServiceProfile's retryBudget: retryRatio 0.2, minRetriesPerSecond 10, ttl
// 10 s; since Linkerd 2.16 ServiceProfiles are kept only for compatibility). Envoy's
// retry_budget has the same idea over concurrency (retries in flight at most budget_percent,
// 20%, of active requests, and at least min_retry_concurrency, 3), which a rate budget does not
// model. The Google SRE book's per-client retry budget (chapter 21, "Handling Overload",
// "Deciding to Retry": retry only while retries are below 10% of the client's requests) is
// about NewBudget(ttl, 0, 0.1).
//
// The rules are Finagle's, read in twitter/finagle (finagle-core/.../service/RetryBudget.scala,
// RetryFilter.scala) and twitter/util (util-core/.../util/TokenBucket.scala,
// WindowedAdder.scala):
//
//   - RetryFilter deposits once per request, when the request is issued (first try), and
//     withdraws once per retry, when a failed response is classified as retryable;
//   - amounts are scaled by 1000: a deposit is 1000 units and a withdrawal
//     int(1000/percentCanRetry) (5000 for 20%); with percentCanRetry 0 a deposit is 0 and a
//     withdrawal 1; with both minRetriesPerSec and percentCanRetry 0 no retry is ever allowed;
//   - the budget is a leaky token bucket: the sum of deposits minus withdrawals made in the
//     window, plus a constant reserve of minRetriesPerSec × ttl (in whole seconds) × withdrawal
//     (100 retries' worth by default, always there, not refilled over time);
//   - a retry goes if that balance is at least the withdrawal (≥, not >), and withdraws it.
//
// So in any window, retries ≤ percentCanRetry × requests + minRetriesPerSec × ttl: at a steady
// 100 requests a second that all fail, about 20 + 10 = 30 retries a second. A deposit (or a
// withdrawal) expires with its time slice: the window is 10 slices of ttl/10 (1 s by default),
// the current one and the 9 before it, so a count made at time t is forgotten between
// 0.9·ttl and ttl after t. Finagle's WindowedAdder also keeps 9 past slices plus the current
// one, but starts a new slice at the first call after the last one ended, where here slices
// are aligned to multiples of ttl/10 from time zero (same granularity, deterministic
// boundaries). Since withdrawals expire too, a balance can dip below the reserve after the
// deposits that paid for a retry expire before the retry's withdrawal.
//
// Memory is 10 slots whatever the rate. Allow returns cost 1 for a retry (one retry's
// withdrawal) and 0 for a first try; Record does nothing. It draws no random numbers. Like every
// [Policy] it is one client's state, not safe for concurrent use.
type Budget struct {
	w        window
	deposit  int64
	withdraw int64
	reserve  int64
	empty    bool
}

// NewBudget returns a budget allowing percentCanRetry retries per request plus
// minRetriesPerSec retries a second over a window of ttl. As Finagle requires, ttl is taken in
// [1s, 60s], minRetriesPerSec ≥ 0 and percentCanRetry in [0, 1000]; values outside (or NaN)
// are clamped to those ranges. Finagle computes in 32-bit integers; here in 64-bit ones,
// saturating, so parameters that overflow there do not here.
func NewBudget(ttl time.Duration, minRetriesPerSec int, percentCanRetry float64) *Budget {
	ttl = min(max(ttl, time.Second), time.Minute)
	minRetriesPerSec = max(minRetriesPerSec, 0)
	p := min(nonNegative(percentCanRetry), budgetScale)
	b := &Budget{w: newWindow(ttl, budgetSlices)}
	if minRetriesPerSec == 0 && p == 0 {
		b.empty = true
		return b
	}
	if p == 0 {
		b.deposit, b.withdraw = 0, 1
	} else {
		b.deposit = budgetScale
		b.withdraw = int64(min(budgetScale/p, math.MaxInt32)) // Java's toInt saturates at Int.MaxValue
	}
	secs := int64(ttl / time.Second) // ttl.inSeconds: whole seconds
	// Capped far below overflow so that reserve + the window's sum never overflows.
	b.reserve = min(satMul(satMul(int64(minRetriesPerSec), secs), b.withdraw), math.MaxInt64/4)
	return b
}

// DefaultBudget returns Finagle's default budget: ttl 10 s, 10 retries a second, 20%.
func DefaultBudget() *Budget {
	return NewBudget(DefaultBudgetTTL, DefaultBudgetMinRetriesPerSec, DefaultBudgetPercentCanRetry)
}

// Allow deposits for a first try and lets it go (cost 0); for a retry it withdraws and lets it
// go (cost 1) if the balance at now is at least one withdrawal, and refuses it otherwise.
func (b *Budget) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	if b.empty {
		return 0, attempt <= 0
	}
	if attempt <= 0 {
		b.w.add(now, b.deposit, 0)
		return 0, true
	}
	sum, _ := b.w.sums(now)
	if sum+b.reserve < b.withdraw {
		return 0, false
	}
	b.w.add(now, -b.withdraw, 0)
	return 1, true
}

// Record does nothing: the budget changes only in Allow.
func (b *Budget) Record(now int64, attempt int, o Outcome, cost int) {}

// Balance returns the retries the budget allows at now, as Finagle's RetryBudget.balance: the
// window's deposits minus withdrawals plus the reserve, divided by one withdrawal (rounded
// toward zero; negative when withdrawals outlive the deposits that paid for them).
func (b *Budget) Balance(now int64) int {
	if b.empty {
		return 0
	}
	sum, _ := b.w.sums(now)
	return int((sum + b.reserve) / b.withdraw)
}

// satMul returns a·b for a, b ≥ 0, saturating at math.MaxInt64.
func satMul(a, b int64) int64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

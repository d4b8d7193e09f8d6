package retry

// AWSConfig sets the retry quota of [AWS].
type AWSConfig struct {
	// Tokens is the quota's capacity and its initial content (DefaultRetryRateTokens).
	Tokens int
	// RetryCost is what a retry after a Failure takes (DefaultRetryCost).
	RetryCost int
	// TimeoutRetryCost is what a retry after a Timeout takes (DefaultRetryTimeoutCost).
	TimeoutRetryCost int
	// NoRetryIncrement is what a successful first try adds (DefaultNoRetryIncrement).
	NoRetryIncrement int
	// IncrementEveryAttempt makes every successful attempt add NoRetryIncrement, retries
	// included (on top of the retry's refund), as aws-sdk-go-v2 did before v1.48.0; when false
	// only a successful first try adds it, and a successful retry only refunds its cost.
	IncrementEveryAttempt bool
}

// DefaultAWSConfig is the standard retry mode's quota as aws-sdk-go-v2 shipped it by default up
// to v1.47.8 (aws/retry/standard.go, aws/ratelimit/token_bucket.go), the pre-2026 behaviour:
// 500 tokens, a retry takes 5, a retry after a timeout 10, a successful attempt adds 1 and a
// successful retry also gets back what it took. Do not modify it; copy it.
var DefaultAWSConfig = AWSConfig{
	Tokens:                500,
	RetryCost:             5,
	TimeoutRetryCost:      10,
	NoRetryIncrement:      1,
	IncrementEveryAttempt: true,
}

// AWS2026Config is the quota of the AWS SDKs' "Retry Behavior 2.1", opt-in in 2026
// (AWS_NEW_RETRIES_2026=true) and the default of aws-sdk-go-v2 since v1.48.0 (2026-11-10):
// 500 tokens, a retry takes 14 whatever the error (timeouts are no longer special), a
// successful first try adds 1 and a successful retry only refunds its 14 (500 → 486 → 472 →
// success → 486, as aws-sdk-go-v2's retry2026_test.go checks). A retry after a throttling error
// takes 5 there; an [Outcome] does not tell throttling from other failures, so here every retry
// takes 14. Its other changes (50 ms backoff base, 1 s after throttling, x-amz-retry-after)
// concern the backoff, not the quota. Do not modify it; copy it.
var AWS2026Config = AWSConfig{
	Tokens:                500,
	RetryCost:             14,
	TimeoutRetryCost:      14,
	NoRetryIncrement:      1,
	IncrementEveryAttempt: false,
}

// AWS is the retry quota of the AWS SDKs' standard retry mode: a token bucket per client that
// every retry draws from and successes refill, so that when a service fails widely a client
// stops retrying after a burst and fails fast.
//
// The rules are aws-sdk-go-v2's (read in aws/retry/standard.go, aws/retry/middleware.go and
// aws/ratelimit/token_bucket.go, v1.41.0 to v1.47.8, and v1.48.0 for [AWS2026Config]):
//
//   - the bucket starts with DefaultRetryRateTokens = 500, which is also its cap
//     (NewTokenBucket: remainingTokens and maxCapacity both 500);
//   - when an attempt fails with a retryable error and attempts remain, the retry takes
//     DefaultRetryCost = 5 tokens, or DefaultRetryTimeoutCost = 10 if the error was a timeout
//     (GetRetryToken); TokenBucket.Retrieve succeeds if the cost is at most the tokens left
//     (amount > remainingTokens refuses), and a refused retry returns the error at once;
//   - when an attempt succeeds, the retry token it held is released: its cost is refunded
//     (Refund, capped at the maximum); and the attempt token is released:
//     DefaultNoRetryIncrement = 1 is added (AddTokens, capped). Before v1.48.0 the middleware
//     releases an attempt token on every attempt, so a successful retry gets its cost back
//     plus 1; v1.48.0 releases it on the first attempt only;
//   - failed attempts give nothing back.
//
// From a full bucket, failures alone allow 100 retries (500/5), or 50 after timeouts (500/10),
// and then none until successes refill it. The quota is shared by all of a client's requests.
// botocore's standard mode (botocore/retries/standard.py, release_retry_quota) differs in one
// point: a successful retry refunds its cost only, as [AWS2026Config] does.
//
// Allow returns the tokens taken (5 or 10, 0 for a first try) as cost; Record refunds that cost
// and adds NoRetryIncrement when the attempt succeeded. The SDK takes the retry's tokens when
// the attempt fails, before sleeping; Allow takes them when it is called. It draws no random
// numbers. Like every [Policy] it is one client's state (one SDK client's Retryer), not safe for
// concurrent use.
type AWS struct {
	tokens int
	c      AWSConfig
}

// NewAWS returns a full quota configured by c. Negative values in c count as 0.
func NewAWS(c AWSConfig) *AWS {
	c.Tokens = max(c.Tokens, 0)
	c.RetryCost = max(c.RetryCost, 0)
	c.TimeoutRetryCost = max(c.TimeoutRetryCost, 0)
	c.NoRetryIncrement = max(c.NoRetryIncrement, 0)
	return &AWS{tokens: c.Tokens, c: c}
}

// DefaultAWS returns the standard mode's quota with [DefaultAWSConfig]: 500 tokens, 5 per retry,
// 10 per retry after a timeout.
func DefaultAWS() *AWS { return NewAWS(DefaultAWSConfig) }

// Allow lets a first try go (cost 0) and, for a retry, takes TimeoutRetryCost if prev is
// Timeout and RetryCost otherwise, if the bucket holds that many; cost is what it took.
func (a *AWS) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	if attempt <= 0 {
		return 0, true
	}
	cost = a.c.RetryCost
	if prev == Timeout {
		cost = a.c.TimeoutRetryCost
	}
	if cost > a.tokens {
		return 0, false
	}
	a.tokens -= cost
	return cost, true
}

// Record refunds cost and adds NoRetryIncrement (on a first try, or on every attempt with
// IncrementEveryAttempt) when o is Success, up to the capacity. A failure changes nothing.
func (a *AWS) Record(now int64, attempt int, o Outcome, cost int) {
	if o != Success {
		return
	}
	add := max(cost, 0)
	if attempt <= 0 || a.c.IncrementEveryAttempt {
		add += a.c.NoRetryIncrement
	}
	if add >= a.c.Tokens-a.tokens || add < 0 { // capped; add < 0 only if the sum overflowed
		a.tokens = a.c.Tokens
		return
	}
	a.tokens += add
}

// Tokens returns the tokens left in the quota.
func (a *AWS) Tokens() int { return a.tokens }

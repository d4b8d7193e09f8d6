package retry

// The example values of gRFC A6's retryThrottling ("maxTokens": 10, "tokenRatio": 0.1). A6
// gives no default: a gRPC channel without retryThrottling in its service config does not
// throttle retries at all.
const (
	DefaultGRPCMaxTokens  = 10.0
	DefaultGRPCTokenRatio = 0.1
)

// GRPC is gRPC's retry throttling, from gRFC A6 "gRPC Retry Design" (grpc/proposal,
// A6-client-retries.md, "Throttling Retry Attempts and Hedged RPCs"), configured per server
// name by the service config's retryThrottling {maxTokens, tokenRatio}:
//
//   - the client keeps token_count, initially maxTokens, always between 0 and maxTokens;
//   - every failed RPC decrements it by 1, every successful RPC increments it by tokenRatio;
//   - while token_count is less than or equal to maxTokens/2, RPCs are not retried; they
//     are again once it rises above. First tries always go.
//
// grpc-go implements this in retryThrottler (clientconn.go), called from shouldRetry
// (stream.go): throttle() runs when an attempt fails with a retryable status, decrements the
// count (floored at 0) and refuses the retry if the result is ≤ maxTokens/2; successfulRPC()
// adds tokenRatio (capped at maxTokens) when a call finishes successfully. The failure is
// counted before the check, and even when the retry would not happen anyway because
// maxAttempts is reached. Here Record does the counting (every failed attempt −1, every
// success +tokenRatio) and Allow the check (tokens > maxTokens/2), so the retry after a
// failure sees that failure counted.
//
// What counts as a failure: A6 counts only RPCs that fail with a status code listed as
// retryable (or non-fatal, for hedging), or whose server pushback says not to retry; malformed
// requests such as INVALID_ARGUMENT do not count. Here every attempt that did not succeed is a
// failure the caller would retry, so both Failure and Timeout count. gRPC itself has no
// per-attempt timeout (its deadline covers all attempts, and an RPC past its deadline fails
// with no retry: gRFC A44); counting a Timeout as a retryable failure is what a client with a
// per-attempt timeout needs for the throttle to see a service that stopped answering.
//
// A6 also caps maxAttempts at 5 (4 retries) and requires maxTokens in (0, 1000] and
// tokenRatio > 0 (decimals beyond the third ignored); those are the caller's to enforce. With
// the example values, 5 failed attempts with no success in between take a full count to 5 and
// stop retries. Since a failure takes 1 and a success gives tokenRatio, the count drifts down
// to 0 whenever failures exceed tokenRatio times the successes (A6: throttling "when the
// client's ratio of failures to successes exceeds ~10%"), and up to maxTokens otherwise: the
// throttle is close to a switch.
//
// It takes nothing in Allow (cost 0) and draws no random numbers. Like every [Policy] it is one
// client's state (a channel's, in gRPC), not safe for concurrent use.
type GRPC struct {
	tokens, max, threshold, ratio float64
}

// NewGRPC returns gRPC retry throttling with the given maxTokens and tokenRatio, starting at
// maxTokens. A negative or NaN value counts as 0 (maxTokens 0 never retries).
func NewGRPC(maxTokens, tokenRatio float64) *GRPC {
	m := finiteNonNegative(maxTokens)
	return &GRPC{tokens: m, max: m, threshold: m / 2, ratio: finiteNonNegative(tokenRatio)}
}

// DefaultGRPC returns gRPC retry throttling with A6's example values, maxTokens 10 and
// tokenRatio 0.1.
func DefaultGRPC() *GRPC { return NewGRPC(DefaultGRPCMaxTokens, DefaultGRPCTokenRatio) }

// Allow lets a first try go, and a retry while the token count is above maxTokens/2. cost is
// always 0.
func (g *GRPC) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	return 0, attempt <= 0 || g.tokens > g.threshold
}

// Record adds tokenRatio for a success (capped at maxTokens) and takes 1 for a failed attempt
// (floored at 0).
func (g *GRPC) Record(now int64, attempt int, o Outcome, cost int) {
	if o.failed() {
		g.tokens = max(g.tokens-1, 0)
		return
	}
	g.tokens = min(g.tokens+g.ratio, g.max)
}

// Tokens returns token_count.
func (g *GRPC) Tokens() float64 { return g.tokens }

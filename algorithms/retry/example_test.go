package retry_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/algorithms/retry"
)

// errRefused is returned when the policy refuses a request's first try.
var errRefused = errors.New("refused locally")

// do runs op with up to maxRetries retries: the backoff sequence spaces the attempts, the
// policy decides whether each one may go, and the clock is time.Since(start).
func do(ctx context.Context, p retry.Policy, seq *backoff.Sequence, start time.Time, maxRetries int,
	op func(context.Context) error) (attempts int, err error) {
	now := func() int64 { return int64(time.Since(start)) }
	seq.Reset()
	prev := retry.Success
	for k := 0; k <= maxRetries; k++ {
		if k > 0 {
			t := time.NewTimer(seq.Next())
			select {
			case <-ctx.Done():
				t.Stop()
				return attempts, ctx.Err()
			case <-t.C:
			}
		}
		cost, ok := p.Allow(now(), k, prev)
		if !ok {
			if k == 0 {
				return 0, errRefused
			}
			return attempts, err // the last failure
		}
		attempts++
		err = op(ctx)
		o := retry.Success
		switch {
		case errors.Is(err, context.DeadlineExceeded):
			o = retry.Timeout
		case err != nil:
			o = retry.Failure
		}
		p.Record(now(), k, o, cost)
		if o == retry.Success {
			return attempts, nil
		}
		prev = o
	}
	return attempts, err
}

// Example retries calls to a dependency that stops answering, with capped full jitter between
// attempts (package backoff) and gRPC's retry throttling (A6's example values, maxTokens 10 and
// tokenRatio 0.1) deciding whether each retry may go. The first request spends four attempts;
// from then on, with the count at maxTokens/2, failing requests get no retry, so the
// dependency sees about one attempt per request instead of four until it recovers. Real code
// would usually leave the sequence's Rand nil; the seeded source makes the run reproducible
// (only the policy's decisions are printed, and they do not depend on the sleeps).
func Example() {
	start := time.Now()
	policy := retry.DefaultGRPC()
	seq := &backoff.Sequence{
		Policy: backoff.FullJitter{Base: 100 * time.Microsecond, Cap: 2 * time.Millisecond},
		Rand:   rand.New(rand.NewPCG(1, 2)),
	}
	healthy := false
	dependency := func(context.Context) error {
		if healthy {
			return nil
		}
		return errors.New("503 service unavailable")
	}

	ctx := context.Background()
	for i := 1; i <= 5; i++ {
		if i == 4 {
			healthy = true
		}
		attempts, err := do(ctx, policy, seq, start, 3, dependency)
		fmt.Printf("request %d: attempts %d, err %v, tokens %.1f\n", i, attempts, err, policy.Tokens())
	}
	// Output:
	// request 1: attempts 4, err 503 service unavailable, tokens 6.0
	// request 2: attempts 1, err 503 service unavailable, tokens 5.0
	// request 3: attempts 1, err 503 service unavailable, tokens 4.0
	// request 4: attempts 1, err <nil>, tokens 4.1
	// request 5: attempts 1, err <nil>, tokens 4.2
}

// ExampleNewAWS shows the AWS SDKs' standard retry quota draining while a dependency fails:
// 5 tokens per retry from 500, so with 2 retries per request it refuses retries from the 51st
// failing request on.
func ExampleNewAWS() {
	quota := retry.NewAWS(retry.DefaultAWSConfig)
	failing := []retry.Outcome{retry.Failure, retry.Failure, retry.Failure}
	for i := 1; i <= 52; i++ {
		sent := 0
		prev := retry.Success
		for k := 0; k <= 2; k++ {
			cost, ok := quota.Allow(0, k, prev)
			if !ok {
				break
			}
			sent++
			quota.Record(0, k, failing[k], cost)
			prev = failing[k]
		}
		if i == 1 || i >= 50 {
			fmt.Printf("request %d: attempts %d, tokens left %d\n", i, sent, quota.Tokens())
		}
	}
	// Output:
	// request 1: attempts 3, tokens left 490
	// request 50: attempts 3, tokens left 0
	// request 51: attempts 1, tokens left 0
	// request 52: attempts 1, tokens left 0
}

package retry

// Retries lets every attempt go: the caller's bound N on retries per request is the only limit.
// It keeps no state, takes nothing and draws no random numbers.
//
// With independent failures at rate x, N retries per request send Σ x^k attempts per request
// for k = 0..N (1 + N when everything fails) and succeed with probability 1 − x^(N+1): at
// x = 0.5 and N = 3, 1.875 attempts and 93.75%. It is the "three_retries" strategy of Marc
// Brooker's "Fixing retries with token buckets and circuit breakers" (2022), NRetriesFactory(3)
// in mbrooker/simulator_example (retry_sim/retry_strategy.py), whose run he reports as 1.88× and
// 93.5%.
type Retries struct{}

// Allow lets every attempt go; cost is 0.
func (Retries) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	return 0, true
}

// Record does nothing.
func (Retries) Record(now int64, attempt int, o Outcome, cost int) {}

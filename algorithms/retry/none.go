package retry

// None never retries: every first try goes, every retry is refused. It keeps no state, takes
// nothing and draws no random numbers.
//
// It is the baseline of Marc Brooker's comparison in "Fixing retries with token buckets and
// circuit breakers" (2022): NRetriesFactory(0), "no_retries", in his simulator
// mbrooker/simulator_example (retry_sim/retry_sim.py).
type None struct{}

// Allow lets every first try go and refuses every retry; cost is 0.
func (None) Allow(now int64, attempt int, prev Outcome) (cost int, ok bool) {
	return 0, attempt <= 0
}

// Record does nothing.
func (None) Record(now int64, attempt int, o Outcome, cost int) {}

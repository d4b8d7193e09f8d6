// Package backoff is the playground's backoff-and-jitter lab: N clients race to update one row
// under optimistic concurrency, retrying with the policies of package algorithms/backoff, as
// in Marc Brooker's "Exponential Backoff and Jitter" (AWS Architecture Blog, 2015), whose
// simulator World reproduces with one event per write attempt (see World). It shows that
// without jitter retries stay in lockstep and clients keep colliding, and that full, equal and
// decorrelated jitter cut the work (write attempts) several times over, beside the retry
// schedule t(n) = min(cap, a·r^(n−1)) and the relation t(n+1) = a + (r−1)·T(n) between a
// sleep and the time elapsed.
//
// # Runs
//
// A run computes the chosen client count (summary.strategies, the writes-over-time histograms)
// and every point of the sweep (the work and completion charts) in growing batches of trials
// (1, 3, 10, 30, 100, 300, then all), each batch replacing what the one before showed, so the
// first complete picture comes from one trial; the last batch's numbers are the result the URL
// defines. Every strategy sees the same network in every trial (common random numbers). A lab
// value keeps finished points (memo.go), the cost model's pilots and its grown worlds.
//
// # Cost
//
// A run's work is counted as it runs, in the units of the server's budget (World.Work: one
// unit per write attempt, the event queue's own work beyond that, one per client set up, half
// more per attempt when a sleep takes a power), some 30–90 ns of CPU each on the reference
// machine (BenchmarkWorkUnit). Cost estimates it from pilot simulations at 1 to 128 clients,
// interpolated on log-log axes (see cost.go): within 2× of the count over a grid of every
// slider's extremes, lockstep networks included (TestCostWithinTwice, worst ×1.25). Memory
// stays under a few tens of megabytes whatever the parameters (Memory). The budget's error
// names trials (then clients, sweep, strategies) and a value that fits.
package backoff

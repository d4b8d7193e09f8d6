// Package ratelimit holds rate limiters: rules that decide, call by call,
// whether a client may do one more thing now or must be refused because it
// has done too much recently. They are plain in-process Go values for
// ordinary server code, and they are the limiters the playground's
// rate-limiter lab simulates side by side, in process and on simulated
// shared stores.
//
// # Algorithms
//
// The set of algorithms follows Jean-Baptiste Muscat, "Distributed
// Rate-Limiting Algorithms", Criteo R&D Blog, February 2022
// (https://medium.com/criteo-engineering/distributed-rate-limiting-algorithms-a35f7e24783),
// also available in a Japanese translation,
// "分散フロー制御アルゴリズムを5分で理解する", plus the two classic relatives
// of the token bucket (the leaky bucket as a meter, and GCRA). One file per
// algorithm; each rule's documentation says how it works, its memory per
// key, its store operations per request, what burst means for it, and what
// its estimate is.
//
//	algorithm                   rule                 state per key               store needs
//	fixed window                FixedWindowRule      start, count: 16 B          INCR
//	sliding window, k sub-wins  SlidingWindowRule    k+1 counts, sum: ≤ 260 B    INCR + k reads
//	sliding log                 SlidingLogRule       ≤ Count times, 8 B each     atomic script
//	token bucket                TokenBucketRule      deficit, last: 16 B         atomic script or CAS
//	leaky bucket as a meter     LeakyMeterRule       level, last: 16 B           atomic script or CAS
//	leaky bucket as a queue     LeakyQueueRule       drained time: 8 B           atomic script or CAS
//	GCRA                        GCRARule             TAT: 8 B                    atomic script or CAS
//
// The fixed window lets up to twice the limit through across a boundary (a
// full limit at 07:09:59 and another at 07:10:00). The sliding log is exact
// but its memory and work grow with the limit. The sliding window
// approximation adds the previous window's count weighted by the part of
// it still inside the sliding window (at 00:01:43 with one-minute windows,
// 17/60 of minute 00:00), and gets closer to exact as it cuts the window
// into more sub-windows, at the price of more counters. The token bucket,
// the leaky bucket as a meter, the leaky bucket as a queue and GCRA admit
// exactly the same requests at the same rate and capacity, as long as time
// never goes backwards; they differ in what they store (two values or
// one) and in what they do with an admitted request (the queue delays it so
// that requests leave at a constant rate).
//
// # Limits, bursts and fair comparison
//
// A [Limit] is a count per duration, such as 100 per minute. For the window
// algorithms it is the window and the most requests it admits. For the
// bucket family it is the rate; their second parameter, burst or capacity,
// is the most requests admitted at one instant from rest, as in
// golang.org/x/time/rate, where a bucket of burst b admits b requests at
// once. (GCRA libraries often count one less: a "burst tolerance"
// τ = (burst-1)·T, or redis-cell's max_burst = burst-1. Here every
// algorithm admits burst, or Count, requests at once from rest.) A fair
// comparison at the same Limit therefore gives the bucket family
// burst = Count: every algorithm then admits Count requests at one instant
// from rest and Count per window in the long run. They differ in the
// worst window: up to 2·Count for the fixed window at a boundary and for a
// full token bucket under sustained overload (its burst plus a window of
// refill), Count for the sliding log.
//
// The bucket family works with the emission interval T = [Limit.Interval],
// Per/Count rounded up to a whole nanosecond (exact for 100 per minute:
// 600ms; never faster than the limit). Decisions are computed in int64
// nanoseconds and integer counts, without floating point, so they are the
// same on every platform, bit for bit; only the estimates are float64 (and
// [NewTokenBucket] turns its float64 rate into an interval once).
//
// # Rules and states: one decision, many stores
//
// Each algorithm is split into an immutable rule and a per-key state. The
// rule's methods are pure functions of a state value (see [Rule]):
//
//	Decide(s S, now int64, n int) (next S, ok bool)  // admit n at now?
//	Update(s *S, now int64, n int) bool              // the same, in place
//	Estimate(s S, now int64) float64                 // requests in the last window, as the algorithm sees them
//	Counters() (Counters, error)                     // the increment-only formulation, or why there is none
//
// States are small fixed-size comparable values (the sliding log's is the
// exception: a ring of times), allocate nothing, and their zero value is
// the state of a key never seen, which is what a store returns for a
// missing key. Times are int64 nanoseconds: since the Unix epoch for real
// clocks, or since the start of a simulation; windows are aligned to
// multiples of their length since time zero. A refused request returns the
// state it was given, so a caller need not write anything back; a request
// of n <= 0 is admitted and changes nothing; a time before the state's
// clock is treated as no time passing (see each rule for the one-value
// states, which keep no clock).
//
// The in-process limiters ([FixedWindow], [SlidingWindow], [SlidingLog],
// [TokenBucket], [LeakyMeter], [LeakyQueue], [GCRA]) are each a rule and
// one state behind a mutex: lock, Update, unlock. They implement
// [Limiter], with AllowN(now, n) taking the time from the caller and Allow
// using [time.Now], as golang.org/x/time/rate does.
//
// A store simulation, or a real store, applies the same rule with its own
// semantics:
//
//   - Atomic script (Redis with Lua): the store runs
//     store[key], ok = rule.Decide(store[key], now, n) as one step. Every
//     rule runs this way and admits exactly what the in-process limiter
//     admits.
//   - Atomic increments only (Memcached): rule.Counters() gives, for the
//     fixed window and the sliding window, which counter to INCR
//     ([Counters.Index]), how many earlier counters to read
//     ([Counters.Previous]) and how to decide from the counts
//     ([Counters.Admit]); the other rules return an error wrapping
//     [ErrNeedsAtomicUpdate]. INCR-then-check also counts refused
//     requests unless the caller DECRs after a refusal; [Counters]
//     documents the choice.
//   - Read then write, not atomic: an instance reads the state, calls
//     Decide on its copy and writes next back later (only if ok). Two
//     instances that read the same state both decide on it and the last
//     write wins: the limiter over-admits. Decide never modifies the
//     state it is given (the sliding log copies before appending), so
//     both copies stay valid.
//   - Compare-and-swap with retries: the store holds a [Versioned] state;
//     an instance decides on what it read and swaps in
//     Versioned{next, Version+1} only if the version has not moved,
//     otherwise it reads again and decides again.
//   - Asynchronous propagation with lag: each instance decides on its own
//     copy and sends rule.Delta(now, n) for each admission; the others
//     fold it in with rule.Merge when it arrives. The counter rules and
//     the sliding log implement [Merger]; the bucket family does not
//     (its state is not a sum of per-request parts).
//   - Local only: each instance keeps its own state and calls Decide on
//     it; N instances admit up to N times the limit.
//
// store_test.go builds a toy version of each on two instances and virtual
// time, and checks that the atomic script and compare-and-swap admit the
// limit exactly while read-then-write and local state admit twice as much.
//
// # Estimates
//
// The lab plots each algorithm's own estimate of the requests in the last
// window against the exact count: the fixed window's current count (it
// drops to zero at every boundary), the sliding window's weighted sum, the
// sliding log's exact count, the token bucket's capacity minus tokens (the
// tokens in use, decaying at the refill rate), the meter's level, the
// queue's backlog in requests, and GCRA's (TAT - now)/T; the last four are
// equal.
//
// # Speed
//
// Every in-process limiter's AllowN is faster than golang.org/x/time/rate's
// (*Limiter).AllowN and allocates nothing; bench_test.go runs them side by
// side and records the measured ratios.
package ratelimit

// Package ratelimit is the rate-limiter lab: every classic algorithm of
// algorithms/ratelimit fed the same random traffic, each measured against
// the exact answer, alone and distributed over several API instances that
// share a store.
//
// It follows Jean-Baptiste Muscat's "Distributed Rate-Limiting Algorithms"
// on Criteo's engineering blog (also translated into Japanese as
// "分散フロー制御アルゴリズムを5分で理解する"): the post plots, under the same
// random traffic, the count of the "perfect" sliding window (a grey line)
// against the count each algorithm works with (here in the algorithm's own
// colour and dash), and explains why
// the store — Redis with atomic scripts, or Memcached with only atomic
// increments — decides which algorithm one can build. The lab draws those
// charts for every algorithm at once and counts, request by request, what
// each admitted that the exact sliding window would have refused.
//
// # The simulation
//
// Requests of one client arrive over duration (traffic: Poisson, on/off
// bursts, the post's boundary case of a full limit just before a window
// boundary and another just after, or a linear ramp), at load times the
// limit on average. Every algorithm sees the same arrivals. A load balancer
// (round robin, random, or sticky with a scale-out event halfway) sends
// each request to one of instances API instances, whose clocks are skewed
// by up to skew; the instances keep the client's state in a store whose
// round trip takes store_latency, with one of six semantics:
//
//   - atomic: a script runs read, decide and write as one step at the store
//     (Redis with Lua); the decisions are those of one in-process limiter.
//   - incr: atomic increments only (Memcached): the window algorithms INCR
//     the current counter, read the earlier ones in the same round trip,
//     decide, and DECR after a refusal; the others, which need an atomic
//     read-modify-write, fall back to GET then SET (summary store
//     "get_set").
//   - racy: GET, decide, SET: requests whose round trips overlap decide on
//     the same state and the last write wins.
//   - cas: GET, decide, compare-and-swap on a version; a failed swap reads
//     again (at most 8 attempts, then the request is refused). A retry
//     decides with its own clock, so the exact window counts the request
//     when its deciding attempt left the instance, not when it arrived:
//     counted by arrival, the serialised decisions of an exact limiter
//     would seem to over-admit.
//   - async: each instance decides on its own copy and sends what it
//     admitted to the others, who merge it after store_latency (the post's
//     Kafka idea); algorithms whose state cannot be merged (the bucket
//     family) stay local.
//   - local: each instance counts alone (the post's sticky sessions).
//
// # Results
//
// Every algorithm is measured against the exact sliding window of its own
// admitted requests, counted when they reach the service: at their arrival
// (or, for a compare-and-swap retry, when the deciding attempt left the
// instance), and for the leaky bucket as a queue when the queue lets them
// out, so that its smoothing shows.
//
// summary.algorithms.<name> (see [AlgorithmSummary]) holds what each
// algorithm admitted and rejected, how many it admitted while its own
// admitted requests already filled the exact sliding window ending at that
// request (over_admitted: a count of moments, not an excess) and how many it
// wrongly rejected (refused although that window had room), the most
// admitted requests in any window of the limit's length (also as × limit),
// the excess over the limit × time (the area between the exact count and
// the limit where it is above, and the share of time it is), its
// estimate's mean error against the exact count (over 4,000 instants spread over every phase
// of the window, not the chart's evenly spaced samples, which can line up with it), its
// state per key and its store operations per request (and the leaky queue's
// mean wait). summary.offered is the number of requests that arrived,
// summary.limit and summary.window_ms the limit. The series are, per
// algorithm, the exact sliding-window count of its admitted requests ("exact
// <name>", a neutral reference) and its own estimate ("estimate <name>",
// in the algorithm's style) at 1001 instants from 0 to the duration (chart "count", one panel
// per algorithm with the limit in each), and its admitted rate in 120 bins
// ("admitted <name>") beside the offered rate ("offered"; chart "rate").
//
// Two sweeps, off by default, run extra worlds on the same requests (sweep.go, latency.go):
// sweep, the sliding-window approximation for each number of sub-windows
// (summary.subwindow_sweep), and latency_sweep, the first algorithm on every store whose
// decisions wait on a round trip (incr, racy, cas, async) at each store latency and at the
// chosen one (summary.latency_sweep, chart "latency_admitted" with the compare-and-swap ceiling
// of one admission per round trip), with instances_sweep an asynchronous-propagation line per
// number of instances. summary.cas_ceiling says, for compare-and-swap at the
// chosen latency, how close the admitted rate is to that ceiling and whether the round trips
// bind rather than the limit.
//
// Runs are progressive: they simulate the duration in 40 slices of simulated
// time and send each slice's new points (appended counts, upserted rate
// bins) and the summary so far, with a refinement counting the simulated
// milliseconds done, so the first frame comes at once and the final result
// equals a one-shot run bit for bit. Algorithms run in parallel within a
// slice, each on its own state, so results do not depend on GOMAXPROCS.
// A lab value keeps each algorithm's finished result per scenario (memo.go):
// the algorithms do not affect one another, so ticking one on simulates only
// that one.
//
// # Cost
//
// A run's work is counted as it runs, in the units of the server's budget (12–80 ns of CPU each
// on the reference machine, BenchmarkWorkUnit): arrivals, decisions, store operations, sliding
// log copies and merges (see cost.go). Cost simulates a bounded prefix of the scenario and
// extrapolates it: within 2× of the count over a grid of every slider's extremes
// (TestCostWithinTwice, worst ×1.4). So the duration is bounded by work, not time: up to a
// week at a low rate. Memory estimates a run's big allocations (exact windows, pending
// requests, sliding logs in every instance), bounded per run (lab.MaxRunMemory).
package ratelimit

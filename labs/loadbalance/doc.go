// Package loadbalance is the playground's load-balancing lab: clients keep connections to a
// subset of a service's backends and pick, request by request, the backend of their subset
// that serves it. It shows what "Site Reliability Engineering: How Google Runs Production
// Systems" (Beyer, Jones, Petoff and Murphy, eds., O'Reilly, 2016), chapter 20, "Load
// Balancing in the Datacenter", teaches:
//
//   - subsetting: random subsets (300 clients, 300 backends, subsets of 30% or 10%) leave some
//     backends with far more connections than others, while deterministic subsetting gives
//     every backend the same number, or numbers that differ by one (its 12 backends, subsets
//     of 3 and 10 clients give 2 or 3 each); rendezvous hashing (gRPC) and a deterministic
//     aperture (Finagle) go beyond the book, with the churn each causes;
//   - policies: simple round robin leaves a wide gap between the most and least loaded
//     backend when query costs, machines and clients' rates differ (the chapter saw up to a
//     factor of two; the lab's policy tour measures 2.80); least-loaded round robin and
//     weighted round robin narrow it; random and the power of two choices go beyond the book;
//   - health: a lame-duck backend drains without errors where an abrupt stop fails the
//     requests it holds; a backend that fails fast sinkholes least-loaded traffic unless recent
//     errors count as active requests, and weighted round robin, which counts the errors a
//     backend reports against it, sends it less than round robin does; flow control stops a
//     client sending to a backend with too many of its requests active.
//
// The subsetting algorithms are package algorithms/subset and the policies package
// algorithms/balance; world (world.go) is the datacenter model that runs them.
//
// # Summary
//
// A run's summary holds:
//
//   - connections: {min, max, mean, sd} of connections per backend under the chosen subsetting;
//   - subsettings: a list of comparisonRow rows, every algorithm at the scenario's sizes (only the
//     chosen one above about a million clients × backends), with churn: when one backend
//     fails, and when a job is resized by one task;
//   - subsets and rounds: for at most 32 clients and 32 backends, each client's subset
//     (clientSubset) and, under deterministic subsetting, the shuffled lists (roundRow);
//   - load_pct: the mean utilisation the requests would cause if spread perfectly;
//   - load: a one-row list (loadRow): that offered load as % of capacity, whether the scenario is
//     overloaded (also summary.overloaded) and what it means;
//   - subset_sweep: per subsetting, a sweepPoint per subset size of the sweep parameter
//     (connection spread; CPU spread and p99 under sweep_policy, the first policy, for random,
//     deterministic and the chosen subsetting; see sweep.go);
//   - load_sweep: per policy, a loadPoint per offered load of the load_sweep parameter (p50,
//     p99, queueing share, errors and CPU spread at the rate that offers it; see loadsweep.go);
//   - policies: a policySummary per policy: requests, errors (and those to fail-fast
//     backends), CPU spread (min, mean, max, max/min, max/mean, p99/mean), wasted CPU, latency
//     percentiles (interpolated within 4.4%-wide buckets: TestLatencySketchBound), the share of
//     latency spent queueing for a core, and requests in flight per client;
//   - cpu ({min, max, mean}, cpuStats), wasted_cpu_pct and errors: those of the first policy
//     listed;
//   - backends: a backendRow per backend: connections, CPU under the first policy and under each.
//
// Series: "connections" (backends per connection count), per policy "cpu <policy>" (median
// utilisation per sampling interval, with view-only min and max bands), "cpu histogram
// <policy>" (backends per 2% of utilisation over the run), "errors <policy>" (failed
// requests per sampling interval) and "latency <policy>" (the share of successful requests
// faster than each latency histogram bucket's edge, exact at the edges: world.latencyCDF).
//
// # Runs
//
// A run shows the connections histogram at once (subsetting needs no traffic), then simulates
// every policy side by side, sending each new stretch of simulated time and the numbers so far
// as it goes; the simulation does not depend on how it is cut into stretches, so the last
// update's numbers are those of one uninterrupted run, at any GOMAXPROCS. All randomness comes
// from the seed, one stream per concern, and every policy sees the same subsets, machines,
// antagonists and requests (common random numbers). Policies are therefore independent of each
// other, and a lab value keeps the outcomes of the simulations it finished: ticking a policy
// on simulates that policy only.
//
// # Cost
//
// A run's work is counted as it runs, in the units of the server's budget, some 30–100 ns of
// CPU each on the reference machine (BenchmarkWorkUnit): events of the traffic simulations,
// picker scans, world set-up, requests that miss the CPU's caches, and the subsetting and churn
// of the comparison (see cost.go). The requests are known in advance, so Cost is a formula,
// within 2× of the count over a grid of every slider's extremes (TestCostWithinTwice). Memory
// estimates a run's big allocations — 4 bytes a connection for subsets, 20 per policy (68 for
// weighted round robin), requests in flight — which the server bounds per run
// (lab.MaxRunMemory): clients=3000&backends=3000&subset=1000 with five policies, which held
// some 340 MB, is refused with "lower subset to 75 or less". The budget's errors name clients
// (then duration, rate, policy, subset) for work, subset (then clients, backends, policy) for
// memory, with a value that fits.
package loadbalance

// Package retrystorm is the playground's retry-storm lab: clients retry the calls that fail or
// time out, a service of limited capacity queues the calls, and something goes wrong for a
// while — an outage, a capacity drop, a load spike. Retries that help when failures are rare
// can then keep the service overloaded long after what set them off is gone: a metastable
// failure (Bronson, Aghayev, Charapko and Zhu, "Metastable Failures in Distributed Systems",
// HotOS 2021; Huang et al., "Metastable Failures in the Wild", OSDI 2022, where retries are
// the sustaining effect of over half the failures studied). The lab compares, side by side on
// the same arrivals, the retry policies of package algorithms/retry: none, N retries, Marc
// Brooker's retry token bucket and retry-only breaker ("Fixing retries with token buckets and
// circuit breakers", 2022), gRPC's retry throttling (gRFC A6), the AWS SDKs' retry quota,
// Finagle's retry budget, resilience4j's circuit breaker and the client-side throttling of
// "Site Reliability Engineering", chapter 21.
//
// It reproduces, in its tests and tours:
//
//   - with independent failures at rate x, N retries make 1 + x + … + x^N calls per request and
//     succeed with 1 − x^(N+1) (Brooker's post writes x^N; it is x^(N+1)): 1.875 calls and
//     93.75% at x = 0.5, N = 3, where his simulator (mbrooker/simulator_example, retry_sim)
//     gives 1.88× and 93.5%; his bucket gives 1.14× and his breaker 1.00×;
//   - with 10, 100 and 1,000 clients at 100 requests a second in all, his bucket gives 1.14,
//     1.51 and 1.82× here, 1.14, 1.45 and 1.87× in his simulator, whose clients each send a
//     first request at the start (here the arrivals are Poisson from the start);
//   - retries at each of three layers multiply: (N+1)^3 = 64 calls at N = 3 (SRE book,
//     chapter 22);
//   - his collapse simulator (simple_collapse_sim): a latency of 1 s + 0.01 s per call in
//     flight, a 3-s timeout, three attempts, a spike from 40 to 80 requests a second for 5 s:
//     without backoff the service stays collapsed in most runs (6 of his 10, 16 of this lab's
//     first 20 seeds), with backoff and jitter, or a retry budget, it recovers in every one.
//
// # The model
//
// Clients send requests as Poisson arrivals (the rate is for all of them together). A
// request's attempt travels to its callee (exponential network delays each way); with layers,
// each tier between the client and the service is a caller of its own, with its own policy,
// that serves a call by making a request of its own. The service is either a queue served in
// order by capacity × service time workers, each call an exponential service time, or Marc
// Brooker's model, where a call's latency is fixed as it arrives: the service time plus the
// calls in flight divided by the capacity. A caller that has no answer within the timeout
// counts the attempt as failed; the service still works on the call (unless it sheds: calls
// past their caller's deadline, or beyond a queue limit, are refused at once). An outage fails
// a share of the calls as they complete, whatever the load; a capacity drop slows the service;
// a spike multiplies the arrival rate. A failed attempt is retried, if the request has
// retries left (N) and its policy lets it, after a backoff sleep (the backoff lab's policies).
// The token buckets and budgets decide as the attempt fails, as their sources do; the breakers
// and throttling when the retry is due. Requests stop arriving at the duration; every request
// then runs to its end.
//
// Every policy sees the same arrivals and, attempt by attempt, the same network delays,
// service times and failures: an attempt's draws come from a stream of its own, keyed by its
// request and attempt number (common random numbers).
//
// # Summary
//
// A run's summary holds:
//
//   - policies: a PolicySummary per policy: amplification (calls at the service per request),
//     success (0 to 1) and success_pct, recovery_s (seconds from the trigger's end until the
//     goodput is back within 5% of its level before the trigger for good, null when it never
//     is), state and verdict (recovered, metastable, recovering, overloaded, during,
//     no_trigger), the counts (requests, succeeded, refused, attempts, retries, timeouts,
//     errors, denied, shed), wasted_pct, latency_p50_ms and latency_p99_ms of the requests that
//     succeeded, max_in_flight and end_load_pct;
//   - load: one row, normal_pct (the new requests as a share of the capacity), storm_pct (with
//     every retry) and a verdict;
//   - trigger_end_s, when there is a trigger;
//   - sweep: with the failure sweep, per policy, rows of failure_pct, amplification and
//     success_pct; client_sweep: with the client sweep, per policy, rows of clients,
//     amplification, success_pct, recovery_s and state.
//
// The series are, per policy, the calls at the service and the requests that succeed per
// second (chart load, with the capacity), the share of the requests ending that succeed
// (success), calls per new request (amplification), the calls at the service (in_flight), the
// mean latency of the requests that succeed (latency), all per sampling interval; and the
// sweeps' points (sweep_amp, sweep_success with the theory, clients_amp, clients_success).
package retrystorm

// Package retry holds retry policies: rules that decide, for one client, which attempts of its
// requests are sent, so that retries that help when failures are rare do not multiply the load
// on a service that is already failing. They are plain Go values for ordinary client code, and
// they are the policies the playground's retry-storm lab simulates side by side.
//
// A [Policy] is consulted before each attempt (Allow) and told how each attempt it let through
// ended (Record). It does not bound the number of retries per request, which is the caller's N,
// nor sleep between attempts, which is a backoff.Policy's job (package algorithms/backoff); it
// only decides whether an attempt may go now. Time is the caller's: int64 nanoseconds on a
// clock that never goes backwards, a simulation's clock or time.Since(start), as in
// golang.org/x/time/rate's caller-supplied-time calls.
//
// # Policies
//
// One file per policy; each type's documentation gives its source, the rules read from the
// source's code, and its project's documented defaults.
//
//	policy    type      source                                                defaults
//	none      None      first tries only                                      —
//	retries   Retries   every retry, up to the caller's N                     —
//	adaptive  Adaptive  Marc Brooker, "Fixing retries with token buckets      deposit 0.1 per request, capacity 5,
//	                    and circuit breakers" (2022); his simulator's         starts full; retry if tokens > 1,
//	                    AdaptiveRetryFactory(0.1, 5)                          a retry takes 1
//	grpc      GRPC      gRPC retry throttling, gRFC A6                        maxTokens 10, tokenRatio 0.1 (A6's example;
//	                                                                          no default); no retry while tokens ≤ 5
//	aws       AWS       AWS SDK standard retry mode quota (aws-sdk-go-v2)     500 tokens, retry 5, after a timeout 10,
//	                                                                          success +1, a successful retry's cost back
//	budget    Budget    Finagle's RetryBudget (as Linkerd's); Envoy's         ttl 10 s, 10 retries/s + 20% of requests
//	                    retry_budget and the SRE book's 10% are the same idea
//	breaker   Breaker   Brooker (2022), retry-only circuit breaker;           threshold 0.1 failed attempts per request,
//	                    CircuitBreakerRetryFactory(NRetriesFactory(3), 0.1)   cumulative, first tries always go
//	circuit   Circuit   resilience4j CircuitBreaker                           50% of the last 100 calls, open 60 s,
//	                                                                          10 calls half-open; refuses first tries
//	throttle  Throttle  Google SRE book, ch. 21, client-side throttling       reject with max(0, (req − 2·acc)/(req + 1))
//	                                                                          over 2 minutes; first tries too
//
// [AWS2026Config] holds the quota of the AWS SDKs' 2026 retry behaviour (a retry takes 14),
// aws-sdk-go-v2's default since v1.48.0; [DefaultAWSConfig] is the standard mode's long-standing
// quota above.
//
// # Calling a policy
//
// For each request, the caller calls Allow(now, 0, _) before the first try and, after each
// failed attempt k−1 for k up to its N, Allow(now, k, outcome of attempt k−1) before retry k;
// after each attempt Allow let through, Record(now, k, outcome, cost) with the cost Allow
// returned. A refused retry ends the request with its last failure; a refused first try (only
// [Circuit] and [Throttle] refuse those) fails the request without a call. Failure and Timeout
// are both failed attempts; only [AWS] tells them apart (a retry after a timeout costs more).
//
// Brooker's simulator (bucket and breaker), gRPC, the AWS SDKs and Finagle decide whether to
// retry at the moment an attempt fails, before the backoff sleep; resilience4j's circuit
// breaker and the SRE book's throttle decide when an attempt is about to be sent. Allow decides when it is called: a
// simulation that calls it when the retry is due (after the sleep) lets other requests' outcomes
// that arrive during the sleep count; with no backoff the two orders coincide.
//
// # Random draws
//
// Only [Throttle] draws random numbers: exactly one [Rand.Float64] per Allow call, whatever its
// state, the attempt or the rejection probability (even 0); Record draws none. Every other
// policy draws none. The number of draws never depends on the parameters or on the values
// drawn, so a simulation that gives each client one stream of draws for its policy compares
// policies on common random numbers, attempt for attempt.
//
// # Concurrency and memory
//
// A policy is one client's state, like a client's state in a simulation: it is for one
// goroutine and not safe for concurrent use; real code that shares one between goroutines
// guards it with a mutex. [None] and [Retries] are stateless values. [Budget] and [Throttle]
// count over sliding windows kept as rings of time slices (10 and 120 slices), so their memory
// is fixed whatever the request rate; [Circuit] keeps one bool per call of its window. No
// policy allocates after its constructor.
package retry

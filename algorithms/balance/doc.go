// Package balance holds load-balancing policies: each picks, request by
// request, which backend of a client's subset serves the request. They are
// plain Go values for real clients, and the policies the playground's
// load-balancing lab compares.
//
// # Source
//
// The policies follow "Site Reliability Engineering: How Google Runs
// Production Systems" (Betsy Beyer, Chris Jones, Jennifer Petoff and Niall
// Richard Murphy, eds., O'Reilly, 2016), chapter 20, "Load Balancing in the
// Datacenter", section "Load Balancing Policies":
//
//   - [RoundRobin], simple round robin over the backends that accept
//     requests, which the chapter found leaves up to a factor of two
//     between the most and least loaded backend;
//   - [LeastLoaded], least-loaded round robin: round robin among the
//     backends with the fewest active requests from this client, with the
//     chapter's fix for sinkholing (count recent errors as active requests)
//     as an option;
//   - [Weighted], weighted round robin: shares proportional to a capability
//     score computed from the load backends report, with errors counted
//     against it, even from a backend that fails without using any CPU.
//
// Two policies go beyond the book: [Random], the baseline, and
// [TwoChoices], the power of two choices on active requests (Mitzenmacher;
// used by Finagle's p2c balancers and Envoy's least_request policy). [Weighted] takes its
// weight formula from gRPC's weighted_round_robin policy (gRFC A58) and its
// pick order from nginx's smooth weighted round robin.
//
// # Signals
//
// A picker reads the signals it needs from a [View] of the client's subset,
// indexed by position in the subset: whether each backend is available
// (not refusing connections, not in lame duck state, not held back by the
// client's flow control), its active requests from this client, the errors
// this client recently got from it, and the load it last reported ([Report]:
// queries and errors per second, utilisation). A simulation implements View
// over its own state; [Table] implements it with slices. Pickers never
// change the View: after a pick the caller counts the request as active,
// and when it completes, as done or as an error.
//
// # Cost and determinism
//
// Every picker implements [Picker]. A pick costs at most a few reads of the
// View per backend of the subset ([Random] and [TwoChoices] usually read
// one or two backends only) and allocates nothing once the picker's state
// has grown to the subset size. Pickers keep state between
// picks, so each client needs its own, and none is safe for concurrent use.
// Random choices draw from a caller-supplied math/rand/v2 source through a
// bounded-integer method written here, so a seeded source gives the same
// picks on every platform and Go release.
package balance

// Package subset holds subsetting algorithms: each decides which few of a
// service's backends one client keeps connections to, so that neither a
// client nor a backend has to hold a connection to everyone. They are plain
// Go values for real clients, and the algorithms the playground's
// load-balancing lab compares.
//
// # Source
//
// The problem and the first two algorithms come from "Site Reliability
// Engineering: How Google Runs Production Systems" (Betsy Beyer, Chris
// Jones, Jennifer Petoff and Niall Richard Murphy, eds., O'Reilly, 2016),
// chapter 20, "Load Balancing in the Datacenter", section "Limiting the
// Connections Pool with Subsetting":
//
//   - [Random]: every client shuffles the backend list and takes the first
//     size healthy backends. The chapter's figures, 300 clients and 300
//     backends with subsets of 30% and 10%, show how unevenly connections
//     fall, the more so the smaller the subset; it estimates that a 75%
//     subset is needed for a fairly even spread.
//   - [Deterministic]: clients are grouped into rounds of backends/size
//     clients; round r shuffles the backend list with a shuffle seeded by r
//     and the client at position p of its round takes the shuffled backends
//     [p·size, (p+1)·size). With 300 clients each taking 10 of 300
//     backends, every backend gets exactly 10 connections; with 12 backends,
//     subsets of 3 and 10 clients, every backend gets 2 or 3.
//
// The chapter says that when backends is not a multiple of size, subset
// sizes and per-backend connection counts still differ by at most one. Its
// code does not keep that promise: each round leaves backends mod size
// backends unused, at random, and the shortfalls add up. [Deterministic]
// keeps it for every combination of clients, backends and size by reading
// the rounds' shuffled lists as one stream; its documentation gives the
// construction and the argument.
//
// Two algorithms go beyond the book:
//
//   - [Rendezvous] is rendezvous (highest-random-weight) hashing, as gRPC's
//     random_subsetting policy uses it (gRFC A68): balance like random
//     subsetting, but a backend joining or leaving changes each client's
//     subset by at most one backend.
//   - [Aperture] is deterministic aperture in the manner of Twitter's
//     Finagle: clients and backends share a ring, each client connects to
//     the backends under an arc of the ring and weights the two partly
//     covered ones; load is exactly even and connection counts differ by at
//     most one.
//
// # Using the package
//
// Every algorithm implements [Algorithm]: Subset(dst, client, clients,
// backends, size) returns the indices of the backends client connects to,
// appended to dst[:0]. Backends are positions in a list all clients agree
// on; clients are numbered 0 to clients−1, as the tasks of a job are.
// [Connections] counts the connections per backend for all clients,
// [Summarize] gives their minimum, maximum, mean and standard deviation, and
// [MeasureChurn] counts the connections that open and close when a job is
// resized by one client or backend, or when one backend fails.
//
// Results depend only on the arguments and the algorithm's Seed: the
// shuffles draw from math/rand/v2's PCG through a bounded-integer method
// written here, so the same seed gives the same subsets on every platform
// and Go release. None of the algorithms allocates once its scratch space
// and dst have grown to size. [Random] and [Deterministic] keep scratch
// space between calls and are not safe for concurrent use; [Rendezvous]
// and [Aperture] are stateless values.
//
// What subsetting does not decide is which backend of the subset serves a
// request: that is the load-balancing policy, in package
// github.com/resilience-playground/playground/algorithms/balance.
package subset

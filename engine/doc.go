// Package engine is the deterministic discrete-event simulation kernel every lab of the
// playground runs on. It knows nothing of HTTP and nothing of the algorithms being studied.
//
// It offers four small pieces:
//
//   - [Loop], a calendar queue of events on a virtual clock. Events at the same instant are
//     delivered in the order they were scheduled, so a run is a pure function of its inputs.
//     Scheduling and delivering an event never allocates once the queue has grown to its
//     working size, and costs a bounded amount of work however the events are spread in time
//     (the queue adapts its resolution), which [Loop.Work] counts: a world's count of work
//     follows its computing.
//   - [Source], a small, fast SplitMix64 generator with a ziggurat [Source.Normal] (and
//     [Source.Normals], several draws for the price of one call) and [Source.Float64], and
//     [Seed], [Seeder] and [NewStream], random streams derived from the scenario's seed, one
//     stream per
//     [Concern] (network delays, jitter draws, traffic arrivals, query costs) and per key
//     (trial, client, ...), so that changing one knob does not reshuffle unrelated randomness
//     and strategies compared in one run see the same environment draws (common random
//     numbers).
//   - [Trials], which runs independent trials on a fixed number of workers and stores each
//     trial's result at its own index, so that results never depend on GOMAXPROCS or on
//     goroutine scheduling.
//   - [Histogram], an exact, bounded-memory histogram of event times whose bin width doubles
//     as the time range grows.
package engine

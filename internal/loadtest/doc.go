// Package loadtest puts load on a local playground server and measures how it copes; it is
// the logic of the loadtest command (cmd/loadtest, which is only its flags: see its
// documentation for the modes as a user runs them).
//
//   - [Viewers]: a classroom of websocket viewers on any lab, each moving the lab's
//     parameters at human speed through scenarios drawn from the lab's own declarations
//     (param.Spec: a slider's range and scale, a menu's options, a checkbox list's subsets),
//     and, with ViewersConfig.Churn, connections that vanish mid-run.
//   - [MeasureRoom]: a teaching room's fan-out, from a presenter's change to every follower.
//   - [Attack]: hostile clients all at once, while a default viewer keeps visiting.
//
// Every mode talks to the server through one target (a loopback-only base URL, one HTTP
// client, one websocket dialer that offers permessage-deflate as browsers do when asked),
// reads its messages through one decoder (the stream protocol of package api, a run message
// read from its first bytes however long its series), summarizes latencies with one [Dist]
// (nearest-rank percentiles) and reads the server's /metrics and the machine's CPU use in one
// way. Every wait is bounded by the configured timeout, so a mode stops by itself.
package loadtest

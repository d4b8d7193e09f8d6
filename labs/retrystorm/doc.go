// Package retrystorm is the playground's retry-storm lab: clients retry the calls that fail or
// time out, and a service of limited capacity queues the calls, so that retries can keep it
// overloaded long after what set them off has gone — a metastable failure.
package retrystorm

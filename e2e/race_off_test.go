//go:build !race

package e2e

// slow stretches the tests' waits: under the race detector the in-process server computes
// several times slower.
const slow = 1

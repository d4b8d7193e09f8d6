// Package heavy sorts the tests whose work is a simulation's CPU from the rest, so that CI runs
// each where it finds something. .ci/run runs the suite twice: plainly, where every test runs,
// and with the race detector, which slows simulations some tenfold and finds races only where
// goroutines share memory — the server, the hub, the rooms, a run's cancellation. A heavy test
// (a sweep over every slider end, a lab's memory corners, every step of every tour) exercises
// no goroutine its lighter neighbours do not, so under -race it is skipped (Test) or cut to a
// few cases (Light); under -short too. A browser test that drives the server's concurrency runs
// under -race too, and in CI there only: the plain run beside it skips it (RaceToo).
package heavy

import (
	"os"
	"testing"
)

// Race reports whether the race detector is built into the test binary.
const Race = race

// Light reports whether tests should run a light share of their cases: under the race
// detector or -short.
func Light() bool { return Race || testing.Short() }

// Test skips tb, a heavy test, under the race detector or -short, saying where it runs.
func Test(tb testing.TB) {
	tb.Helper()
	if Light() {
		tb.Skip("heavy: runs without -race and -short (CI's plain test step)")
	}
}

// raceRunBeside is the environment variable .ci/run sets for its plain run: the race run
// beside it runs the tests that drive the server's concurrency (RaceToo), so the plain one
// need not run them again.
const raceRunBeside = "PLAYGROUND_RACE_RUN_BESIDE"

// RaceToo skips tb, a test that drives the server's concurrency and so runs under the race
// detector too, in a plain run that has a race run beside it (PLAYGROUND_RACE_RUN_BESIDE set, as CI does):
// that run covers it, on a race-built server. Anywhere else it runs.
func RaceToo(tb testing.TB) {
	tb.Helper()
	if !Race && os.Getenv(raceRunBeside) != "" {
		tb.Skip("runs under -race in the run beside this one (" + raceRunBeside + " is set, as CI does)")
	}
}

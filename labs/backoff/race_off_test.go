//go:build !race

package backoff

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = false

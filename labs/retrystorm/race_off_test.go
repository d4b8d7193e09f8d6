//go:build !race

package retrystorm

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = false

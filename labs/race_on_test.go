//go:build race

package labs_test

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = true

//go:build !race

package api_test

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = false

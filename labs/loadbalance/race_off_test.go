//go:build !race

package loadbalance

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = false

//go:build !race

package e2e

// raceEnabled says the race detector slows the server in this test binary some tenfold.
const raceEnabled = false

//go:build race

package ratelimit

// raceEnabled says the race detector slows this test binary some tenfold.
const raceEnabled = true

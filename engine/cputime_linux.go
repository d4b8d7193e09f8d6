package engine

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadCPU returns the CPU time the calling thread has used, and true; a worker that has
// locked itself to its thread measures its own computing with it, unaffected by other
// processes or goroutines that compete for the CPU.
func threadCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

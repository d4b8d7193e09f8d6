//go:build unix

package labtest

import (
	"syscall"
	"testing"
	"time"
)

// ProcessCPU returns the CPU time, user and system, the test process has used so far: every
// goroutine's and the garbage collector's, which a shared machine's load disturbs less than
// wall time.
func ProcessCPU(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

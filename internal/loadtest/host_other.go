//go:build !linux

package loadtest

import (
	"errors"
	"time"
)

// hostCPU reports nothing: the machine's CPU time is only read on Linux.
func hostCPU() (busy, total float64, ok bool) { return 0, 0, false }

// cpuPressure reports nothing: CPU pressure is only read on Linux.
func cpuPressure() (time.Duration, bool) { return 0, false }

// processRSS fails: another process's memory is only read on Linux.
func processRSS(pid int) (rss, peak float64, err error) {
	return 0, 0, errors.New("reading a process's memory needs Linux's /proc; leave -pid unset to use the server's /metrics")
}

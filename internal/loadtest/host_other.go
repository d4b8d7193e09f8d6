//go:build !linux

package loadtest

import "time"

// hostCPU reports nothing: the machine's CPU time is only read on Linux.
func hostCPU() (busy, total float64, ok bool) { return 0, 0, false }

// cpuPressure reports nothing: CPU pressure is only read on Linux.
func cpuPressure() (time.Duration, bool) { return 0, false }

//go:build !unix

package labtest

import (
	"testing"
	"time"
)

var start = time.Now()

// ProcessCPU returns the time since the process started: where the system cannot tell the
// process's CPU time, wall time stands in for it.
func ProcessCPU(testing.TB) time.Duration { return time.Since(start) }

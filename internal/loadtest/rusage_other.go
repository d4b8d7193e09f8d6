//go:build !unix

package loadtest

import "time"

// selfCPU returns 0: this process's CPU time is not measured on this system.
func selfCPU() time.Duration { return 0 }

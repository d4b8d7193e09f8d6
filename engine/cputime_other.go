//go:build !linux

package engine

import "time"

// threadCPU is not available here: workers measure their computing in wall time.
func threadCPU() (time.Duration, bool) { return 0, false }

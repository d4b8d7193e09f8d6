package main

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// TestMemoryLimit: a server's soft heap limit leaves each run it may hold at once its bound,
// and 64 MiB for the rest: 384 MiB at the default 8 runs of a 2-CPU machine.
func TestMemoryLimit(t *testing.T) {
	if got, want := memoryLimit(8), int64(64<<20+8*lab.MaxRunMemory); got != want {
		t.Errorf("memoryLimit(8) = %d, want %d", got, want)
	}
	if memoryLimit(0) != memoryLimit(1) {
		t.Error("memoryLimit(0) differs from memoryLimit(1): at least one run")
	}
}

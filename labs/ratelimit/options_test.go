package ratelimit

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestOptions: every algorithm offered has a simulation.
func TestOptions(t *testing.T) { labtest.CheckOptions(t, Lab(), "algorithms", algorithmOptions) }

package backoff

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestOptions: every strategy offered has a policy.
func TestOptions(t *testing.T) { labtest.CheckOptions(t, Lab(), "strategies", strategyOptions) }

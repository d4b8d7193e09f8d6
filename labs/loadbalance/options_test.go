package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/lab/labtest"
)

// TestOptions: every subsetting and policy offered has a constructor.
func TestOptions(t *testing.T) {
	l := Lab()
	labtest.CheckOptions(t, l, "subsetting", subsettingOptions)
	labtest.CheckOptions(t, l, "policy", policyOptions)
}

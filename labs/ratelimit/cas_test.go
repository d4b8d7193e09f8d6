package ratelimit

import (
	"errors"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// TestCASNeverOverAdmits: compare-and-swap serialises the decisions, so an exact limiter
// (the sliding log) behind it never lets more than the limit into any window — counted, as
// the limiter decides, at the moment the attempt that decided left the instance. A request
// whose swap failed decides on its retry, later than it arrived; counted by arrival, the
// same decisions seemed to over-admit (78 at 1 ms, 1,262 at 5 ms, up to 105 in a window).
func TestCASNeverOverAdmits(t *testing.T) {
	for _, lat := range []string{"1ms", "5ms", "20ms"} {
		a := algorithms(t, mustRun(t, "algorithms=sliding_log&limit=100&load=2&duration=1m&instances=4&store=cas&store_latency="+lat))
		log := a["sliding_log"]
		t.Logf("store latency %s: admitted %d, while full %d, most in a window %d, gave up %d", lat, log.Admitted, log.OverAdmitted, log.MaxInWindow, log.GaveUp)
		if log.OverAdmitted != 0 || log.MaxInWindow > 100 || log.OverLimitRequestS != 0 {
			t.Errorf("store latency %s: sliding log over compare-and-swap admitted %d while full, %d in a window: want none over the limit",
				lat, log.OverAdmitted, log.MaxInWindow)
		}
	}
}

// TestStickyStartsOnOneInstance: sticky sessions with more than one instance, which ran as if
// there were two (the client sits on the first and moves to the second at the scale-out), are
// refused, naming both parameters.
func TestStickyStartsOnOneInstance(t *testing.T) {
	l := Lab()
	_, err := l.Parse("balancer=sticky&instances=4")
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "instances" || !slices.Equal(pe.Params, []string{"instances", "balancer"}) ||
		pe.Msg != "instances must be 1 with balancer sticky, which pins the client to one instance and adds a second at the scale-out halfway; got 4" {
		t.Errorf("balancer=sticky&instances=4: %#v", err)
	}
	if _, err := l.Parse("balancer=sticky&store=local"); err != nil {
		t.Errorf("the tour's sticky scenario: %v", err)
	}
}

package hub_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestObservedBeforeResult: a run is counted (Config.Observe) before anyone is handed its
// result, so that a caller holding a result can read the run in the metrics.
func TestObservedBeforeResult(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		release := make(chan struct{})
		observed := make(chan struct{})
		h := MustOpenHub(t, hub.Config{CacheSize: 4, Observe: func(string, time.Duration, error) {
			close(observed)
			<-release
		}})
		got := make(chan error, 1)
		go func() {
			_, err := h.Result(context.Background(), g.Lab, values(t, g.Lab, "n=3&steps=2"))
			got <- err
		}()
		<-observed
		synctest.Wait() // everything that can happen while Observe is busy has happened
		select {
		case err := <-got:
			t.Fatalf("the result (err %v) was handed out before Observe returned", err)
		default:
		}
		close(release)
		if err := <-got; err != nil {
			t.Fatal(err)
		}
	})
}

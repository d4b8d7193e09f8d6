package labs_test

import (
	"testing"

	"github.com/resilience-playground/playground/labs"
)

// TestOptionLabels: every option of every lab's enum parameters has a label of its own (the
// registry also refuses to start without one), so the page never shows fixed_window or p2c.
func TestOptionLabels(t *testing.T) {
	for _, l := range labs.Registry().All() {
		if err := l.CheckLabels(); err != nil {
			t.Error(err)
		}
	}
}

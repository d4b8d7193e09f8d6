package lab_test

import (
	"math"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

func TestRoundTo(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int
		want float64
	}{{123456, 4, 123500}, {0.00123456, 3, 0.00123}, {-98.765, 2, -99}, {0, 4, 0}} {
		if got := lab.RoundTo(c.x, c.d); math.Abs(got-c.want) > 1e-12*math.Abs(c.want) {
			t.Errorf("RoundTo(%g, %d) = %g, want %g", c.x, c.d, got, c.want)
		}
	}
	if got := lab.Provisional(true)(1.23456789); got != 1.23456789 {
		t.Errorf("Provisional(true) changed a final number: %g", got)
	}
	if got := lab.Provisional(false)(1.23456789); got != 1.235 {
		t.Errorf("Provisional(false)(1.23456789) = %g, want 1.235", got)
	}
	if !math.IsNaN(lab.RoundTo(math.NaN(), 3)) || !math.IsInf(lab.RoundTo(math.Inf(1), 3), 1) {
		t.Error("RoundTo changed NaN or an infinity")
	}
}

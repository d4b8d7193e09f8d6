package engine

import (
	"math"
	"testing"
)

// TestUnderCurve checks that the wedge test's bounds give the exponential's answer, for every
// layer, over random points of its wedge and heights, points at the wedge's ends, and heights
// within a few float32 steps of the curve, where the bounds cannot decide.
func TestUnderCurve(t *testing.T) {
	var s Source
	Seed(&s, 1, Network, 2, 3)
	exact := func(x float64, a float32) bool { return a < float32(math.Exp(-.5*x*x)) }
	check := func(x float64, i uint64, a float32) {
		t.Helper()
		if got, want := underCurve(x, i, a), exact(x, a); got != want {
			t.Fatalf("layer %d, x=%v, a=%v: %v, the exponential says %v", i, x, a, got, want)
		}
	}
	decided := 0
	for i := uint64(1); i < 128; i++ {
		for k := 0; k < 20000; k++ {
			u := s.Uint64()
			j := int32(u >> 32)
			if k < 4 { // the wedge's ends
				j = [4]int32{math.MaxInt32, math.MinInt32, int32(zigK[i]), -int32(zigK[i])}[k]
			}
			if absInt32(j) < zigK[i] {
				continue // the core: no wedge test
			}
			x := float64(j) * zigW[i]
			a := zigF[i] + float32(s.Float64())*(zigF[i-1]-zigF[i])
			check(x, i, a)
			// Heights next to the curve: float32 steps around it.
			e := float32(math.Exp(-.5 * x * x))
			for _, b := range []float32{e, math.Nextafter32(e, 0), math.Nextafter32(e, 2), math.Nextafter32(math.Nextafter32(e, 0), 0)} {
				check(x, i, b)
			}
			if d := .5 * (zigX[i]*zigX[i] - x*x); d <= 1 && d >= -1 {
				decided++
			}
		}
	}
	if decided == 0 {
		t.Fatal("the bounds never applied")
	}
}

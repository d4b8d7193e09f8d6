package engine_test

import (
	"math"
	"testing"

	"github.com/resilience-playground/playground/engine"
)

// TestNormalMoments checks the ziggurat against the standard normal: mean, variance, the
// fraction beyond ±1, ±2 and ±3.5 (the base layer's tail starts at 3.44), and symmetry.
func TestNormalMoments(t *testing.T) {
	var s engine.Source
	engine.Seed(&s, 1, engine.Network, 2, 3)
	const n = 2_000_000
	var sum, sq float64
	var beyond1, beyond2, beyond35, neg int
	for range n {
		x := s.Normal()
		sum += x
		sq += x * x
		a := math.Abs(x)
		if a > 1 {
			beyond1++
		}
		if a > 2 {
			beyond2++
		}
		if a > 3.5 {
			beyond35++
		}
		if x < 0 {
			neg++
		}
	}
	mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
	tail := func(z float64) float64 { return math.Erfc(z / math.Sqrt2) }
	checks := []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"mean", mean, 0, 0.003},
		{"variance", variance, 1, 0.005},
		{"P(|x|>1)", float64(beyond1) / n, tail(1), 0.002},
		{"P(|x|>2)", float64(beyond2) / n, tail(2), 0.0007},
		{"P(|x|>3.5)", float64(beyond35) / n, tail(3.5), 0.0001},
		{"P(x<0)", float64(neg) / n, 0.5, 0.002},
	}
	for _, c := range checks {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s = %.6f, want %.6f ± %g", c.name, c.got, c.want, c.tol)
		}
	}
}

func TestFloat64Range(t *testing.T) {
	var s engine.Source
	engine.Seed(&s, 9, engine.Jitter, 0, 0)
	var sum float64
	const n = 1_000_000
	for range n {
		x := s.Float64()
		if x < 0 || x >= 1 {
			t.Fatalf("Float64() = %v, outside [0, 1)", x)
		}
		sum += x
	}
	if m := sum / n; math.Abs(m-0.5) > 0.002 {
		t.Errorf("mean %v, want 0.5", m)
	}
}

func BenchmarkNormal(b *testing.B) {
	var s engine.Source
	var sink float64
	for b.Loop() {
		sink += s.Normal()
	}
	_ = sink
}

// TestNormalSequencePinned pins the exact draws of Source.Normal: shared URLs reproduce their
// numbers bit for bit only while every draw does, so a faster ziggurat must give the same ones.
func TestNormalSequencePinned(t *testing.T) {
	var s engine.Source
	engine.Seed(&s, 1, engine.Network, 2, 3)
	var h uint64 = 14695981039346656037 // FNV-1a over the bits of 1,000,000 draws
	for range 1_000_000 {
		h ^= math.Float64bits(s.Normal())
		h *= 1099511628211
	}
	if h != pinnedNormalHash {
		t.Errorf("hash of the draws = %#x, want %#x: Normal's sequence changed", h, pinnedNormalHash)
	}
}

// pinnedNormalHash is the hash of the draws as the first ziggurat made them.
const pinnedNormalHash = 0x7ba96b6fa67ba319

// TestNormalsMatchesNormal: Normals draws what as many calls of Normal draw.
func TestNormalsMatchesNormal(t *testing.T) {
	var a, b engine.Source
	engine.Seed(&a, 7, engine.Network, 1, 2)
	b = a
	xs := make([]float64, 5)
	for range 100_000 {
		b.Normals(xs[:3])
		for _, x := range xs[:3] {
			if y := a.Normal(); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("Normals drew %v where Normal drew %v", x, y)
			}
		}
	}
}

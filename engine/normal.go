package engine

import "math"

// Float64 returns a uniform number in [0, 1) from the top 53 bits of a draw.
func (s *Source) Float64() float64 { return float64(s.Uint64()>>11) * 0x1p-53 }

// Normal returns a standard normal number (mean 0, standard deviation 1), by the ziggurat
// method of Marsaglia and Tsang ("The Ziggurat Method for Generating Random Variables", Journal
// of Statistical Software 5(8), 2000) with 128 layers — the method math/rand/v2's NormFloat64
// uses. The common case (97% of draws) takes one draw and one comparison; the rest go to an
// out-of-line slow path. Calling it on the Source directly, rather than through rand.Rand and
// its Source interface, saves an interface call per draw; [Source.Normals] saves the calls of
// several draws.
func (s *Source) Normal() float64 {
	u := s.Uint64()
	if absInt32(int32(u>>32)) < zigK[u&127] { // sign and magnitude; layer
		return float64(int32(u>>32)) * zigW[u&127]
	}
	return s.normalSlow(u)
}

// Normals fills xs with the next len(xs) draws of [Source.Normal], in order: the same numbers
// as that many calls, for the price of one call.
func (s *Source) Normals(xs []float64) {
	for k := range xs {
		u := s.Uint64()
		if absInt32(int32(u>>32)) < zigK[u&127] {
			xs[k] = float64(int32(u>>32)) * zigW[u&127]
		} else {
			xs[k] = s.normalSlow(u)
		}
	}
}

// normalSlow finishes a draw u that fell outside its layer's rectangle core, drawing again
// until one is accepted: Normal's rare path, kept out of it so that Normal inlines.
func (s *Source) normalSlow(u uint64) float64 {
	for {
		j, i := int32(u>>32), u&127
		if absInt32(j) < zigK[i] {
			return float64(j) * zigW[i]
		}
		if x, ok := s.normalTail(j, i); ok {
			return x
		}
		u = s.Uint64()
	}
}

// normalTail handles the rare draws outside a layer's rectangle core: the base layer's tail
// beyond zigR, and the wedges between rectangles and the curve.
func (s *Source) normalTail(j int32, i uint64) (float64, bool) {
	x := float64(j) * zigW[i]
	if i == 0 {
		for {
			x = -math.Log(s.Float64()) * (1.0 / zigR)
			y := -math.Log(s.Float64())
			if y+y >= x*x {
				break
			}
		}
		if j > 0 {
			return zigR + x, true
		}
		return -zigR - x, true
	}
	if underCurve(x, i, zigF[i]+float32(s.Float64())*(zigF[i-1]-zigF[i])) {
		return x, true
	}
	return 0, false
}

// underCurve reports whether a < float32(math.Exp(-.5*x*x)) for x in the wedge of layer i
// (|x| between the layer's core edge and its edge, i ≥ 1) and a in that layer's height: the
// wedge test. Most answers need no exponential: e^(-x²/2) = f·e^δ with f = e^(-x_i²/2) at the
// layer's edge x_i and δ = (x_i² − x²)/2, which the wedge keeps below 1, and
// 1+δ+δ²/2+δ³/6 ≤ e^δ ≤ 1+δ+δ²/2+δ³/6 + δ⁴/8 for δ ≤ 1 (Taylor, Lagrange's remainder). When
// a lies below the lower bound or above the upper one by more than 2⁻¹⁹ of itself — far more
// than float64 rounding and float32's (2⁻²⁴) can move either side — the answer is that of
// the exponential; otherwise it computes the exponential. So the answer, and every normal
// drawn, is exactly what the exponential alone gives (TestUnderCurve).
func underCurve(x float64, i uint64, a float32) bool {
	if d := .5 * (zigX[i]*zigX[i] - x*x); d <= 1 && d >= -1 {
		p := 1 + d*(1+d*(.5+d*(1.0/6)))
		lo, hi := zigE[i]*p, zigE[i]*(p+d*d*d*d*.125)
		switch fa := float64(a); {
		case fa*(1+0x1p-19) < lo:
			return true
		case fa*(1-0x1p-19) > hi:
			return false
		}
	}
	return a < float32(math.Exp(-.5*x*x))
}

func absInt32(i int32) uint32 {
	if i < 0 {
		return uint32(-i)
	}
	return uint32(i)
}

const zigR = 3.442619855899

var (
	zigK [128]uint32
	zigW [128]float64 // float32 values, as Marsaglia and Tsang's tables hold, widened once here
	zigF [128]float32
	zigX [128]float64 // layer i's edge x_i (1 ≤ i ≤ 127), unrounded
	zigE [128]float64 // e^(-x_i²/2), unrounded
)

// init builds the ziggurat's tables (Marsaglia and Tsang's zigset).
func init() {
	const m1 = 1 << 31
	dn, tn, vn := zigR, zigR, 9.91256303526217e-3
	q := vn / math.Exp(-.5*dn*dn)
	zigK[0] = uint32(dn / q * m1)
	zigK[1] = 0
	zigW[0] = float64(float32(q / m1))
	zigW[127] = float64(float32(dn / m1))
	zigF[0] = 1
	zigF[127] = float32(math.Exp(-.5 * dn * dn))
	zigX[127], zigE[127] = dn, math.Exp(-.5*dn*dn)
	for i := 126; i >= 1; i-- {
		dn = math.Sqrt(-2 * math.Log(vn/dn+math.Exp(-.5*dn*dn)))
		zigK[i+1] = uint32(dn / tn * m1)
		tn = dn
		zigF[i] = float32(math.Exp(-.5 * dn * dn))
		zigW[i] = float64(float32(dn / m1))
		zigX[i], zigE[i] = dn, math.Exp(-.5*dn*dn)
	}
}

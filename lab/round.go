package lab

import "math"

// Provisional returns how a run rounds the numbers of an update: the identity for final
// numbers, and for numbers a later update will replace a rounding to four significant digits
// — as exact as a viewer can read, and a fraction of the bytes on the wire.
func Provisional(final bool) func(float64) float64 {
	if final {
		return func(x float64) float64 { return x }
	}
	return func(x float64) float64 { return RoundTo(x, 4) }
}

// RoundTo rounds x to digits significant digits. Zero, NaN and infinities are returned as they
// are.
func RoundTo(x float64, digits int) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow(10, float64(digits-1)-math.Floor(math.Log10(math.Abs(x))))
	return math.Round(x*p) / p
}

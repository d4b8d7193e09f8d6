package templates

import (
	"math"
	"strconv"
	"strings"
)

// The page's scripts write numbers and durations for people with js/format.js; the server
// writes the first values a page shows (a slider's accessible value) with these, which follow
// it character for character. TestFormatsMatchPage runs both on the same values.

// sig writes x with n significant digits, without trailing zeros and with a real minus sign,
// as format.js's sig does (JavaScript's String(Number(x.toPrecision(n)))).
func sig(x float64, n int) string {
	switch {
	case math.IsNaN(x):
		return "NaN"
	case math.IsInf(x, 1):
		return "Infinity"
	case math.IsInf(x, -1):
		return "-Infinity"
	case x == 0:
		return "0"
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', n, 64), 64)
	var s string
	if a := math.Abs(r); a >= 1e21 || a < 1e-6 {
		// JavaScript's exponent form: 1.23e+21, 1.5e-7.
		s = strconv.FormatFloat(r, 'g', -1, 64)
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[:1]
		exp = strings.TrimLeft(exp[1:], "0")
		s = mant + "e" + sign + exp
	} else {
		s = strconv.FormatFloat(r, 'f', -1, 64)
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "\u2212" + rest
	}
	return s
}

// durationText writes ms milliseconds in the largest sensible unit with three significant
// digits, as format.js's duration does: 850 µs, 5.2 ms, 2 s, 1.4 min, 3.1 h, 3 d.
func durationText(ms float64) string {
	a := math.Abs(ms)
	switch {
	case math.IsNaN(ms) || math.IsInf(ms, 0):
		return sig(ms, 3)
	case a == 0:
		return "0 s"
	case a < 1:
		return sig(ms*1000, 3) + " µs"
	case a < 1000:
		return sig(ms, 3) + " ms"
	case a < 60000:
		return sig(ms/1000, 3) + " s"
	case a < 3600000:
		return sig(ms/60000, 3) + " min"
	case a < 86400000*2:
		return sig(ms/3600000, 3) + " h"
	}
	return sig(ms/86400000, 3) + " d"
}

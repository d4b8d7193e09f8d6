package lab

import (
	"math"
	"strconv"
	"strings"
)

// The page writes numbers and durations for people with web/static/js/format.js; the server
// (the pages it renders) and the tests of what tours quote write them with these, which follow
// it character for character (web/templates.TestFormatsMatchPage runs both on the same values).

// FormatSig writes x with n significant digits, without trailing zeros and with a real minus
// sign, as format.js's sig does (JavaScript's String(Number(x.toPrecision(n)))).
func FormatSig(x float64, n int) string {
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
		s = mant + "e" + exp[:1] + strings.TrimLeft(exp[1:], "0")
	} else {
		s = strconv.FormatFloat(r, 'f', -1, 64)
	}
	if rest, ok := strings.CutPrefix(s, "-"); ok {
		return "\u2212" + rest
	}
	return s
}

// FormatDuration writes ms milliseconds as format.js's duration does: three significant
// digits in the unit an axis reaching them would use — µs below 1 ms, ms below 2 s, s below
// 2 min, min below 2 h, h below 2 days, then d — so that a text quotes a duration exactly as
// the table and the axis beside it show it: 63.3 s, not 1.055 min.
func FormatDuration(ms float64) string {
	if math.IsNaN(ms) || math.IsInf(ms, 0) {
		return FormatSig(ms, 3)
	}
	if ms == 0 {
		return "0 s"
	}
	a := math.Abs(ms)
	per, name := 864e5, "d"
	switch {
	case a < 1:
		per, name = 1e-3, "µs"
	case a < 2000:
		per, name = 1, "ms"
	case a < 120000:
		per, name = 1e3, "s"
	case a < 7200000:
		per, name = 6e4, "min"
	case a < 172800000:
		per, name = 3.6e6, "h"
	}
	return FormatSig(ms/per, 3) + " " + name
}

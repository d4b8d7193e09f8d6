package lab_test

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestWriteMarkdown: a lab's parameters become a table whose ranges are written as people
// read them — units after numbers, durations as durations, options with their labels — and
// whose cells keep their text intact.
func TestWriteMarkdown(t *testing.T) {
	l := &lab.Lab{Name: "x", Title: "X lab", Intro: "An intro.", RefusedEnds: []string{"n=9"}, Params: param.Set{
		{Name: "n", Label: "N", Kind: param.Int, Default: "3", Min: 1, Max: 9, Step: 1, Unit: "requests", Help: "How many; a|b."},
		{Name: "r", Label: "R", Kind: param.Float, Default: "2", Min: 0.5, Max: 10, Step: 0.5, Unit: "/s", Help: "Rate."},
		{Name: "d", Label: "D", Kind: param.Duration, Default: "1s", Min: 0.1, Max: 60000, Step: 0.1, Unit: "ms", Help: "Wait."},
		{Name: "e", Label: "E", Kind: param.Enum, Default: "a", Options: []string{"a", "b"}, OptionLabels: []string{"Ay", "Bee"}, Help: "Pick."},
		{Name: "s", Label: "S", Kind: param.IntRange, Default: "off", Min: 1, Max: 100, MaxLen: 5, On: "1:5:1", Help: "Sweep."},
	}}
	var b strings.Builder
	if err := lab.WriteMarkdown(&b, []*lab.Lab{l}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"## `/x` — X lab\n\nAn intro.\n",
		"| `n` | int | `3` | 1 requests–9 requests | How many; a\\|b. |",
		"| `r` | float | `2` | 0.5/s–10/s | Rate. |",
		"| `d` | duration | `1s` | 100µs–1m | Wait. |",
		"| `e` | enum | `a` | one of `a` (Ay), `b` (Bee) | Pick. |",
		"| `s` | int_range | `off` | `from:to:step` in 1–100, at most 5 points, or `off` | Sweep. |",
		"work or memory they need (with a value that fits): `n=9`.",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, b.String())
		}
	}
}

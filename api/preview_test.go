package api

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/web"
)

// TestPreviewPalette: the front page's previews draw in the page's one palette (web.Palette)
// by the page's rule — an option of the view's key in its option's colour, a neutral reference
// in grey — and fill the chart's title with the scenario's values.
func TestPreviewPalette(t *testing.T) {
	l := &lab.Lab{Name: "p", Title: "P",
		Params: param.Set{
			{Name: "algos", Label: "Algorithms", Kind: param.EnumList, Default: "a,b", Options: []string{"a", "b", "c"}, OptionLabels: []string{"A", "B", "C"}},
			{Name: "n", Label: "N", Kind: param.Int, Default: "7", Min: 1, Max: 10, Step: 1},
		},
		View: lab.View{Key: "algos", Charts: []lab.Chart{{ID: "c", Title: "At N = {n}"}}},
	}
	res := &lab.Result{URL: "/p?n=3", Series: []lab.Series{
		{Name: "b", Chart: "c", Label: "b", X: []float64{0, 1}, Y: []float64{1, 2}},
		{Name: "exact", Chart: "c", Label: "exact", Tone: lab.Neutral, X: []float64{0, 1}, Y: []float64{2, 3}},
		{Name: "c", Chart: "c", Label: "c", X: []float64{0, 1}, Y: []float64{3, 1}},
	}}
	svg := string(previewSVG(l, res))
	strokes := regexp.MustCompile(`stroke="(#[0-9A-Fa-f]{6})"`).FindAllStringSubmatch(svg, -1)
	var got []string
	for _, m := range strokes {
		got = append(got, m[1])
	}
	want := []string{web.Palette.Light[1], web.Palette.Ref[0], web.Palette.Light[2]}
	if !slices.Equal(got, want) {
		t.Errorf("series strokes %q, want %q (options b and c in their places, the reference grey)", got, want)
	}
	if !strings.Contains(svg, "<title>At N = 3</title>") {
		t.Errorf("preview title not filled: %.200s", svg)
	}
}

package api

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/web"
)

// TestPreviewDark: a preview carries the dark page's background and series colours
// (web.Palette.Dark, RefDark) for a reader whose system is dark, as the lab page does.
func TestPreviewDark(t *testing.T) {
	l := &lab.Lab{Name: "p", Title: "P",
		Params: param.Set{{Name: "algos", Label: "Algorithms", Kind: param.EnumList, Default: "a,b", Options: []string{"a", "b"}, OptionLabels: []string{"A", "B"}}},
		View:   lab.View{Key: "algos", Charts: []lab.Chart{{ID: "c", Title: "C"}}},
	}
	res := &lab.Result{URL: "/p", Series: []lab.Series{
		{Name: "b", Chart: "c", Label: "b", X: []float64{0, 1}, Y: []float64{1, 2}},
		{Name: "exact", Chart: "c", Label: "exact", Tone: lab.Neutral, X: []float64{0, 1}, Y: []float64{2, 3}},
	}}
	svg := string(previewSVG(l, res))
	_, dark, ok := strings.Cut(svg, "@media (prefers-color-scheme: dark)")
	if !ok {
		t.Fatalf("no dark rules: %s", svg)
	}
	for _, want := range []string{".bg { fill: #121417;", ".s0 { stroke: " + web.Palette.Dark[1] + "; }", ".s1 { stroke: " + web.Palette.RefDark[0] + "; }"} {
		if !strings.Contains(dark, want) {
			t.Errorf("dark rules lack %q: %s", want, dark)
		}
	}
}

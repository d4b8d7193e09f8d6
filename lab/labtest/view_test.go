package labtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// TestViewProblems checks that the view check fails for each way a lab's runs can be out of
// step with its view, and passes the gated lab's own runs.
func TestViewProblems(t *testing.T) {
	view := lab.View{
		Charts: []lab.Chart{{ID: "points", XUnit: lab.Seconds, Band: "Shaded: the spread."}, {ID: "other"}, {ID: "hist", Kind: lab.Bars}},
		Tables: []lab.Table{
			{ID: "m", Key: "byname", Rows: lab.MapRows, Columns: []lab.Column{{Field: "", Label: "name"}, {Field: "n", Label: "n"}}},
			{ID: "l", Key: "list", Rows: lab.ListRows, Columns: []lab.Column{{Field: "step", Label: "step"}}},
		},
	}
	good := func() run {
		return run{
			Updates: []lab.Update{{Series: []lab.Series{
				{Name: "p", Chart: "points", XUnit: "s", X: []float64{1}, Y: []float64{1}},
				{Name: "p lo", Chart: "points", XUnit: "s", Of: "p", Bound: "lo", X: []float64{1}, Y: []float64{0}},
				{Name: "o", Chart: "other", X: []float64{1}, Y: []float64{1}},
				{Name: "h", Chart: "hist", X: []float64{0}, Y: []float64{3}, Width: 5},
			}}, {Series: []lab.Series{{Name: "p", Append: true, X: []float64{2}, Y: []float64{2}}}}},
			Result: &lab.Result{URL: "/x", Summary: map[string]any{
				"byname": map[string]map[string]float64{"a": {"n": 1}},
				"list": []struct {
					Step int `json:"step"`
				}{{1}},
			}},
		}
	}
	if p := viewProblems(view, []run{good()}); len(p) > 0 {
		t.Fatalf("a run that fills the view: %q", p)
	}
	for _, c := range []struct {
		name, want string
		edit       func(*run)
	}{
		{"series of a missing chart", `names chart "nope", which the view lacks`, func(r *run) { r.Updates[0].Series[2].Chart = "nope" }},
		{"chart without series", `chart "other" gets no series`, func(r *run) { r.Updates[0].Series = append(r.Updates[0].Series[:2], r.Updates[0].Series[3]) }},
		{"empty chart without a word", `chart "other" has nothing to draw: it declares no Needs or Empty`, func(r *run) { r.Updates[0].Series[2].X = nil }},
		{"empty table without a word", `table "l" has no rows: it declares no Empty`, func(r *run) {
			r.Result.Summary["list"] = []int{}
		}},
		{"histogram without bar width", `series "h" of histogram "hist" declares no bar width`, func(r *run) { r.Updates[0].Series[3].Width = 0 }},
		{"band of a missing series", `band "p lo" bounds "q"`, func(r *run) { r.Updates[0].Series[1].Of = "q" }},
		{"missing summary key", `summary key "list" is in none`, func(r *run) { delete(r.Result.Summary, "list") }},
		{"missing field", `shows field "n", which no row has`, func(r *run) {
			r.Result.Summary["byname"] = map[string]map[string]float64{"a": {"count": 1}}
		}},
		{"map table given a list", "not an object of rows", func(r *run) { r.Result.Summary["byname"] = []int{1} }},
		{"list table given a map", "not a list of rows", func(r *run) { r.Result.Summary["list"] = map[string]int{"a": 1} }},
		{"series in another unit than its chart", `series "p" says its x unit is "ms", its chart "points" "s"`, func(r *run) { r.Updates[0].Series[0].XUnit = "ms" }},
		{"a typed unit on a chart of counts", `series "o" says its y unit is "%", its chart "other" ""`, func(r *run) { r.Updates[0].Series[2].YUnit = "%" }},
	} {
		r := good()
		c.edit(&r)
		p := viewProblems(view, []run{r})
		if !strings.Contains(strings.Join(p, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one saying %q", c.name, p, c.want)
		}
	}
	// A chart with shaded bands says what they show (issue 30, item 12: a headline chart's
	// hidden help left its band unexplained).
	unsaid := view
	unsaid.Charts = slices.Clone(view.Charts)
	unsaid.Charts[0].Band = ""
	if p := viewProblems(unsaid, []run{good()}); !strings.Contains(strings.Join(p, "\n"), `chart "points" draws shaded bands but declares no Band`) {
		t.Errorf("a band without a word: problems %q", p)
	}
}

// TestGatedFillsView runs the check on the gated lab, as every lab's golden test does.
func TestGatedFillsView(t *testing.T) {
	CheckView(t, NewGated("gated", false).Lab, "n=3&steps=2")
}

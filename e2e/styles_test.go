package e2e

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/param"
)

// styledSeries is one series of a chart's panel as the page styles it.
type styledSeries struct {
	Chart  string `json:"chart"`
	Panel  string `json:"panel"`
	Label  string `json:"label"`
	Colour string `json:"colour"`
	Dash   string `json:"dash"`
	Ref    bool   `json:"ref"`
	Option string `json:"option"` // the parameter and option the label names
}

const readStyles = `(() => {
	const c = window.__playground.charts, view = window.__playground.state.spec.view, out = [];
	for (const chart of view.charts) {
		for (const p of c.panels(chart)) for (const s of p.series)
			out.push({ chart: chart.id, panel: p.key, label: s.label, colour: s.colour, dash: (s.dash || []).join(","), ref: !!s.ref,
				option: (chart.key || view.key) + "=" + s.option });
		// What uPlot was given: every drawn series' stroke and dash, per panel.
		for (const [k, pl] of c.plots) if (k.split("\u0000")[0] === chart.id)
			pl.u.series.slice(1).filter((s) => s.show && s.width > 0).forEach((s) =>
				out.push({ chart: chart.id, panel: "drawn " + k.split("\u0000")[1], label: s.label, colour: String(s.stroke && s.stroke()), dash: (s.dash || []).join(","), ref: false }));
	}
	return out;
})()`

// allOptions is the lab's light scenario (chartPages) with every option of every list
// parameter chosen: the most series a chart of the lab can compare.
func allOptions(tb testing.TB, name string, params param.Set) string {
	tb.Helper()
	page, ok := chartPages[name]
	if !ok {
		tb.Fatalf("no light scenario of lab %s in chartPages", name)
	}
	path, query, _ := strings.Cut(page, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		tb.Fatal(err)
	}
	for _, sp := range params {
		if sp.Kind == param.EnumList {
			q.Set(sp.Name, strings.Join(sp.Options, ","))
		}
	}
	return path + "?" + q.Encode()
}

// TestSeriesStylesDistinct opens every lab with every option of its list parameters on, dark
// and light, and reads each chart's series as styled and as drawn (issue 30, item 6: eight
// algorithms shared seven colours, GCRA and the fixed window both blue dashed; deterministic
// and aperture subsetting grey in one chart and coloured in another). No two series of one
// panel, nor two legend entries of one chart, share colour and dash; a label that is no
// reference has one colour and dash on every chart of its lab.
func TestSeriesStylesDistinct(t *testing.T) {
	srv := MustOpenServer(t)
	for _, scheme := range []string{"light", "dark"} {
		ctx := MustOpenTab(t)
		hookTab(t, ctx)
		emulateScheme(t, ctx, scheme)
		for _, l := range labs.Registry().All() {
			t.Run(scheme+"/"+l.Name, func(t *testing.T) {
				openLab(t, ctx, srv.URL+allOptions(t, l.Name, l.Params))
				waitDrawn(t, ctx)
				series := eval[[]styledSeries](t, ctx, readStyles)
				if len(series) == 0 {
					t.Fatal("no series")
				}
				seen := map[string]string{}   // chart, panel and style → label
				legend := map[string]string{} // chart and style → label
				style := map[string]string{}  // label → style and chart
				most := 0
				count := map[string]int{}
				for _, s := range series {
					st := s.Colour + " / " + s.Dash
					k := s.Chart + "\x00" + s.Panel + "\x00" + st
					if other, ok := seen[k]; ok && other != s.Label {
						t.Errorf("chart %s panel %q: %q and %q both drawn %s", s.Chart, s.Panel, other, s.Label, st)
					}
					seen[k] = s.Label
					if strings.HasPrefix(s.Panel, "drawn ") {
						count[s.Chart+s.Panel]++
						most = max(most, count[s.Chart+s.Panel])
						continue
					}
					lk := s.Chart + "\x00" + st
					if other, ok := legend[lk]; ok && other != s.Label {
						t.Errorf("chart %s: %q and %q both %s", s.Chart, other, s.Label, st)
					}
					legend[lk] = s.Label
					if s.Ref {
						continue
					}
					if prev, ok := style[s.Option]; ok && !strings.HasPrefix(prev, st+" ") {
						t.Errorf("%q (%s) is %s on chart %s but %s", s.Label, s.Option, st, s.Chart, prev)
					}
					style[s.Option] = fmt.Sprintf("%s (chart %s)", st, s.Chart)
				}
				labels := slices.Sorted(func(yield func(string) bool) {
					for k := range style {
						if !yield(k) {
							return
						}
					}
				})
				t.Logf("%d labels with a style of their own, at most %d series in one panel: %q", len(labels), most, labels)
			})
		}
	}
}

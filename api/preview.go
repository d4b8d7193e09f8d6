package api

import (
	"bytes"
	"context"
	"fmt"
	"html"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/web"
)

// Previews: GET /preview/{lab}.svg draws the first headline chart of a lab's default scenario
// (or of the scenario its query names) as a small SVG, for the front page. The result comes
// from the hub like any other, so the default scenario is computed once and cached.

const (
	previewW, previewH = 320, 160
	previewPad         = 6
)

// previews holds each lab's preview of its default scenario, drawn once by WarmPreviews.
type previews struct{ m sync.Map } // lab name → []byte

// WarmPreviews draws every lab's preview of its default scenario, one lab after another, so
// that the front page of a server just started shows them at once rather than after the
// simulations. The server calls it once in the background at start-up; it returns early when
// ctx ends, and a lab whose run fails is left to be drawn on request.
func (s *Server) WarmPreviews(ctx context.Context) {
	for _, l := range s.cfg.Labs.All() {
		res, err := s.cfg.Hub.Result(ctx, l, l.Params.Defaults())
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			s.log.Warn("preview at start-up", "lab", l.Name, "err", err)
			continue
		}
		s.previews.m.Store(l.Name, previewSVG(l, res))
	}
}

// preview serves GET /preview/{lab}.svg.
func (s *Server) preview(w http.ResponseWriter, r *http.Request) {
	if r.URL.RawQuery == "" {
		if svg, ok := s.previews.m.Load(chi.URLParam(r, "lab")); ok {
			w.Header().Set("Content-Type", "image/svg+xml")
			w.Header().Set("Cache-Control", "max-age=300")
			w.Write(svg.([]byte))
			return
		}
	}
	l, res, ok := s.finalResult(w, r)
	if !ok {
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "max-age=300")
	w.Write(previewSVG(l, res))
}

// previewSVG draws l's first headline chart (or its first chart) from res: one polyline, or
// one set of bars, per series, on the chart's axes (log where the chart says so), without
// ticks or labels — the page is where charts are read.
func previewSVG(l *lab.Lab, res *lab.Result) []byte {
	chart := previewChart(l.View)
	series := previewSeries(chart, res.Series)
	sc, ok := newPreviewScale(chart, series)
	c := newPreviewCanvas(previewTitle(l, chart, res.URL))
	if !ok {
		return c.end() // no point to draw: the background alone
	}
	places, total := previewPlaces(l, chart)
	colours := previewColours(series, places, total)
	for i, sr := range series {
		light, dark := colours(sr)
		c.series("s"+strconv.Itoa(i), chart.Kind == lab.Bars, light, dark, sr, sc)
	}
	return c.end()
}

// previewChart returns the chart a preview draws: the view's first headline chart, or else
// its first chart (the zero Chart of a view without charts).
func previewChart(v lab.View) lab.Chart {
	var chart lab.Chart
	if len(v.Charts) > 0 {
		chart = v.Charts[0]
	}
	for _, c := range v.Charts {
		if len(v.Headline) > 0 && c.ID == v.Headline[0] {
			chart = c
		}
	}
	return chart
}

// previewSeries returns the series of all that a preview of chart draws, in order: the
// chart's own, not drawn of another (Series.Of) and not empty — and, of a split chart, only
// those of its first panel (a series' Group, or else its Name), with the series drawn in
// every panel ("*").
func previewSeries(chart lab.Chart, all []lab.Series) []lab.Series {
	var series []lab.Series
	group := "" // of a split chart, the preview draws the first panel
	for _, sr := range all {
		if sr.Chart != chart.ID || sr.Of != "" || len(sr.X) == 0 {
			continue
		}
		if chart.Split {
			panel := sr.Group
			if panel == "" {
				panel = sr.Name
			}
			if group == "" && panel != "*" {
				group = panel
			}
			if panel != group && panel != "*" {
				continue
			}
		}
		series = append(series, sr)
	}
	return series
}

// previewScale maps a chart's values to a preview's pixels: each axis transformed as the
// chart says (log10, or as it is), then scaled from the extent of the points drawn to the
// preview's box within its padding.
type previewScale struct {
	tx, ty         func(float64) float64 // the axes' transforms: identity or logOrNaN
	x0, x1, y0, y1 float64               // the extent of the transformed points
}

// newPreviewScale returns the scale of chart's series: its extent is that of every point
// both of whose transformed values are finite (from zero up, for bars on a linear y axis),
// widened by one either side on an axis where it is a single value. It reports false when no
// point is left to draw.
func newPreviewScale(chart lab.Chart, series []lab.Series) (previewScale, bool) {
	sc := previewScale{tx: func(x float64) float64 { return x }}
	sc.ty = sc.tx
	if chart.LogX {
		sc.tx = logOrNaN
	}
	if chart.LogY {
		sc.ty = logOrNaN
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	if chart.Kind == lab.Bars && !chart.LogY {
		y0 = 0
	}
	for _, sr := range series {
		for i := range sr.X {
			x, y := sc.tx(sr.X[i]), sc.ty(sr.Y[i])
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				continue
			}
			x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
		}
	}
	if x0 > x1 {
		return sc, false
	}
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	if y1 == y0 {
		y0, y1 = y0-1, y1+1
	}
	sc.x0, sc.x1, sc.y0, sc.y1 = x0, x1, y0, y1
	return sc, true
}

// px is the horizontal pixel of the value x.
func (sc previewScale) px(x float64) float64 {
	return previewPad + (sc.tx(x)-sc.x0)/(sc.x1-sc.x0)*(previewW-2*previewPad)
}

// py is the vertical pixel of the value y (SVG's y grows downwards).
func (sc previewScale) py(y float64) float64 {
	return previewH - previewPad - (sc.ty(y)-sc.y0)/(sc.y1-sc.y0)*(previewH-2*previewPad)
}

// previewTitle is the preview's title: chart's, filled with the values of the scenario at url
// (lab.FillTitle), or left as written when url's query is no scenario of l.
func previewTitle(l *lab.Lab, chart lab.Chart, url string) string {
	title := chart.Title
	_, query, _ := strings.Cut(url, "?")
	if v, err := l.Params.ParseQuery(query); err == nil {
		title = lab.FillTitle(title, v.Format)
	}
	return title
}

// previewPlaces returns what previewColours takes of l's view for chart: the places of the
// options of the chart's key (its own, or else the view's), and the number of places the
// options of every key take (lab.View.Places).
func previewPlaces(l *lab.Lab, chart lab.Chart) (map[string]int, int) {
	key := l.View.Key
	if chart.Key != "" {
		key = chart.Key
	}
	places, total := l.View.Places(l.Params), 0
	for _, m := range places {
		total += len(m)
	}
	return places[key], total
}

// previewCanvas is a preview's SVG as it is written: its elements so far, and the style rules
// that give them their colours in dark mode, written last (end).
type previewCanvas struct {
	b    bytes.Buffer
	dark []string
}

// newPreviewCanvas starts a preview titled title: the SVG element, its title and its
// background.
func newPreviewCanvas(title string) *previewCanvas {
	c := new(previewCanvas)
	fmt.Fprintf(&c.b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img">`, previewW, previewH, previewW, previewH)
	fmt.Fprintf(&c.b, `<title>%s</title>`, html.EscapeString(title))
	// The page's background and series colours, light or dark as the reader's system is (an
	// image's media queries follow the page that shows it).
	fmt.Fprintf(&c.b, `<rect class="bg" width="%d" height="%d" fill="#fff" stroke="#ccc"/>`, previewW, previewH)
	c.dark = []string{`@media (prefers-color-scheme: dark) { .bg { fill: #121417; stroke: #41464d; }`}
	return c
}

// series draws sr on scale sc, as bars or as a line, in colour, and adds the dark-mode rule
// that gives its elements (of class) darkColour instead.
func (c *previewCanvas) series(class string, bars bool, colour, darkColour string, sr lab.Series, sc previewScale) {
	if bars {
		c.dark = append(c.dark, "."+class+" { fill: "+darkColour+"; }")
		c.bars(class, colour, sr, sc)
		return
	}
	c.dark = append(c.dark, "."+class+" { stroke: "+darkColour+"; }")
	c.line(class, colour, sr, sc)
}

// bars draws a bar from the bottom of the preview's box up to each point of sr, centred on
// its x and 80% as wide as the box's width shared among the series' points; a point with a
// NaN pixel (a value not above zero on a log axis) is left out.
func (c *previewCanvas) bars(class, colour string, sr lab.Series, sc previewScale) {
	width := (previewW - 2*previewPad) / float64(max(len(sr.X), 1)) * 0.8
	for i := range sr.X {
		x, y := sc.px(sr.X[i]), sc.py(sr.Y[i])
		if math.IsNaN(x) || math.IsNaN(y) {
			continue
		}
		fmt.Fprintf(&c.b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.5"/>`,
			class, x-width/2, y, width, math.Max(previewH-previewPad-y, 0), colour)
	}
}

// line draws sr as one polyline through its finite points. At most two points (the lowest
// and highest) per pixel column: the drawing is the same, the file stays small however long
// the series.
func (c *previewCanvas) line(class, colour string, sr lab.Series, sc previewScale) {
	fmt.Fprintf(&c.b, `<polyline class="%s" fill="none" stroke="%s" stroke-width="2" points="`, class, colour)
	col, lo, hi := math.NaN(), 0.0, 0.0
	flush := func() {
		if !math.IsNaN(col) {
			fmt.Fprintf(&c.b, "%.0f,%.1f %.0f,%.1f ", col, lo, col, hi)
		}
	}
	for i := range sr.X {
		x, y := sc.px(sr.X[i]), sc.py(sr.Y[i])
		if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
			continue
		}
		if at := math.Round(x); at != col {
			flush()
			col, lo, hi = at, y, y
		} else {
			lo, hi = min(lo, y), max(hi, y)
		}
	}
	flush()
	c.b.WriteString(`"/>`)
}

// end closes the preview, its dark-mode rules last, and returns its bytes.
func (c *previewCanvas) end() []byte {
	c.b.WriteString(`<style>` + strings.Join(c.dark, " ") + ` }</style></svg>`)
	return c.b.Bytes()
}

// previewColours returns the colours of each series of a chart in the page's palette (light
// and dark), by the page's rule (js/palette.js): an option of the chart's key takes its
// option's place (lab.View.Places, places); a reference (Tone neutral, or another label beside
// compared options) a grey; any other label the places after every option's (total), in order.
func previewColours(series []lab.Series, places map[string]int, total int) func(lab.Series) (light, dark string) {
	pal := web.Palette
	option := func(s lab.Series) bool {
		_, ok := places[s.Label]
		return ok && s.Tone != lab.Neutral
	}
	compared := slices.ContainsFunc(series, option)
	refs, others := map[string]int{}, map[string]int{}
	return func(s lab.Series) (string, string) {
		i, ok := places[s.Label]
		switch {
		case s.Tone == lab.Neutral || (!option(s) && compared):
			if _, ok := refs[s.Label]; !ok {
				refs[s.Label] = len(refs)
			}
			i := refs[s.Label] % len(pal.Ref)
			return pal.Ref[i], pal.RefDark[i]
		case !ok:
			if _, ok := others[s.Label]; !ok {
				others[s.Label] = total + len(others)
			}
			i = others[s.Label]
		}
		st := web.Styles(i + 1)[i]
		return st.Light, st.Dark
	}
}

// logOrNaN is log10 of positive values, NaN of the others (which are then left out).
func logOrNaN(v float64) float64 {
	if v <= 0 {
		return math.NaN()
	}
	return math.Log10(v)
}

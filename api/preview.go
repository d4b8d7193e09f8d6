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
	var chart lab.Chart
	if len(l.View.Charts) > 0 {
		chart = l.View.Charts[0]
	}
	for _, c := range l.View.Charts {
		if len(l.View.Headline) > 0 && c.ID == l.View.Headline[0] {
			chart = c
		}
	}
	var series []lab.Series
	group := "" // of a split chart, the preview draws the first panel
	for _, sr := range res.Series {
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
	tx := func(x float64) float64 { return x }
	ty := tx
	if chart.LogX {
		tx = logOrNaN
	}
	if chart.LogY {
		ty = logOrNaN
	}
	x0, x1, y0, y1 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	bars := chart.Kind == lab.Bars
	if bars && !chart.LogY {
		y0 = 0
	}
	for _, sr := range series {
		for i := range sr.X {
			x, y := tx(sr.X[i]), ty(sr.Y[i])
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				continue
			}
			x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
		}
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" role="img">`, previewW, previewH, previewW, previewH)
	title := chart.Title
	_, query, _ := strings.Cut(res.URL, "?")
	if v, err := l.Params.ParseQuery(query); err == nil {
		title = lab.FillTitle(title, v.Format)
	}
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(title))
	// The page's background and series colours, light or dark as the reader's system is (an
	// image's media queries follow the page that shows it).
	fmt.Fprintf(&b, `<rect class="bg" width="%d" height="%d" fill="#fff" stroke="#ccc"/>`, previewW, previewH)
	dark := []string{`@media (prefers-color-scheme: dark) { .bg { fill: #121417; stroke: #41464d; }`}
	end := func() []byte {
		b.WriteString(`<style>` + strings.Join(dark, " ") + ` }</style></svg>`)
		return b.Bytes()
	}
	if x0 > x1 {
		return end()
	}
	if x1 == x0 {
		x0, x1 = x0-1, x1+1
	}
	if y1 == y0 {
		y0, y1 = y0-1, y1+1
	}
	px := func(x float64) float64 {
		return previewPad + (tx(x)-x0)/(x1-x0)*(previewW-2*previewPad)
	}
	py := func(y float64) float64 {
		return previewH - previewPad - (ty(y)-y0)/(y1-y0)*(previewH-2*previewPad)
	}
	key := l.View.Key
	if chart.Key != "" {
		key = chart.Key
	}
	places, total := l.View.Places(l.Params), 0
	for _, m := range places {
		total += len(m)
	}
	colours := previewColours(series, places[key], total)
	for i, sr := range series {
		colour, darkColour := colours(sr)
		class := "s" + strconv.Itoa(i)
		if bars {
			dark = append(dark, "."+class+" { fill: "+darkColour+"; }")
		} else {
			dark = append(dark, "."+class+" { stroke: "+darkColour+"; }")
		}
		if bars {
			width := (previewW - 2*previewPad) / float64(max(len(sr.X), 1)) * 0.8
			for i := range sr.X {
				x, y := px(sr.X[i]), py(sr.Y[i])
				if math.IsNaN(x) || math.IsNaN(y) {
					continue
				}
				fmt.Fprintf(&b, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" fill-opacity="0.5"/>`,
					class, x-width/2, y, width, math.Max(previewH-previewPad-y, 0), colour)
			}
			continue
		}
		fmt.Fprintf(&b, `<polyline class="%s" fill="none" stroke="%s" stroke-width="2" points="`, class, colour)
		// At most two points (the lowest and highest) per pixel column: the drawing is the
		// same, the file stays small however long the series.
		col, lo, hi := math.NaN(), 0.0, 0.0
		flush := func() {
			if !math.IsNaN(col) {
				fmt.Fprintf(&b, "%.0f,%.1f %.0f,%.1f ", col, lo, col, hi)
			}
		}
		for i := range sr.X {
			x, y := px(sr.X[i]), py(sr.Y[i])
			if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				continue
			}
			if c := math.Round(x); c != col {
				flush()
				col, lo, hi = c, y, y
			} else {
				lo, hi = min(lo, y), max(hi, y)
			}
		}
		flush()
		b.WriteString(`"/>`)
	}
	return end()
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

package lab

import (
	"slices"

	"github.com/resilience-playground/playground/param"
)

// Series is a named list of points. In an Update, Append means the points extend the series of
// the same name sent earlier, and Upsert that each point replaces the point of the same x sent
// earlier or, if there is none, is inserted in order of x (the series' x must then be
// ascending); otherwise the points replace the series. A lab uses one of Append and Upsert for
// a series, not both.
//
// A series with Of set is view-only: one bound (Bound "lo" or "hi") of a band around the
// series named Of, such as the spread of a mean across trials. Frames carry it; results
// ([Result.Apply]) leave it out.
type Series struct {
	Name   string    `json:"name"`
	Chart  string    `json:"chart,omitempty"` // the View chart it belongs to
	Label  string    `json:"label,omitempty"` // legend entry
	XUnit  string    `json:"x_unit,omitempty"`
	YUnit  string    `json:"y_unit,omitempty"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
	Append bool      `json:"append,omitempty"`
	Upsert bool      `json:"upsert,omitempty"`
	Of     string    `json:"of,omitempty"`    // view-only: the series this bounds
	Bound  string    `json:"bound,omitempty"` // "lo" or "hi"

	// Width is, in a Bars chart, the width of each bar (a histogram's bin) in x's unit: a bar
	// spans [x, x+Width), or is centred on x in a chart of whole x values (Chart.IntX). A bar is
	// drawn as wide as its bin, whatever the other series of its chart, even alone.
	Width float64 `json:"width,omitempty"`

	// Presentation (see View.Key for colours).
	Style string `json:"style,omitempty"` // "dashed" (an estimate over an exact count, say) or "" (solid)
	Group string `json:"group,omitempty"` // in a Split chart, the panel; "*" shows the series in every panel (a reference)
	Tone  string `json:"tone,omitempty"`  // Neutral: drawn in a neutral grey rather than a colour of its own (an exact reference)
}

// Neutral is the Series.Tone of a reference drawn in grey, whatever its label: the exact count
// an estimate is compared with, the offered load, a limit.
const Neutral = "neutral"

// Refinement says how exact the results shown so far are: they are means over Done of the
// Total samples (Unit, such as "trials") the scenario defines.
type Refinement struct {
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Unit  string `json:"unit"`
}

// Progress says how far a run is.
type Progress struct {
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Stage string `json:"stage"`
}

// Update is one step of a run's results: summary entries replace those of the same key, series
// replace, extend or update those of the same name, and progress and refinement replace
// theirs.
type Update struct {
	Progress *Progress      `json:"progress,omitempty"`
	Refine   *Refinement    `json:"refine,omitempty"`
	Summary  map[string]any `json:"summary,omitempty"`
	Series   []Series       `json:"series,omitempty"`
}

// Merge folds next into u, so that sending u once has the effect of sending u, then next.
func (u *Update) Merge(next Update) {
	if next.Progress != nil {
		u.Progress = next.Progress
	}
	if next.Refine != nil {
		u.Refine = next.Refine
	}
	for k, v := range next.Summary {
		if u.Summary == nil {
			u.Summary = map[string]any{}
		}
		u.Summary[k] = v
	}
	u.Series = mergeSeries(u.Series, next.Series, true)
}

// Empty reports whether u carries nothing.
func (u Update) Empty() bool {
	return u.Progress == nil && u.Refine == nil && len(u.Summary) == 0 && len(u.Series) == 0
}

// mergeSeries applies next onto have. keep says whether an append or upsert onto a series
// absent from have stays one (true when merging updates, false when building a result).
func mergeSeries(have, next []Series, keep bool) []Series {
	for _, s := range next {
		i := -1
		for j := range have {
			if have[j].Name == s.Name {
				i = j
				break
			}
		}
		switch {
		case i < 0 && s.Upsert:
			x, y := s.X, s.Y
			s.X, s.Y = upsert([]float64{}, []float64{}, x, y)
			s.Append, s.Upsert = false, keep
			have = append(have, s)
		case i < 0:
			s.X, s.Y = clone(s.X), clone(s.Y)
			s.Append = s.Append && keep
			have = append(have, s)
		case s.Append:
			have[i].X = append(have[i].X, s.X...)
			have[i].Y = append(have[i].Y, s.Y...)
		case s.Upsert:
			have[i].X, have[i].Y = upsert(have[i].X, have[i].Y, s.X, s.Y)
		default:
			s.X, s.Y = clone(s.X), clone(s.Y)
			s.Upsert = false
			have[i] = s
		}
	}
	return have
}

// upsert sets each point (x[k], y[k]) in the series (hx, hy), whose x is ascending: replacing
// the point of the same x, or inserting it in order. It may write into hx and hy.
func upsert(hx, hy, x, y []float64) ([]float64, []float64) {
	for k := range x {
		i, found := slices.BinarySearch(hx, x[k])
		if found {
			hy[i] = y[k]
			continue
		}
		hx, hy = slices.Insert(hx, i, x[k]), slices.Insert(hy, i, y[k])
	}
	return hx, hy
}

// clone returns a copy of x, never nil: JSON writes a nil slice as null, which no page draws.
func clone(x []float64) []float64 { return append(make([]float64, 0, len(x)), x...) }

// Result is the whole outcome of a scenario, as the JSON API returns it.
type Result struct {
	Lab     string         `json:"lab"`
	URL     string         `json:"url"`
	Params  map[string]any `json:"params"`
	Summary map[string]any `json:"summary"`
	Series  []Series       `json:"series"`
}

// NewResult returns the empty result of scenario v of l.
func NewResult(l *Lab, v param.Values) *Result {
	return &Result{Lab: l.Name, URL: l.URL(v), Params: v.Map(), Summary: map[string]any{}, Series: []Series{}}
}

// Apply folds an update into r. View-only series (bands) are left out.
func (r *Result) Apply(u Update) {
	for k, v := range u.Summary {
		r.Summary[k] = v
	}
	series := u.Series
	if slices.ContainsFunc(series, func(s Series) bool { return s.Of != "" }) {
		series = slices.DeleteFunc(slices.Clone(series), func(s Series) bool { return s.Of != "" })
	}
	r.Series = mergeSeries(r.Series, series, false)
}

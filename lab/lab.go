// Package lab defines what a lab is to the rest of the playground: its parameters (a
// [param.Set]), how to estimate and run a scenario, and how its results are shown. The API,
// the page and the CLI know labs only through a [Registry].
//
// A run reports its results as a stream of [Update]s. The whole result of a run is the fold of
// its updates ([Result.Apply]), so the JSON API, the CLI and a browser watching the stream
// all see the same numbers, bit for bit. Updates merge ([Update.Merge]) so that a slow reader
// can be sent the newest state instead of a queue of stale frames.
package lab

import (
	"context"
	"fmt"

	"github.com/resilience-playground/playground/param"
)

// Lab is one page of the playground.
type Lab struct {
	Name   string    // URL path segment: /{Name}, /api/v1/{Name}
	Title  string    // page title
	Intro  string    // one paragraph shown under the title
	Params param.Set // every parameter, in canonical order
	View   View      // charts and tables on the page

	// Cost estimates the simulated events a scenario needs, checked against the server's work
	// budget before the run starts. CostParams names the parameters that drive it, first the
	// one to blame in an error.
	Cost       func(param.Values) int64
	CostParams []string

	// Run simulates the scenario and reports results through emit, in order. It returns when
	// done or when ctx is cancelled (then with ctx's error). emit is never nil; it must not be
	// called after Run returns.
	Run func(ctx context.Context, v param.Values, emit func(Update)) error
}

// Series is a named list of points. In an Update, Append means the points extend the series of
// the same name sent earlier; otherwise they replace it.
type Series struct {
	Name   string    `json:"name"`
	Chart  string    `json:"chart"` // the View chart it belongs to
	Label  string    `json:"label"` // legend entry
	XUnit  string    `json:"x_unit"`
	YUnit  string    `json:"y_unit"`
	X      []float64 `json:"x"`
	Y      []float64 `json:"y"`
	Append bool      `json:"append,omitempty"`
}

// Progress says how far a run is.
type Progress struct {
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Stage string `json:"stage"`
}

// Update is one step of a run's results: summary entries replace those of the same key, series
// replace or extend those of the same name, and progress replaces progress.
type Update struct {
	Progress *Progress      `json:"progress,omitempty"`
	Summary  map[string]any `json:"summary,omitempty"`
	Series   []Series       `json:"series,omitempty"`
}

// Merge folds next into u, so that sending u once has the effect of sending u, then next.
func (u *Update) Merge(next Update) {
	if next.Progress != nil {
		u.Progress = next.Progress
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
	return u.Progress == nil && len(u.Summary) == 0 && len(u.Series) == 0
}

// mergeSeries applies next onto have. keepAppend says whether an append onto a series absent
// from have stays an append (true when merging updates, false when building a result).
func mergeSeries(have, next []Series, keepAppend bool) []Series {
	for _, s := range next {
		i := -1
		for j := range have {
			if have[j].Name == s.Name {
				i = j
				break
			}
		}
		switch {
		case i < 0:
			s.X, s.Y = clone(s.X), clone(s.Y)
			s.Append = s.Append && keepAppend
			have = append(have, s)
		case s.Append:
			have[i].X = append(have[i].X, s.X...)
			have[i].Y = append(have[i].Y, s.Y...)
		default:
			s.X, s.Y = clone(s.X), clone(s.Y)
			have[i] = s
		}
	}
	return have
}

func clone(x []float64) []float64 { return append([]float64(nil), x...) }

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

// Apply folds an update into r.
func (r *Result) Apply(u Update) {
	for k, v := range u.Summary {
		r.Summary[k] = v
	}
	r.Series = mergeSeries(r.Series, u.Series, false)
}

// URL returns the canonical page URL of scenario v: /{lab}?{canonical query}.
func (l *Lab) URL(v param.Values) string {
	if q := v.Encode(); q != "" {
		return "/" + l.Name + "?" + q
	}
	return "/" + l.Name
}

// Execute runs scenario v to completion and returns its result; each update is also passed to
// observe when it is not nil.
func (l *Lab) Execute(ctx context.Context, v param.Values, observe func(Update)) (*Result, error) {
	r := NewResult(l, v)
	err := l.Run(ctx, v, func(u Update) {
		r.Apply(u)
		if observe != nil {
			observe(u)
		}
	})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// CheckBudget returns a *param.Error when scenario v would need more than budget simulated
// events.
func (l *Lab) CheckBudget(v param.Values, budget int64) error {
	if l.Cost == nil || budget <= 0 {
		return nil
	}
	if c := l.Cost(v); c > budget {
		name := ""
		if len(l.CostParams) > 0 {
			name = l.CostParams[0]
		}
		return &param.Error{Param: name, Msg: fmt.Sprintf(
			"this scenario needs about %.3g simulated events, more than the %.3g one run may use; lower %s",
			float64(c), float64(budget), orList(l.CostParams))}
	}
	return nil
}

func orList(names []string) string {
	switch len(names) {
	case 0:
		return "the parameters"
	case 1:
		return names[0]
	}
	s := ""
	for i, n := range names {
		switch {
		case i == 0:
		case i == len(names)-1:
			s += " or "
		default:
			s += ", "
		}
		s += n
	}
	return s
}

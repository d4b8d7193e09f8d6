// Package lab defines what a lab is to the rest of the playground: its parameters (a
// [param.Set]), how to estimate and run a scenario, and how its results are shown. The API,
// the page and the CLI know labs only through a [Registry].
//
// A run reports its results as a stream of [Update]s. The whole result of a run is the fold of
// its updates ([Result.Apply]), so the JSON API, the CLI and a browser watching the stream
// all see the same numbers, bit for bit. Updates merge ([Update.Merge]) so that a slow reader
// can be sent the newest state instead of a queue of stale frames.
//
// # Progressive runs
//
// A progressive lab ([Lab.Progressive]) shows a complete, coarse picture first and refines it:
// it computes its trials in growing batches and, after each batch, replaces what it showed
// with the means over the trials so far, saying how far it has got in [Update.Refine]. The last
// batch's numbers are the result the URL defines; the batches before it only change what a
// viewer sees meanwhile. Series a lab refines point by point are upserted ([Series.Upsert]),
// so each frame carries only the points that changed. Bands around a series (the spread across
// trials, say) are view-only series ([Series.Of]) that frames carry and results leave out.
package lab

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/resilience-playground/playground/param"
)

// Lab is one page of the playground.
type Lab struct {
	Name   string    // URL path segment: /{Name}, /api/v1/{Name}
	Title  string    // page title
	Intro  string    // one paragraph shown under the title
	Params param.Set // every parameter, in canonical order
	View   View      // charts and tables on the page
	Tours  []Tour    // guided walks through the lab's scenarios, in the order they are listed

	// Check, when set, enforces the rules that span several parameters, which no single
	// declaration can: a subset no larger than the backends, a cap no shorter than the base.
	// It returns nil or an error made by [Relation], whose message names every parameter the
	// rule spans and the relation they must keep. The lab declares it next to its
	// parameters; [Lab.Parse], the one way a query becomes a scenario, runs it, so that no
	// request, stream, room, tour or test runs a scenario the rules forbid (nor quietly
	// adjusts one parameter to fit another), and [NewRegistry] checks that the defaults and
	// every tour step keep the rules.
	Check func(param.Values) error

	// Cost estimates the simulated events a scenario needs, checked against the server's work
	// budget before the run starts. CostParams names the parameters that drive it, first the
	// one to blame in an error.
	Cost       func(param.Values) int64
	CostParams []string

	// CostBound, when set, is a cheap upper bound of Cost: a scenario it admits is admitted
	// without computing Cost, which may itself take a little simulation.
	CostBound func(param.Values) int64

	// Progressive says Run reports Update.Refine: its first report marks the moment the
	// results so far form a complete (coarse) picture. A stream whose viewer has moved on
	// keeps such a run until that moment, so that a viewer who drags a slider sees pictures
	// along the way instead of none.
	Progressive bool

	// Run simulates the scenario and reports results through emit, in order. It returns when
	// done or when ctx is cancelled (then with ctx's error). emit is never nil; it must not be
	// called after Run returns. Long computations run their work through engine.Trials or
	// engine.Pace, so that the server can share its CPUs fairly among runs.
	Run func(ctx context.Context, v param.Values, emit func(Update)) error
}

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
			s.X, s.Y = nil, nil
			s.X, s.Y = upsert(s.X, s.Y, x, y)
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

// Relation returns the error of a rule across parameters: msg says what the parameters must
// satisfy and what they are ("subset must be at most backends (300), got 400"); params are
// the parameters the rule spans, the one to change first at the front.
func Relation(msg string, params ...string) *param.Error {
	e := &param.Error{Msg: msg, Params: params}
	if len(params) > 0 {
		e.Param = params[0]
	}
	return e
}

// Parse turns a raw URL query (without the '?') into a scenario of l: every parameter is
// parsed and checked against its declaration ([param.Set.ParseQuery]), then the scenario
// against l's rules across parameters ([Lab.Check]). It is the one way a query becomes a
// scenario — the API, streams, rooms, tours and tests all call it — so a scenario that
// breaks a rule gets an error naming its parameters wherever it comes from. Errors are
// *param.Error.
func (l *Lab) Parse(rawQuery string) (param.Values, error) {
	v, err := l.Params.ParseQuery(rawQuery)
	if err != nil {
		return param.Values{}, err
	}
	if err := l.check(v); err != nil {
		return param.Values{}, err
	}
	return v, nil
}

// check runs l.Check on v; an error that is not a *param.Error becomes one.
func (l *Lab) check(v param.Values) *param.Error {
	if l.Check == nil {
		return nil
	}
	err := l.Check(v)
	if err == nil {
		return nil
	}
	var pe *param.Error
	if errors.As(err, &pe) {
		return pe
	}
	return &param.Error{Msg: err.Error()}
}

// Salvage is Parse for a page, which shows a bad URL's errors beside a working view: it
// never fails. A bad or unknown parameter takes its default ([param.Set.SalvageQuery]); when
// the scenario breaks a rule across parameters, the rule's error is reported and its
// parameters take their defaults, first to last, until the rules hold.
func (l *Lab) Salvage(rawQuery string) (param.Values, []*param.Error) {
	v, errs := l.Params.SalvageQuery(rawQuery)
	for range len(l.Params) + 1 {
		pe := l.check(v)
		if pe == nil {
			return v, errs
		}
		errs = append(errs, pe)
		moved := false
		for _, name := range pe.Params {
			sp, ok := l.Params.Lookup(name)
			if !ok {
				continue
			}
			if w, err := v.With(name, sp.Default); err == nil {
				v, moved = w, true
				if l.check(v) == nil {
					break
				}
			}
		}
		if !moved {
			break
		}
	}
	return l.Params.Defaults(), errs // they keep the rules: NewRegistry checks
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
// events. The error names the first cost parameter that, lowered alone, would make the
// scenario fit, and the value it would fit with.
func (l *Lab) CheckBudget(v param.Values, budget int64) error {
	if l.Cost == nil || budget <= 0 {
		return nil
	}
	if l.CostBound != nil && l.CostBound(v) <= budget {
		return nil
	}
	c := l.Cost(v)
	if c <= budget {
		return nil
	}
	msg := fmt.Sprintf("this scenario needs about %.3g simulated events, more than the %.3g one run may use; ",
		float64(c), float64(budget))
	for i, name := range l.CostParams {
		if fit, ok := l.fit(v, name, budget); ok {
			others := slices.Delete(slices.Clone(l.CostParams), i, i+1)
			msg += fmt.Sprintf("lower %s to %s", name, fit)
			if len(others) > 0 {
				msg += " (or lower " + orList(others) + ")"
			}
			return &param.Error{Param: name, Msg: msg}
		}
	}
	name := ""
	if len(l.CostParams) > 0 {
		name = l.CostParams[0]
	}
	return &param.Error{Param: name, Msg: msg + "lower " + orList(l.CostParams)}
}

// fit returns the largest value of integer parameter name, below its value in v, with which
// v fits the budget (Cost is taken to grow with it), or false.
func (l *Lab) fit(v param.Values, name string, budget int64) (string, bool) {
	sp, ok := l.Params.Lookup(name)
	if !ok || sp.Kind != param.Int {
		return "", false
	}
	cost := func(n int64) (int64, bool) {
		w, err := v.With(name, strconv.FormatInt(n, 10))
		if err != nil {
			return 0, false
		}
		return l.Cost(w), true
	}
	lo, hi := int64(sp.Min), v.Int(name)-1 // the answer is in [lo, hi], if anywhere
	if c, ok := cost(lo); hi < lo || !ok || c > budget {
		return "", false
	}
	for lo < hi {
		mid := lo + (hi-lo+1)/2
		if c, ok := cost(mid); ok && c <= budget {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo > int64(sp.Min) {
		return strconv.FormatInt(lo, 10) + " or less", true
	}
	return strconv.FormatInt(lo, 10), true
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

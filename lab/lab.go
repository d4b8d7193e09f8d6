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
	"math"
	"slices"
	"strconv"
	"time"

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

	// Cost estimates the work a scenario needs, in work units (see [Lab.CheckBudget]), checked
	// against the server's work budget before the run starts. CostParams names the
	// parameters that drive it, first the one to blame in an error. Cost must grow with each
	// of them (those of kind Int, Float or Duration are suggested a value that fits).
	Cost       func(param.Values) int64
	CostParams []string

	// CostBound, when set, is a cheap upper bound of Cost: a scenario it admits is admitted
	// without computing Cost, which may itself take a little simulation.
	CostBound func(param.Values) int64

	// Memory estimates the most memory, in bytes, a run of the scenario holds at once: its
	// big allocations (what grows with the parameters), checked against [MaxRunMemory] before
	// the run starts. MemoryParams names the parameters that drive it, first the one to
	// blame; Memory must grow with each of them.
	Memory       func(param.Values) int64
	MemoryParams []string

	// Light is a scenario of the lab (a query, "" for the defaults) that runs in milliseconds:
	// tests and load tools that run or sweep every lab move its parameters from it.
	// [NewRegistry] checks that it is a scenario of the lab.
	Light string

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
	err := l.Stream(ctx, v, func(u Update) {
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

// The budget. What runs is decided before it runs, by estimates that do not depend on the
// machine: a scenario runs when its estimated work fits the server's work budget and its
// estimated memory fits MaxRunMemory; the hub's limit on each run's CPU time is only a safety
// net under the estimates.
//
// A work unit is about the computing of one write attempt of the backoff lab, some 30–90 ns of
// CPU on the 2-core reference machine (12–100 ns across the three labs' heavy scenarios,
// measured by each lab's BenchmarkWorkUnit under load): every lab counts its work in those
// units as it runs, weighing what is heavier (a scan over a subset, a copy of a sliding log,
// an event that misses the CPU's caches), and estimates it within 2× of the count over its
// whole parameter space, extremes included (each lab's TestCostWithinTwice). So a budget of B
// units admits runs of at most about 2·B units, some 2·B·100 ns of CPU at worst, and measured
// here, at B = 2e8, up to ~15 CPU-s (README, "Speed"): the CPU limit should sit at least three
// times above what the budget admits (the defaults are api.DefaultBudget and
// api.DefaultMaxRunCPU).
//
// A refusal costs a few estimates: the value it suggests for a parameter comes from scaling
// it by how far the scenario is over (Cost grows at least about linearly with each cost
// parameter), then verifying the guess, and closing in when the value found fits well below
// one found over: at most FitEstimates estimates per parameter (TestCheckBudgetEstimates and
// the rate limiter's TestRefusalEstimates count them).
// Estimates run outside the hub's slots and CPU pacer, before any run: they are formulas or
// memoised pilots of a few milliseconds, except the rate limiter's pilot simulations (at most
// 2^20 units each, up to about a tenth of a second).

// MaxRunMemory is the most memory, in bytes, one run's estimate ([Lab.Memory]) may reach. With
// the hub's default of 8 runs at once (4 per CPU on 2 CPUs), runs hold at most 320 MiB
// between them, which keeps the server's peak resident memory under 512 MB whatever the
// requests, with the soft heap limit `playground serve` sets (measured: 404 MB after bursts of
// eight runs at the bound; README, "Speed"). A server allowed more runs at once needs a
// smaller bound per run, or more memory.
const MaxRunMemory = 40 << 20

// fitTries is the most estimates CheckBudget computes to find a value a parameter fits with,
// and fitCloser the most it computes more to close in on the largest.
const (
	fitTries  = 3
	fitCloser = 2
)

// FitEstimates is the most estimates a refusal computes for each parameter it tries.
const FitEstimates = fitTries + fitCloser

// CheckBudget returns a *param.Error when scenario v would need more than budget work units
// (budget ≤ 0: no limit on work) or more than MaxRunMemory bytes of memory. The error says
// which (both when both), and names the first cost (or memory) parameter that, lowered
// alone, would make the scenario fit both, with a value it would fit them with: a viewer who
// takes the suggestion is admitted, not sent from one refusal to the next.
func (l *Lab) CheckBudget(v param.Values, budget int64) error {
	if l.Cost == nil || budget <= 0 {
		budget = 0
	}
	var work, memory int64
	if budget > 0 && (l.CostBound == nil || l.CostBound(v) > budget) {
		work = l.Cost(v)
	}
	if l.Memory != nil {
		memory = l.Memory(v)
	}
	overWork, overMemory := budget > 0 && work > budget, memory > MaxRunMemory
	var msg string
	var names []string
	switch {
	case overWork:
		msg = fmt.Sprintf("this scenario needs about %.3g work units, more than the %.3g one run may use",
			float64(work), float64(budget))
		names = l.CostParams
		if overMemory {
			msg += fmt.Sprintf(", and about %s of memory, more than the %s one run may use",
				megabytes(memory), megabytes(MaxRunMemory))
			for _, name := range l.MemoryParams {
				if !slices.Contains(names, name) {
					names = append(slices.Clip(names), name)
				}
			}
		}
	case overMemory:
		msg = fmt.Sprintf("this scenario needs about %s of memory, more than the %s one run may use",
			megabytes(memory), megabytes(MaxRunMemory))
		names = l.MemoryParams
	default:
		return nil
	}
	// A candidate is weighed by its load: its estimate as a fraction of the limit, the larger
	// of the two fractions, so that the value suggested fits both.
	load := func(w param.Values) float64 {
		r := 0.0
		if l.Memory != nil {
			r = float64(l.Memory(w)) / MaxRunMemory
		}
		if r <= 1 && budget > 0 { // the work only when the memory fits: it is over anyway
			c := int64(-1)
			if l.CostBound != nil {
				if b := l.CostBound(w); b <= budget {
					c = b
				}
			}
			if c < 0 {
				c = l.Cost(w)
			}
			r = max(r, float64(c)/float64(budget))
		}
		return r
	}
	return l.refuse(v, names, load, max(float64(work)/float64(max(budget, 1)), float64(memory)/MaxRunMemory), msg+"; ")
}

// Stopped returns the error of scenario v, admitted but stopped by the hub's CPU safety net
// after share (0 to 1) of its work, msg saying so: like a refusal, it names the first cost
// parameter that, lowered alone, brings v's estimated work ([Lab.Cost]) to nine tenths of
// share of its own — what the CPU limit let it compute, with a margin — its memory within
// MaxRunMemory and the lab's rules kept, with the value that does; or, without an estimate
// to scale, the cost parameters to lower. So a safety-net stop says the same kind of thing,
// checked the same way, as a refusal before the run.
func (l *Lab) Stopped(v param.Values, share float64, msg string) error {
	msg += "; "
	if l.Cost == nil || share <= 0 || share >= 1 {
		return l.refuse(v, l.CostParams, nil, 0, msg)
	}
	allowed := 0.9 * share * float64(max(l.Cost(v), 1))
	load := func(w param.Values) float64 {
		r := 0.0
		if l.Memory != nil {
			r = float64(l.Memory(w)) / MaxRunMemory
		}
		return max(r, float64(l.Cost(w))/allowed)
	}
	return l.refuse(v, l.CostParams, load, 1/(0.9*share), msg)
}

// megabytes formats b bytes for a refusal: in MB, or GB or TB when there are thousands of them
// ("144 TB", not "1.44e+08 MB").
func megabytes(b int64) string {
	x, unit := float64(b)/1e6, "MB"
	for _, u := range []string{"GB", "TB"} {
		if x < 1000 {
			break
		}
		x, unit = x/1000, u
	}
	return fmt.Sprintf("%.3g %s", x, unit)
}

// refuse returns the error for scenario v, whose load c (its estimates as fractions of their
// limits, the larger) is over 1, msg saying by how much: it names the first of names that,
// lowered alone, brings the load to 1 or under, with the value that does, or (always, without
// a load) all of them; those already at their least are left out while any other remains.
// Parameters the scenario moved from their defaults come first (a viewer who moved the
// duration to a week is told what duration fits), then the others, each in the lab's order.
func (l *Lab) refuse(v param.Values, names []string, load func(param.Values) float64, c float64, msg string) error {
	def := l.Params.Defaults()
	moved := func(name string) bool {
		_, ok := l.Params.Lookup(name)
		return ok && v.Format(name) != def.Format(name)
	}
	names = slices.Clone(names)
	if can := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return !l.lowerable(v, n) }); len(can) > 0 {
		names = can // not "or lower clients" where clients is at its minimum
	}
	slices.SortStableFunc(names, func(a, b string) int {
		switch ma, mb := moved(a), moved(b); {
		case ma && !mb:
			return -1
		case mb && !ma:
			return 1
		}
		return 0
	})
	for i, name := range names {
		if load == nil {
			break
		}
		if fit, less, ok := l.fit(v, name, load, c); ok {
			others := slices.Delete(slices.Clone(names), i, i+1)
			msg += fmt.Sprintf("lower %s to %s", name, fit)
			if less {
				msg += " or less"
			}
			if len(others) > 0 {
				msg += " (or lower " + orList(others) + ")"
			}
			return &param.Error{Param: name, Msg: msg, Fit: fit}
		}
	}
	name := ""
	if len(names) > 0 {
		name = names[0]
	}
	return &param.Error{Param: name, Msg: msg + "lower " + orList(names)}
}

// lowerable reports whether parameter name of v can be lowered: a number above its minimum, a
// list of more than one choice, a sweep that is on; a parameter of any other kind can be.
func (l *Lab) lowerable(v param.Values, name string) bool {
	sp, ok := l.Params.Lookup(name)
	if !ok {
		return false
	}
	switch sp.Kind {
	case param.Int:
		return float64(v.Int(name)) > sp.Min
	case param.Float:
		return v.Float(name) > sp.Min
	case param.Duration:
		return float64(v.Duration(name))/1e6 > sp.Min
	case param.EnumList:
		return len(v.List(name)) > 1
	case param.IntRange:
		return !v.Range(name).Off
	}
	return true
}

// fit returns a value of numeric parameter name, below its value in v, with which the load of
// v (c, over 1) comes to 1 or under, in its URL form, and whether smaller values than it (it
// is not the minimum) fit too; or false. The load is taken to grow with
// the parameter, at least about linearly: the first guess scales the value down by how far v
// is over, and each load computed refines the growth's exponent from the two latest points,
// at most fitTries loads in all, then up to fitCloser more between the largest value found to
// fit and the least found over. It returns the largest value found to fit, or the
// parameter's minimum when the guesses did not fit and the minimum does, which the last try
// checks; a value the lab's rules across parameters refuse (backends below the subset size)
// ends the search.
func (l *Lab) fit(v param.Values, name string, load func(param.Values) float64, c float64) (value string, less, ok bool) {
	sp, ok := l.Params.Lookup(name)
	if !ok {
		return "", false, false
	}
	var x float64 // the value, in the parameter's unit
	switch sp.Kind {
	case param.Int:
		x = float64(v.Int(name))
	case param.Float:
		x = v.Float(name)
	case param.Duration:
		x = float64(v.Duration(name)) / 1e6
	default:
		return "", false, false
	}
	top := x
	exp := 1.0
	best, bestRaw := math.Inf(-1), ""
	over, overLoad, bestLoad := top, c, 0.0 // the least value found over, and the loads
	// try computes the load at y and keeps y as the largest value found to fit or the least
	// found over; it returns the load, or false when y is no value of the parameter or breaks
	// the lab's rules (no suggestion, then).
	try := func(y float64) (float64, bool) {
		raw := formatParam(sp, y)
		w, err := v.With(name, raw)
		if err != nil || l.check(w) != nil {
			return 0, false
		}
		cy := load(w)
		if cy <= 1 {
			best, bestRaw, bestLoad = y, raw, cy
		} else if y < over {
			over, overLoad = y, cy
		}
		return cy, true
	}
	for i := range fitTries {
		aim := 1.0
		if i > 0 && c > 1 {
			aim = 0.95 // a guess was over: aim a little below
		}
		y := x * math.Pow(aim/c, 1/exp)
		if i == fitTries-1 && bestRaw == "" {
			y = sp.Min // the last try: does anything fit?
		}
		y = max(floorToStep(sp, min(y, top)), sp.Min)
		if y >= top || y <= best {
			break
		}
		cy, ok := try(y)
		if !ok {
			break
		}
		if cy > 0 && c > 0 && y != x {
			exp = min(max(math.Log(c/cy)/math.Log(x/y), 0.25), 4)
		}
		x, c = y, cy
	}
	// Closing in: "lower clients to 16 or less" must not be said where 44 fits. While the
	// value found is more than a tenth under the least found over (the load grew unlike a
	// power of the parameter, a part of it not scaling with it), aim between them where the
	// power through their two loads reaches 0.97 (or, when that falls outside, at their
	// geometric mean).
	for range fitCloser {
		if bestRaw == "" || over <= best*1.1 || bestLoad <= 0 {
			break
		}
		y := best * math.Pow(0.97/bestLoad, math.Log(over/best)/math.Log(overLoad/bestLoad))
		if y = floorToStep(sp, y); !(y > best && y < over) {
			y = floorToStep(sp, math.Sqrt(best*over))
		}
		if y <= best || y >= over {
			break
		}
		if _, ok := try(y); !ok {
			break
		}
	}
	if bestRaw == "" {
		return "", false, false
	}
	return bestRaw, best > sp.Min, true
}

// floorToStep rounds y down to the parameter's grid: whole numbers for Int, multiples of Step
// above Min otherwise (whole milliseconds for a Duration without one).
func floorToStep(sp param.Spec, y float64) float64 {
	switch {
	case sp.Kind == param.Int:
		return math.Floor(y * (1 + 1e-9))
	case sp.Step > 0:
		return sp.Min + math.Floor((y-sp.Min)/sp.Step*(1+1e-9))*sp.Step
	case sp.Kind == param.Duration:
		return math.Floor(y * (1 + 1e-9))
	}
	return y
}

// formatParam writes value y of parameter sp in URL form.
func formatParam(sp param.Spec, y float64) string {
	switch sp.Kind {
	case param.Int:
		return strconv.FormatInt(int64(y), 10)
	case param.Duration:
		return param.FormatDuration(time.Duration(math.Round(y * 1e6)))
	}
	decimals := 0
	if sp.Step > 0 && sp.Step < 1 {
		decimals = int(math.Ceil(-math.Log10(sp.Step) - 1e-9))
	}
	return strconv.FormatFloat(y, 'f', decimals, 64)
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

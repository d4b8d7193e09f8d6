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

	"github.com/resilience-playground/playground/param"
)

// Lab is one page of the playground.
type Lab struct {
	Name   string    // URL path segment: /{Name}, /api/v1/{Name}
	Title  string    // page title
	Short  string    // its name in the site's navigation, a few words ("Retry storms"); see [Lab.NavName]
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
	// Rules says in words each rule Check enforces, with the parameters its error names, for
	// the generated parameter reference (playground help -format markdown): the one place a
	// rule is described. [NewRegistry] refuses a Check without Rules, and
	// labtest.CheckRules fails on a rule Check enforces that no Rule declares.
	Rules []Rule

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

	// RefusedEnds names the ends of sliders ("duration=168h") that the work or memory budget
	// refuses while every other parameter is at its default: ranges a lab declares wider than
	// a run at the defaults may go, so that a lighter scenario can go that far (a week of
	// slow traffic, three layers of retries). The page offers them; the refusal says what
	// fits. Tests that run every slider end expect exactly these to be refused.
	RefusedEnds []string

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

// NavName is the lab's name in the site's navigation: Short, or the Title when it is short
// enough (NewRegistry refuses a lab with neither: four long titles wrapped the navigation over
// three lines and pushed the charts off the first screen).
func (l *Lab) NavName() string {
	if l.Short != "" {
		return l.Short
	}
	return l.Title
}

// maxNavName is the longest a lab's name in the navigation may be, in bytes.
const maxNavName = 24

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

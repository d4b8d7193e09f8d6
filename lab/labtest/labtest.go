// Package labtest holds what tests of labs and of the layer above them share. Gated is a lab
// whose runs go exactly as far as the test lets them, so that the hub, the API, streams and
// shutdown — cancellation, draining, sharing, busy servers — are tested deterministically,
// without relying on how long a real simulation takes. The checks every lab's tests call hold
// each lab to the contract: CheckView (its runs fill its view, with units and styles that
// agree), CheckMemoKey and CheckOptions (caches keyed by the canonical URL, option tables),
// CheckQuotes (every figure a tour states is measured by its scenario), the work and memory
// estimates against real runs (CheckMemory, CheckMemoryCorners over a Grid of Admitted corners),
// and progressive runs (CheckPreempted, CheckCoarseFirst).
package labtest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Params declares the gated lab's parameters.
//
//	n      the value every point of the run's series carries (and its estimated cost)
//	steps  updates a run emits, each after one step of its gate
//	pause  wall time before each update after the first, when the lab is not gated
//	hold   when true, the run emits its first update and then waits until it is cancelled
//	linger wall time a cancelled run takes to stop, as a simulation between its checks does
//	picture when positive, updates from this one on report a refinement (Update.Refine): the
//	       results so far form a complete picture (for a lab made Progressive)
//	panic  "cost" or "run" make the lab panic there, for testing recovery
//	stop   when positive, the run ends with an error after that many updates, as one the
//	       hub's CPU limit stops partway does, naming stop and the value that runs (0)
var Params = param.Set{
	{Name: "n", Label: "n", Kind: param.Int, Default: "1", Min: 0, Max: 1e9, Step: 1, Help: "Value of every point."},
	{Name: "steps", Label: "Steps", Kind: param.Int, Default: "3", Min: 1, Max: 1000, Step: 1, Help: "Updates per run."},
	{Name: "pause", Label: "Pause", Kind: param.Duration, Default: "0s", Min: 0, Max: 60000, Step: 1, Unit: "ms", Help: "Wall time between updates."},
	{Name: "hold", Label: "Hold", Kind: param.Bool, Default: "false", Help: "Wait for cancellation after the first update."},
	{Name: "linger", Label: "Linger", Kind: param.Duration, Default: "0s", Min: 0, Max: 60000, Step: 1, Unit: "ms", Help: "Wall time a cancelled run takes to stop."},
	{Name: "picture", Label: "Picture", Kind: param.Int, Default: "0", Min: 0, Max: 1000, Step: 1, Help: "First update that is a complete picture."},
	{Name: "panic", Label: "Panic", Kind: param.Enum, Default: "none", Options: []string{"none", "cost", "run"}, OptionLabels: []string{"None", "In Cost", "In Run"}, Help: "Where to panic."},
	{Name: "stop", Label: "Stop", Kind: param.Int, Default: "0", Min: 0, Max: 1000, Step: 1, Help: "Updates after which the run is stopped with an error (0: never)."},
}

// Gated is a lab whose runs advance one update per step of a gate the test controls, one gate
// per scenario. Its result depends only on its parameters, like a real lab's.
type Gated struct {
	Lab *lab.Lab

	gated   bool
	mu      sync.Mutex
	gates   map[string]chan struct{} // by canonical URL: one token per update
	started chan string              // the URL of each run as it starts
	runs    atomic.Int32
	running atomic.Int32
}

// NewGated returns a lab named name. When gated is false its runs never wait for a step (but
// pause and hold still apply).
func NewGated(name string, gated bool) *Gated {
	g := &Gated{gated: gated, gates: map[string]chan struct{}{}, started: make(chan string, 1024)}
	g.Lab = &lab.Lab{
		Name:   name,
		Title:  "Gated test lab",
		Intro:  "A lab for tests: its runs advance only when the test lets them.",
		Params: Params,
		View: lab.View{Charts: []lab.Chart{{ID: "points", Title: "Points", XLabel: "step", YLabel: "n"}},
			Tables: []lab.Table{{ID: "summary", Title: "Summary", Key: "last", Rows: lab.ListRows,
				Columns: []lab.Column{{Field: "step", Label: "step"}, {Field: "n", Label: "n"}}}}},
		Cost: func(v param.Values) int64 {
			if v.String("panic") == "cost" {
				panic("labtest: panic in Cost, as asked")
			}
			return v.Int("n")
		},
		CostParams: []string{"n"},
		Run:        g.run,
		Tours: []lab.Tour{{Name: "intro", Title: "A tour for tests", Steps: []lab.Step{
			{Title: "Defaults", URL: "/" + name, Text: "The default scenario."},
			{Title: "Five", URL: "/" + name + "?n=5&steps=4", Text: "Five points in four steps."},
			{Title: "Guess", URL: "/" + name + "?n=3", Question: "How many points?", Explanation: "Three.",
				Answer: &lab.Answer{Options: []lab.Choice{{ID: "two", Label: "Two"}, {ID: "three", Label: "Three"}, {ID: "four", Label: "Four"}}, Truth: "three"}, Gives: []string{"three"}},
			{Title: "Estimate", URL: "/" + name + "?n=7", Question: "How many points now?", Explanation: "Seven.",
				Answer: &lab.Answer{Unit: "points", Min: 0, Max: 20, Step: 1, Truth: "7"}, Gives: []string{"seven"}},
		}}},
	}
	return g
}

func (g *Gated) run(ctx context.Context, v param.Values, emit func(lab.Update)) (err error) {
	g.runs.Add(1)
	g.running.Add(1)
	defer g.running.Add(-1)
	defer func() {
		if err != nil {
			time.Sleep(v.Duration("linger"))
		}
	}()
	url := g.Lab.URL(v)
	select {
	case g.started <- url:
	default: // nobody is counting
	}
	if v.String("panic") == "run" {
		panic("labtest: panic in Run, as asked")
	}
	n, steps, pause := float64(v.Int("n")), v.Int("steps"), v.Duration("pause")
	for i := range steps {
		if err := g.wait(ctx, url, i > 0, pause); err != nil {
			return err
		}
		u := lab.Update{
			Progress: &lab.Progress{Done: i + 1, Total: steps, Stage: "steps"},
			Summary:  map[string]any{"last": []map[string]float64{{"step": float64(i), "n": n}}},
			Series:   []lab.Series{{Name: "points", Chart: "points", Label: "n", XUnit: "step", YUnit: "n", X: []float64{float64(i)}, Y: []float64{n}, Append: true}},
		}
		if p := v.Int("picture"); p > 0 && i+1 >= p {
			u.Refine = &lab.Refinement{Done: i + 1, Total: steps, Unit: "steps"}
		}
		emit(u)
		if k := v.Int("stop"); k > 0 && i+1 >= k {
			return &param.Error{Param: "stop", Msg: fmt.Sprintf("this run was stopped after %d of its %d updates, as asked; set stop to 0", i+1, steps), Fit: "0"}
		}
		if v.Bool("hold") {
			<-ctx.Done()
			return ctx.Err()
		}
	}
	return nil
}

// wait waits for the next update's turn: a step of the scenario's gate when gated, else the
// pause (after the first update).
func (g *Gated) wait(ctx context.Context, url string, later bool, pause time.Duration) error {
	var turn <-chan struct{}
	switch {
	case g.gated:
		turn = g.gate(url)
	case later && pause > 0:
		t := time.NewTimer(pause)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	default:
		return ctx.Err()
	}
	select {
	case <-turn:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *Gated) gate(url string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.gates[url]
	if !ok {
		c = make(chan struct{})
		g.gates[url] = c
	}
	return c
}

// Step lets k updates of the run of scenario query (a query of the lab's parameters) through,
// waiting until the run has taken them.
func (g *Gated) Step(ctx context.Context, query string, k int) error {
	v, err := g.Lab.Parse(query)
	if err != nil {
		return err
	}
	gate := g.gate(g.Lab.URL(v))
	for i := range k {
		select {
		case gate <- struct{}{}:
		case <-ctx.Done():
			return fmt.Errorf("labtest: %d of %d steps of %s taken: %w", i, k, g.Lab.URL(v), ctx.Err())
		}
	}
	return nil
}

// Started waits until a run starts and returns its URL.
func (g *Gated) Started(ctx context.Context) (string, error) {
	select {
	case u := <-g.started:
		return u, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// Runs returns how many runs have started.
func (g *Gated) Runs() int { return int(g.runs.Load()) }

// Running returns how many runs are executing the lab's code now.
func (g *Gated) Running() int { return int(g.running.Load()) }

// MustRun runs the scenario of a URL query on l to its final result, failing tb on a bad query
// or a failed run. Labs' tests share it.
func MustRun(tb testing.TB, l *lab.Lab, query string) *lab.Result {
	tb.Helper()
	v, err := l.Parse(query)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := l.Execute(context.Background(), v, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

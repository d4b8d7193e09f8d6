package api

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Defaults for a server's hub (see `playground serve`).
//
// Whether a run is admitted is decided before it starts, deterministically, by its estimated
// work (lab.Lab.Cost) against DefaultBudget. The CPU limit is only the safety net under the
// estimates: it stops a run whose estimate was wrong by far, and is never what decides for a
// run the estimates admit. It is therefore derived from the budget, with a margin of three
// over the most CPU an admitted run can use on the reference machine.
const (
	// DefaultBudget is the most work units (lab.Lab.Cost: each lab counts the work its
	// simulations do, weighing heavier operations, so that a unit is about the same CPU in
	// every lab) one run may need.
	DefaultBudget = 200_000_000
	// unitCPU is a ceiling on the CPU time one estimated work unit takes, in any lab, on the
	// 2-core reference machine while it is busy with other work: BenchmarkWorkUnit in each lab
	// measures 12–97 ns, and TestEverySliderEnd and TestHeaviestAdmittedFinishes log it for
	// every slider end and for each lab's heaviest admitted scenario.
	unitCPU = 100 * time.Nanosecond
	// DefaultMaxRunCPU is the most computing time one run may use before it is stopped: three
	// times what a run at the full budget takes at unitCPU (60 s), so that no run the budget
	// admits comes near it. On the busy reference machine the heaviest admitted runs compute
	// for 10–14.4 CPU-seconds (the rate limiter's sliding log on a racy store of 16 instances;
	// backoff at clients=1000&trials=420; load balancing at clients=3000&duration=100s) and
	// the heaviest slider end, /backoff?trials=1000, for 8.7–9.3: a margin of four or more.
	DefaultMaxRunCPU = 3 * DefaultBudget * unitCPU
)

// MaxRunCPUFor is the CPU safety net for a work budget: three times what a run at the full
// budget takes at the reference machine's ceiling per unit (DefaultMaxRunCPU for
// DefaultBudget). A budget of 0 (no limit on work) has no limit on CPU either.
func MaxRunCPUFor(budget int64) time.Duration { return time.Duration(3*budget) * unitCPU }

// BudgetFor is the work budget a CPU safety net of cpu is for: the inverse of MaxRunCPUFor, so
// that no run the budget admits comes near the net. A net of 0 (none) has no limit on work.
func BudgetFor(cpu time.Duration) int64 { return int64(cpu / (3 * unitCPU)) }

// Resolve finds the lab and scenario a URL names: a page URL (/backoff?...), an API URL
// (/api/v1/backoff?...) or either with scheme and host. Errors are *param.Error or errNotFound.
func Resolve(labs *lab.Registry, raw string) (*lab.Lab, param.Values, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, param.Values{}, &param.Error{Msg: fmt.Sprintf("the URL is malformed: %v", err)}
	}
	if strings.ContainsAny(u.Fragment, "?=&") {
		// '/backoff#frag?x=1': what looks like a query is part of the fragment, and would
		// be silently ignored.
		return nil, param.Values{}, &param.Error{Msg: fmt.Sprintf(
			"the URL's fragment %q holds what looks like a query; put the query (?...) before any #", clip(u.Fragment))}
	}
	name := strings.TrimPrefix(strings.TrimPrefix(u.Path, "/api/v1"), "/")
	name = strings.TrimPrefix(name, "embed/")
	l, ok := labs.Lookup(name)
	if !ok {
		var names []string
		for _, l := range labs.All() {
			names = append(names, "/"+l.Name)
		}
		return nil, param.Values{}, fmt.Errorf("%w: no lab at %q; labs are %s", errNotFound, u.Path, strings.Join(names, ", "))
	}
	v, err := l.Parse(u.RawQuery)
	if err != nil {
		return nil, param.Values{}, err
	}
	return l, v, nil
}

// RunURL runs the scenario a URL names, within budget, and returns its whole result: the same
// result the JSON API gives for that URL.
func RunURL(ctx context.Context, labs *lab.Registry, raw string, budget int64, observe func(lab.Update)) (*lab.Result, error) {
	l, v, err := Resolve(labs, raw)
	if err != nil {
		return nil, err
	}
	if err := l.CheckBudget(v, budget); err != nil {
		return nil, err
	}
	return l.Execute(ctx, v, observe)
}

// ExitCode is the CLI's exit status for err: 0 for nil, 2 for bad input, 1 otherwise.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	if code, _ := statusOf(err); code == 400 || code == 404 {
		return 2
	}
	return 1
}

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
const (
	// DefaultBudget is the most simulated events (as a lab estimates them) one run may need:
	// about ten seconds of one CPU.
	DefaultBudget = 200_000_000
	// DefaultMaxRunCPU is the most computing time one run may use before it is stopped: the
	// safety net under the estimates, and the most CPU the heaviest URL the bounds allow can
	// hold a slot for. The heaviest slider end, /backoff?trials=1000, computes for about 7.4
	// CPU-seconds on the 2-core reference machine (TestEverySliderEnd runs it under this limit).
	DefaultMaxRunCPU = 10 * time.Second
)

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

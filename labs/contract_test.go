package labs_test

import (
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/labs"
)

// TestEveryLabKeepsTheContract holds every registered lab to what the playground needs of a
// lab, so that a new lab is checked by its registry line alone: every parameter has a label
// and a help text; the cost and memory parameters it names exist; and its runs fill its view
// (labtest.CheckView: no run leaves a chart empty without saying why, and between them they
// fill every chart and table) — over its light scenario, the same with each chart's sweep turned on
// (param.Spec.On), and every step of its tours, each of which the server's default budget
// admits (not under the race detector, which slows these
// runs tenfold: .ci/run runs the test again without it).
func TestEveryLabKeepsTheContract(t *testing.T) {
	t.Parallel() // beside the package's other heavy tests
	if testing.Short() {
		t.Skip("runs every lab's tours")
	}
	for _, l := range labs.Registry().All() {
		t.Run(l.Name, func(t *testing.T) {
			for _, sp := range l.Params {
				if strings.TrimSpace(sp.Label) == "" || strings.TrimSpace(sp.Help) == "" {
					t.Errorf("%s: a parameter needs a label and a help text (label %q, help %q)", sp.Name, sp.Label, sp.Help)
				}
			}
			for what, names := range map[string][]string{"cost": l.CostParams, "memory": l.MemoryParams} {
				for _, n := range names {
					if _, ok := l.Params.Lookup(n); !ok {
						t.Errorf("%s parameter %q is no parameter of the lab", what, n)
					}
				}
			}
			if l.Cost != nil && len(l.CostParams) == 0 || l.Memory != nil && len(l.MemoryParams) == 0 {
				t.Errorf("an estimate without the parameters that drive it: a refusal could name none")
			}
			labtest.CheckRules(t, l)
			// Every tour step runs within the server's default budget (its scenario is valid and
			// canonical: the registry checks that when it is built).
			for _, tour := range l.Tours {
				for i, s := range tour.Steps {
					_, q, _ := strings.Cut(s.URL, "?")
					if v, err := l.Parse(q); err != nil {
						t.Errorf("tour %s step %d (%s): %v", tour.Name, i+1, s.URL, err)
					} else if err := l.CheckBudget(v, api.DefaultBudget); err != nil {
						t.Errorf("tour %s step %d (%s): %v", tour.Name, i+1, s.URL, err)
					}
				}
			}
			heavy.Test(t)
			labtest.CheckView(t, l, viewScenarios(t, l)...)
		})
	}
}

// viewScenarios are the scenarios whose runs should fill l's view between them.
func viewScenarios(t *testing.T, l *lab.Lab) []string {
	qs := []string{l.Light}
	on, err := url.ParseQuery(l.Light)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range l.View.Charts {
		if sp, ok := l.Params.Lookup(c.Needs); ok && c.Needs != "" {
			on.Set(sp.Name, sp.On)
		}
	}
	qs = append(qs, on.Encode())
	for _, tour := range l.Tours {
		for _, s := range tour.Steps {
			_, q, _ := strings.Cut(s.URL, "?")
			if !slices.Contains(qs, q) {
				qs = append(qs, q)
			}
		}
	}
	return qs
}

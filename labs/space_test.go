package labs_test

import (
	"context"
	"math/rand/v2"
	"net/url"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/internal/loadtest"
	"github.com/resilience-playground/playground/labs"
)

// spaceBudget is the most work, in units, a scenario of TestEveryUpdateSendable may take: a
// few hundredths of a CPU-second, so that hundreds of scenarios run in seconds.
const spaceBudget = 3e6

// TestEveryUpdateSendable runs scenarios across every lab's parameter space — each parameter
// moved alone to each of its positions (extremes included) from a cheap scenario, then random
// combinations of positions — and checks every update of each run, the coarse ones included,
// can be sent ([lab.Lab.Stream] ends a run with lab.ErrBadUpdate otherwise: a NaN or an
// infinity in a chart or a summary, which once closed live streams with "internal error").
// Scenarios over a small budget are skipped; the test counts what it ran.
func TestEveryUpdateSendable(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests
	heavy.Test(t) // hundreds of scenarios
	const combos = 150
	rng := rand.New(rand.NewPCG(1, 2))
	for _, l := range labs.Registry().All() {
		t.Run(l.Name, func(t *testing.T) {
			base, err := url.ParseQuery(l.Light)
			if err != nil {
				t.Fatal(err)
			}
			var queries []url.Values
			positions := map[string][]string{}
			for _, s := range l.Params {
				positions[s.Name] = loadtest.Positions(s, s.Default, 6, 2)
				for _, p := range positions[s.Name] {
					q := cloneQuery(base)
					q.Set(s.Name, p)
					queries = append(queries, q)
				}
			}
			for range combos {
				q := cloneQuery(base)
				for _, s := range l.Params {
					if rng.IntN(3) == 0 {
						ps := positions[s.Name]
						q.Set(s.Name, ps[rng.IntN(len(ps))])
					}
				}
				queries = append(queries, q)
			}
			ran, over, invalid := 0, 0, 0
			for _, q := range queries {
				v, err := l.Parse(q.Encode())
				if err != nil {
					invalid++ // e.g. a combination the lab's rules refuse
					continue
				}
				if l.CheckBudget(v, spaceBudget) != nil {
					over++
					continue
				}
				if _, err := l.Execute(context.Background(), v, nil); err != nil {
					t.Errorf("%s: %v", l.URL(v), err)
				}
				ran++
			}
			t.Logf("%d scenarios ran, %d over the budget, %d refused by the lab's rules", ran, over, invalid)
			if ran < len(queries)/2 {
				t.Errorf("only %d of %d scenarios ran", ran, len(queries))
			}
		})
	}
}

func cloneQuery(q url.Values) url.Values {
	out := url.Values{}
	for k, v := range q {
		out[k] = append([]string(nil), v...)
	}
	return out
}

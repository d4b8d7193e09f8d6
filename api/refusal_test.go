package api_test

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestRefusalSuggestionAdmitted: a refusal's suggestion is one a viewer can take. For every
// lab, from the defaults with each cost or memory parameter at its largest, each pair of them
// and all of them (scenarios the lab's rules across parameters refuse are left out), every
// scenario the budget refuses must name a parameter and a value of it ("lower clients to 340
// or less") with which the scenario is admitted — by the work budget and the memory bound
// alike, whichever of them the refusal was about — and not far below the largest that is: a
// quarter more is refused. (A suggestion that fitted the work but not the memory sent a viewer
// from one refusal to another; one from three estimates said "lower limit to 274" where 897
// fits.)
func TestRefusalSuggestionAdmitted(t *testing.T) {
	heavy.Test(t) // runs each lab's suggested scenarios at the budget
	srv := MustOpenServer(t)
	for _, l := range srv.Labs.All() {
		if l.Cost == nil && l.Memory == nil {
			continue
		}
		var names []string
		for _, name := range append(slices.Clone(l.CostParams), l.MemoryParams...) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		var sets [][]string
		for i := range names {
			sets = append(sets, names[i:i+1])
			for j := i + 1; j < len(names); j++ {
				sets = append(sets, []string{names[i], names[j]})
			}
		}
		sets = append(sets, names)
		refused, suggested := 0, 0
		for _, set := range sets {
			v := l.Params.Defaults()
			for _, name := range set {
				sp, _ := l.Params.Lookup(name)
				if w, err := v.With(name, largest(sp)); err == nil {
					v = w
				}
			}
			if _, err := l.Parse(v.Encode()); err != nil {
				continue // a rule across parameters (subset ≤ backends)
			}
			err := l.CheckBudget(v, api.DefaultBudget)
			if err == nil {
				continue
			}
			refused++
			if !strings.Contains(err.Error(), " to ") {
				// No value: then no parameter, alone at its least, makes the scenario fit.
				for _, name := range names {
					sp, _ := l.Params.Lookup(name)
					if sp.Kind != param.Int && sp.Kind != param.Float && sp.Kind != param.Duration {
						continue
					}
					w, err := v.With(name, least(sp))
					if err != nil {
						t.Fatal(err)
					}
					if _, err := l.Parse(w.Encode()); err == nil && l.CheckBudget(w, api.DefaultBudget) == nil {
						t.Errorf("%s: refused with no value to lower a parameter to, but %s=%s is admitted", l.URL(v), name, least(sp))
					}
				}
				continue
			}
			suggested++
			w, ferr := fitted(t, l, v, err)
			if ferr != nil {
				t.Errorf("%s: %v", l.URL(v), ferr)
				continue
			}
			// Not far below the largest that fits: a quarter more (when below the value
			// refused) is refused, so that "lower clients to 16 or less" is not said where 44
			// fits.
			name := err.(*param.Error).Param
			if more, ok := quarterMore(l, v, w, name); ok && l.CheckBudget(more, api.DefaultBudget) == nil {
				t.Errorf("%s: suggested %s=%s, but %s=%s, a quarter more, is admitted too", l.URL(v), name, w.Format(name), name, more.Format(name))
			}
		}
		t.Logf("%s: %d of %d scenarios refused, %d with a suggestion, which is admitted", l.Name, refused, len(sets), suggested)
		if refused == 0 {
			t.Errorf("%s: nothing refused: the grid does not reach the budget", l.Name)
		}
	}
}

// least is the smallest value of a numeric parameter as a URL writes it.
func least(sp param.Spec) string {
	return sp.Format(sp.Min)
}

// quarterMore returns w with its value of the numeric parameter name a quarter larger, when
// that is still below v's (the value refused) and keeps the lab's rules.
func quarterMore(l *lab.Lab, v, w param.Values, name string) (param.Values, bool) {
	sp, _ := l.Params.Lookup(name)
	var raw string
	switch sp.Kind {
	case param.Int:
		n := w.Int(name) * 5 / 4
		if n <= w.Int(name) || n >= v.Int(name) {
			return w, false
		}
		raw = strconv.FormatInt(n, 10)
	case param.Float:
		x := w.Float(name) * 1.25
		if x >= v.Float(name) {
			return w, false
		}
		raw = strconv.FormatFloat(x, 'f', -1, 64)
	case param.Duration:
		d := w.Duration(name) * 5 / 4
		if d >= v.Duration(name) {
			return w, false
		}
		raw = param.FormatDuration(d)
	default:
		return w, false
	}
	more, err := w.With(name, raw)
	if err != nil {
		return w, false
	}
	if _, err := l.Parse(more.Encode()); err != nil {
		return w, false
	}
	return more, true
}

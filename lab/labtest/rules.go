package labtest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// CheckRules holds l's rules across parameters in words (lab.Lab.Rules) to the rules its
// Check enforces, so that the parameter reference, generated from the Rules, cannot drift
// from the code: each Rule's Breaks is refused with an error naming the Rule's Params; and,
// moving every pair of parameters to the values their controls offer (the ends of a number,
// every option, a sweep off and on), Check refuses nothing with an error whose parameters no
// Rule declares.
func CheckRules(tb testing.TB, l *lab.Lab) {
	tb.Helper()
	for _, p := range ruleProblems(l) {
		tb.Error(p)
	}
}

// ruleProblems returns what CheckRules reports.
func ruleProblems(l *lab.Lab) []string {
	var problems []string
	errorf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	if l.Check == nil {
		if len(l.Rules) > 0 {
			errorf("%s declares rules but has no Check to enforce them", l.Name)
		}
		return problems
	}
	type setting struct{ name, value string }
	var settings []setting
	for _, sp := range l.Params {
		for _, v := range offered(sp) {
			settings = append(settings, setting{sp.Name, v})
		}
	}
	for _, r := range l.Rules {
		v, err := l.Params.ParseQuery(r.Breaks)
		if err != nil {
			errorf("%s: rule %q: its Breaks %q is no scenario: %v", l.Name, r.Text, r.Breaks, err)
			continue
		}
		var pe *param.Error
		if err := l.Check(v); !errors.As(err, &pe) || !slices.Equal(pe.Params, r.Params) {
			errorf("%s: rule %q: Check of %q = %v, want an error naming %s", l.Name, r.Text, r.Breaks, err, strings.Join(r.Params, ", "))
		}
	}
	undeclared := map[string]string{} // parameters of an undeclared rule → a query breaking it
	for i, a := range settings {
		for _, b := range settings[i+1:] {
			if a.name == b.name {
				continue
			}
			q := a.name + "=" + a.value + "&" + b.name + "=" + b.value
			v, err := l.Params.ParseQuery(q)
			if err != nil {
				continue // a value its declaration alone refuses (none is offered)
			}
			err = l.Check(v)
			if err == nil {
				continue
			}
			var pe *param.Error
			if !errors.As(err, &pe) {
				errorf("%s?%s: Check's error is not a lab.Relation: %v", l.Name, q, err)
				continue
			}
			if !slices.ContainsFunc(l.Rules, func(r lab.Rule) bool { return slices.Equal(r.Params, pe.Params) }) {
				undeclared[strings.Join(pe.Params, ", ")] = q
			}
		}
	}
	for ps, q := range undeclared {
		errorf("%s: Check enforces a rule across %s (e.g. ?%s) that no lab.Rule declares", l.Name, ps, q)
	}
	slices.Sort(problems)
	return problems
}

// offered returns the values the page offers for sp: its default, a number's ends, every
// option, a sweep off and on.
func offered(sp param.Spec) []string {
	vs := []string{sp.Default}
	switch sp.Kind {
	case param.Int, param.Float, param.Duration:
		vs = append(vs, sp.Format(sp.Min), sp.Format(sp.Max))
	case param.Enum, param.EnumList:
		vs = append(vs, sp.Options...)
	case param.Bool:
		vs = append(vs, "true", "false")
	case param.IntRange:
		vs = append(vs, "off")
		if sp.On != "" {
			vs = append(vs, sp.On)
		} else {
			step := max(1, math.Ceil((sp.Max-sp.Min)/float64(max(sp.MaxLen-1, 1))))
			vs = append(vs, fmt.Sprintf("%g:%g:%g", sp.Min, sp.Max, step))
		}
	}
	return vs
}

package lab

import (
	"fmt"
	"strings"

	"github.com/resilience-playground/playground/param"
)

// Registry is the ordered set of labs a server offers.
type Registry struct {
	labs []*Lab
}

// NewRegistry returns a registry of labs in the given order. It panics on a duplicate name, a
// lab whose parameter defaults are invalid or break its rules across parameters, a view that
// names what does not exist ([View.Check]), an option without a label ([Lab.CheckLabels]), a light scenario ([Lab.Light]) that is none of the lab's, a short name missing or too long for the navigation, or a tour step that is not a valid scenario, which
// are programming errors.
func NewRegistry(labs ...*Lab) *Registry {
	r := &Registry{}
	for _, l := range labs {
		if _, ok := r.Lookup(l.Name); ok {
			panic(fmt.Sprintf("lab: %q registered twice", l.Name))
		}
		if err := l.check(l.Params.Defaults()); err != nil {
			panic(fmt.Sprintf("lab %s: the defaults break a rule: %v", l.Name, err))
		}
		if err := l.checkRules(); err != nil {
			panic(fmt.Sprintf("lab %s: %v", l.Name, err))
		}
		if err := l.View.Check(l.Params); err != nil {
			panic(fmt.Sprintf("lab %s: view: %v", l.Name, err))
		}
		if err := l.CheckTours(); err != nil {
			panic(err.Error())
		}
		if err := l.CheckLabels(); err != nil {
			panic(err.Error())
		}
		if n := l.NavName(); n == "" || len(n) > maxNavName {
			panic(fmt.Sprintf("lab %s: its name in the navigation, %q (Short, or else Title), needs 1 to %d bytes", l.Name, n, maxNavName))
		}
		if _, err := l.Parse(l.Light); err != nil {
			panic(fmt.Sprintf("lab %s: its light scenario %q: %v", l.Name, l.Light, err))
		}
		r.labs = append(r.labs, l)
	}
	return r
}

// Lookup returns the lab named name.
func (r *Registry) Lookup(name string) (*Lab, bool) {
	for _, l := range r.labs {
		if l.Name == name {
			return l, true
		}
	}
	return nil, false
}

// All returns the labs in order.
func (r *Registry) All() []*Lab { return r.labs }

// CheckLabels reports the first choice of an enum parameter that has no label of its own: each
// of a parameter's Options needs an OptionLabel, non-empty and distinct from the parameter's
// other labels, so that the page never shows a name such as fixed_window where people read.
func (l *Lab) CheckLabels() error {
	for _, sp := range l.Params {
		if sp.Kind != param.Enum && sp.Kind != param.EnumList {
			continue
		}
		if len(sp.OptionLabels) != len(sp.Options) {
			return fmt.Errorf("lab %s: %s has %d options and %d labels", l.Name, sp.Name, len(sp.Options), len(sp.OptionLabels))
		}
		seen := map[string]string{}
		for i, label := range sp.OptionLabels {
			o := sp.Options[i]
			if strings.TrimSpace(label) == "" {
				return fmt.Errorf("lab %s: %s=%s has no label", l.Name, sp.Name, o)
			}
			if other, ok := seen[label]; ok {
				return fmt.Errorf("lab %s: %s=%s and %s=%s share the label %q", l.Name, sp.Name, other, sp.Name, o, label)
			}
			seen[label] = o
		}
	}
	return nil
}

// checkRules reports a Check without Rules, and a Rule without text or naming a parameter
// the lab does not declare.
func (l *Lab) checkRules() error {
	if l.Check != nil && len(l.Rules) == 0 {
		return fmt.Errorf("it has rules across parameters (Check) but declares none in words (Rules)")
	}
	for _, r := range l.Rules {
		if r.Text == "" || r.Breaks == "" || len(r.Params) < 2 {
			return fmt.Errorf("rule %q: a rule has a text and a query that breaks it, and spans two or more parameters", r.Text)
		}
		for _, n := range r.Params {
			if _, ok := l.Params.Lookup(n); !ok {
				return fmt.Errorf("rule %q names %q, which is no parameter", r.Text, n)
			}
		}
	}
	return nil
}

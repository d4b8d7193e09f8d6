package lab

import (
	"errors"

	"github.com/resilience-playground/playground/param"
)

// A Rule is one rule across parameters that a lab's Check enforces, in words.
type Rule struct {
	// Params are the parameters the rule's error names ([Relation]), in its order.
	Params []string
	// Text states the rule, naming its parameters in backquotes: "`cap` ≥ `base`".
	Text string
	// Breaks is a query that breaks the rule and no other ("cap=1ms&base=10ms"), which
	// labtest.CheckRules holds Check to refuse naming Params.
	Breaks string
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

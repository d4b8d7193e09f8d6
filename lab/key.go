package lab

import (
	"net/url"

	"github.com/resilience-playground/playground/param"
)

// MemoKey returns the key under which a lab keeps a part of scenario v's results (one
// strategy's simulation, one point of a sweep, a cost-model pilot): the canonical query of v
// with the parameters in set given those values, in URL form (those that pick the part: one
// strategy, one client count), and the parameters named in ignore back at their defaults
// (those the part does not depend on). Every other parameter is in the key as the scenario
// has it, so a parameter added to a lab is in its memo keys without anyone listing it, and
// scenarios that are equal however they were written share their keys.
//
// set's values must be valid; MemoKey panics otherwise (a lab's bug, not a user's).
func MemoKey(v param.Values, set map[string]string, ignore ...string) string {
	if len(set) == 0 && len(ignore) == 0 {
		return v.Encode()
	}
	q, err := url.ParseQuery(v.Encode())
	if err == nil {
		for name, raw := range set {
			q.Set(name, raw)
		}
		for _, name := range ignore {
			q.Del(name)
		}
		v, err = v.Set().Parse(q)
	}
	if err != nil {
		panic("lab: memo key: " + err.Error())
	}
	return v.Encode()
}

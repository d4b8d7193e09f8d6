package loadbalance

import (
	"errors"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// TestRules: scenarios that used to run with a parameter silently lowered to fit another are
// refused, with an error naming every parameter of the rule and the relation they must keep;
// the corners the rules allow run.
func TestRules(t *testing.T) {
	l := Lab()
	for _, tc := range []struct {
		query  string
		msg    string
		params []string
	}{
		{"subset=400", "subset must be at most backends (300), got 400", []string{"subset", "backends"}},
		{"backends=20", "subset must be at most backends (20), got 30", []string{"subset", "backends"}},
		{"backends=1&subset=1&failing=2", "failing must be at most backends (1), got 2", []string{"failing", "backends"}},
		{"backends=10&subset=5&failing=10&event=lame_duck",
			"failing (10) plus the backends the event stops (event_share 0.1 of 10 backends: 1) must be at most backends (10)",
			[]string{"failing", "event_share", "backends", "event"}},
		{"backends=4&subset=2&failing=3&event=abrupt_stop&event_share=0.5",
			"failing (3) plus the backends the event stops (event_share 0.5 of 4 backends: 2) must be at most backends (4)",
			[]string{"failing", "event_share", "backends", "event"}},
	} {
		_, err := l.Parse(tc.query)
		var pe *param.Error
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v, want a *param.Error", tc.query, err)
			continue
		}
		if pe.Msg != tc.msg || pe.Param != tc.params[0] || !slices.Equal(pe.Params, tc.params) {
			t.Errorf("%s: %+v, want %q naming %v", tc.query, *pe, tc.msg, tc.params)
		}
	}
	for _, q := range []string{"backends=20&subset=20", "subset=300", "backends=10&subset=5&failing=9&event=lame_duck", "backends=3&subset=3&failing=3"} {
		if _, err := l.Parse(q); err != nil {
			t.Errorf("%s: %v, want it to run", q, err)
		}
	}
}

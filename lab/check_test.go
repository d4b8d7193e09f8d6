package lab_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// ruleLab is testLab with a rule across parameters: m must be at most n.
func ruleLab(name string) *lab.Lab {
	l := testLab(name)
	l.Check = func(v param.Values) error {
		if n, m := v.Int("n"), v.Int("m"); m > n {
			return lab.Relation(fmt.Sprintf("m must be at most n (%d), got %d", n, m), "m", "n")
		}
		return nil
	}
	l.Rules = []lab.Rule{{Params: []string{"m", "n"}, Text: "`m` ≤ `n`", Breaks: "n=2&m=3"}}
	return l
}

// TestParseChecksRules: Parse refuses a scenario that breaks a rule with an error naming both
// parameters, and still reports a bad single value first.
func TestParseChecksRules(t *testing.T) {
	l := ruleLab("r")
	if v, err := l.Parse("n=5&m=5"); err != nil || v.Int("m") != 5 {
		t.Errorf("n=5&m=5: %v, %v", v, err)
	}
	_, err := l.Parse("n=2&m=5")
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Msg != "m must be at most n (2), got 5" || pe.Param != "m" || !slices.Equal(pe.Params, []string{"m", "n"}) {
		t.Errorf("n=2&m=5: %#v, want the rule's error naming m and n", err)
	}
	if _, err := l.Parse("n=2&m=500"); !errors.As(err, &pe) || pe.Param != "m" || len(pe.Params) != 0 || !strings.Contains(pe.Msg, "between") {
		t.Errorf("n=2&m=500: %#v, want m's own range", err)
	}
	// A Check that returns some other error still gives a *param.Error.
	l.Check = func(param.Values) error { return errors.New("no") }
	if _, err := l.Parse(""); !errors.As(err, &pe) || pe.Msg != "no" {
		t.Errorf("plain error from Check: %#v", err)
	}
	// Without Check, Parse is ParseQuery.
	if _, err := testLab("t").Parse("n=2&m=5"); err != nil {
		t.Errorf("no rules: %v", err)
	}
}

// TestSalvageRules: a page shows a rule's error and a working scenario: the rule's parameters
// take their defaults until it holds.
func TestSalvageRules(t *testing.T) {
	l := ruleLab("r")
	v, errs := l.Salvage("n=2&m=5&mode=b+c")
	if len(errs) != 1 || errs[0].Param != "m" || !slices.Equal(errs[0].Params, []string{"m", "n"}) {
		t.Fatalf("errors %v, want the rule's", errs)
	}
	// m's default (3) still breaks the rule with n=2, so n takes its default too; mode, which
	// the rule does not span, is kept.
	if v.Int("m") != 3 || v.Int("n") != 10 || v.String("mode") != "b c" {
		t.Errorf("salvaged %s, want m and n back to their defaults and mode kept", v.Encode())
	}
	// m's default keeps the rule with n=4: n is kept.
	v, errs = l.Salvage("n=4&m=5")
	if len(errs) != 1 || v.Int("m") != 3 || v.Int("n") != 4 {
		t.Errorf("n=4&m=5: %s with %v, want n=4&m=3", v.Encode(), errs)
	}
	if v, errs := l.Salvage("n=9&m=4"); len(errs) != 0 || v.Int("n") != 9 {
		t.Errorf("a valid query: %s with %v", v.Encode(), errs)
	}
	// A rule whose error names no parameter is reported once, beside the defaults.
	l.Check = func(v param.Values) error {
		if v.Int("n") == 7 {
			return errors.New("n may not be 7")
		}
		return nil
	}
	if v, errs := l.Salvage("n=7&m=1"); len(errs) != 1 || v.Int("n") != 10 || v.Int("m") != 3 {
		t.Errorf("n=7: %s with %v, want the defaults and one error", v.Encode(), errs)
	}
}

// TestRegistryChecksRules: defaults and tour steps must keep the rules.
func TestRegistryChecksRules(t *testing.T) {
	badDefaults := ruleLab("d")
	badDefaults.Params[1].Default = "20" // m = 20 > n = 10
	badTour := ruleLab("t")
	badTour.Tours = []lab.Tour{{Name: "x", Title: "X", Steps: []lab.Step{{Title: "s", Text: "t", URL: "/t?n=2"}}}}
	unsaid := ruleLab("u") // a Check whose rules are not said in words
	unsaid.Rules = nil
	noExample := ruleLab("e")
	noExample.Rules[0].Breaks = ""
	stranger := ruleLab("s")
	stranger.Rules[0].Params = []string{"m", "k"}
	for _, tt := range []struct {
		l    *lab.Lab
		want string
	}{
		{badDefaults, "the defaults break a rule: m must be at most n (10), got 20"},
		{badTour, "m must be at most n (2), got 3"},
		{unsaid, "declares none in words (Rules)"},
		{noExample, "a query that breaks it"},
		{stranger, `names "k", which is no parameter`},
	} {
		func() {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), tt.want) {
					t.Errorf("%s: recovered %v, want a panic containing %q", tt.l.Name, p, tt.want)
				}
			}()
			lab.NewRegistry(tt.l)
		}()
	}
	lab.NewRegistry(ruleLab("ok"))
}

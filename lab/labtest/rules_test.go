package labtest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestRuleProblems: CheckRules fails on a rule Check enforces that no Rule declares (the
// drift of the hand-written rules table it replaced: two of the rate limiter's rules and all
// three of the retry-storm lab's were missing) and on a Rule whose Breaks Check does not
// refuse as declared; it passes a lab whose Rules say what its Check does.
func TestRuleProblems(t *testing.T) {
	newLab := func(rules ...lab.Rule) *lab.Lab {
		return &lab.Lab{
			Name: "t",
			Params: param.Set{
				{Name: "n", Kind: param.Int, Default: "10", Min: 1, Max: 100},
				{Name: "m", Kind: param.Int, Default: "5", Min: 1, Max: 100},
				{Name: "mode", Kind: param.Enum, Options: []string{"a", "b"}, Default: "a"},
			},
			Check: func(v param.Values) error {
				if n, m := v.Int("n"), v.Int("m"); m > n {
					return lab.Relation(fmt.Sprintf("m must be at most n (%d), got %d", n, m), "m", "n")
				}
				if v.String("mode") == "b" && v.Int("n") > 50 {
					return lab.Relation("n must be at most 50 with mode b", "n", "mode")
				}
				return nil
			},
			Rules: rules,
		}
	}
	mn := lab.Rule{Params: []string{"m", "n"}, Text: "`m` ≤ `n`", Breaks: "n=2&m=3"}
	nmode := lab.Rule{Params: []string{"n", "mode"}, Text: "with `mode=b`, `n` ≤ 50", Breaks: "mode=b&n=60"}
	if p := ruleProblems(newLab(mn, nmode)); len(p) > 0 {
		t.Errorf("rules that say what Check does: %q", p)
	}
	for _, c := range []struct {
		name  string
		rules []lab.Rule
		want  string
	}{
		{"a rule undeclared", []lab.Rule{mn}, "Check enforces a rule across n, mode"},
		{"an example another rule refuses", []lab.Rule{mn, {Params: nmode.Params, Text: nmode.Text, Breaks: "mode=b&n=60&m=70"}}, "want an error naming n, mode"},
		{"an example that breaks nothing", []lab.Rule{mn, {Params: nmode.Params, Text: nmode.Text, Breaks: "mode=b"}}, "want an error naming n, mode"},
	} {
		p := ruleProblems(newLab(c.rules...))
		if !strings.Contains(strings.Join(p, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one containing %q", c.name, p, c.want)
		}
	}
}

package labtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestNamed: a sentence names a setting by its name, label, value (with or without a unit, a
// small number as a word) or option label — and not by a digit inside another number.
func TestNamed(t *testing.T) {
	subsetting := param.Spec{Name: "subsetting", Label: "Subsetting", Kind: param.Enum, Options: []string{"random", "deterministic"},
		OptionLabels: []string{"Random", "Deterministic (the chapter's)"}}
	clients := param.Spec{Name: "clients", Label: "Clients", Kind: param.Int}
	duration := param.Spec{Name: "duration", Label: "Duration", Kind: param.Duration}
	failing := param.Spec{Name: "failing", Label: "Fail-fast backends", Kind: param.Int}
	for _, c := range []struct {
		sentence string
		sp       param.Spec
		raw      string
		want     bool
	}{
		{"At 50 clients, 50 backends and subsets of 5, least-loaded sends 559.", subsetting, "deterministic", false},
		{"At 50 clients, deterministic subsets of 5, least-loaded sends 559.", subsetting, "deterministic", true},
		{"At 50 clients.", clients, "50", true},
		{"Least-loaded sends 559 requests.", clients, "5", false},
		{"At 5,000 clients.", clients, "5000", true},
		{"Over 30 s.", duration, "30s", true},
		{"Over 30 seconds.", duration, "30s", true},
		{"In a minute.", duration, "1m0s", true},
		{"Over 300 s.", duration, "30s", false},
		{"With one fail-fast backend.", failing, "1", true},
		{"With none.", failing, "1", false},
	} {
		if got := named(strings.ToLower(c.sentence), c.sp, c.raw); got != c.want {
			t.Errorf("named(%q, %s=%s) = %v, want %v", c.sentence, c.sp.Name, c.raw, got, c.want)
		}
	}
	if got := sentenceAt("One. Two has 559 in it. Three.", 13, 16); got != "Two has 559 in it." {
		t.Errorf("sentenceAt = %q", got)
	}
}

// TestDuration: the quotes write durations as web/static/js/format.js's duration does (the
// browser test TestFormatting checks the same values on the page).
func TestDuration(t *testing.T) {
	for ms, want := range map[float64]string{
		5082228: "84.7 min", 90000: "90 s", 63312: "63.3 s", 5.2: "5.2 ms", 0.297: "297 µs", 1999: "2000 ms", 0: "0 s",
		150000: "2.5 min", 6680: "6.68 s", -2500: "−2.5 s", 9e6: "2.5 h",
	} {
		if got := lab.FormatDuration(ms); got != want {
			t.Errorf("Duration(%v) = %q, want %q", ms, got, want)
		}
	}
}

// TestUncoveredFigures: a figure in any text a reader sees — a parameter's help, a note, a
// chart's or a table's help, not only a tour step's — is flagged unless a quote covers it.
func TestUncoveredFigures(t *testing.T) {
	l := &lab.Lab{
		Params: param.Set{{Name: "n", Help: "Up to 64 instances."}},
		View: lab.View{
			Notes:  []string{"Twice the limit."},
			Charts: []lab.Chart{{ID: "c", Help: "At 300 clients."}},
			Tables: []lab.Table{{ID: "t", Help: "No figure here."}},
		},
	}
	got := uncovered(l, nil)
	for _, want := range []string{`chart:c states "300"`, `help:n states "64"`, `note:0 states "Twice"`} {
		if !slices.ContainsFunc(got, func(p string) bool { return strings.HasPrefix(p, want) }) {
			t.Errorf("problems %q: none starts %q", got, want)
		}
	}
	if len(got) != 3 {
		t.Errorf("%d problems, want 3: %q", len(got), got)
	}
	covered := map[string][][2]int{"help:n": {{0, 19}}, "note:0": {{0, 5}}, "chart:c": {{3, 6}}}
	if got := uncovered(l, covered); len(got) > 0 {
		t.Errorf("every figure covered: %q", got)
	}
}

// TestShown: a measured figure of a step's words (its text, question or explanation) names the
// chart or table that shows it, and that is the one the step focuses, which projector view
// shows (issue 30: a step quoted a table's figures while the projector showed a histogram). A
// chart and a table that share an id are told apart, the projector showing the chart; the
// answer, a help text and a figure that measures nothing are not held to it.
func TestShown(t *testing.T) {
	l := &lab.Lab{
		Name: "tiny",
		View: lab.View{
			Charts: []lab.Chart{{ID: "hist"}, {ID: "sweep"}, {ID: "load"}},
			Tables: []lab.Table{{ID: "summary"}, {ID: "load"}},
		},
		Tours: []lab.Tour{{Name: "t", Steps: []lab.Step{
			{Focus: "hist"}, {Focus: "load"}, {Focus: ""}, {Focus: "summary"},
		}}},
	}
	measure := func(testing.TB, *lab.Result) string { return "" }
	for _, c := range []struct {
		q    Quote
		want string // a part of the problem, "" for none
	}{
		{Quote{In: "tour:t/1", Says: "a", Measure: measure, Shown: "hist"}, ""},
		{Quote{In: "tour:t/4", Says: "a", Measure: measure, Shown: "summary"}, ""},
		{Quote{In: "tour:t/2", Says: "a", Measure: measure, Shown: "chart:load"}, ""},
		{Quote{In: "answer:t/1", Says: "a", Measure: measure}, ""},
		{Quote{In: "help:n", Says: "a", Measure: measure}, ""},
		{Quote{In: "tour:t/1", Says: "a", Why: "a definition"}, ""},

		{Quote{In: "explain:t/1", Says: "a", Measure: measure},
			`explain:t/1 "a" measures a figure but does not say which chart or table shows it (Shown); the step focuses "hist"`},
		{Quote{In: "tour:t/1", Says: "a", Measure: measure, Shown: "nowhere"},
			`tour:t/1 "a": Shown "nowhere" is no chart or table of the lab's view; the step focuses "hist"`},
		{Quote{In: "predict:t/1", Says: "a", Measure: measure, Shown: "sweep"},
			`predict:t/1 "a" is shown by chart sweep (Shown "sweep"), but the step focuses "hist": projector view shows chart hist`},
		{Quote{In: "tour:t/1", Says: "a", Measure: measure, Shown: "summary"},
			`tour:t/1 "a" is shown by table summary (Shown "summary"), but the step focuses "hist"`},
		{Quote{In: "tour:t/2", Says: "a", Measure: measure, Shown: "load"},
			`tour:t/2 "a": Shown "load" names both a chart and a table: write chart:load or table:load`},
		{Quote{In: "tour:t/2", Says: "a", Measure: measure, Shown: "table:load"},
			`tour:t/2 "a" is shown by table load (Shown "table:load"), but the step focuses "load": projector view shows chart load`},
		{Quote{In: "tour:t/1", Says: "a", Measure: measure, Shown: "table:hist"},
			`Shown "table:hist" is no chart or table of the lab's view`},
		{Quote{In: "tour:t/3", Says: "a", Measure: measure, Shown: "summary"},
			`tour:t/3 "a" is shown by table summary (Shown "summary"), but the step focuses "", no chart or table`},
	} {
		got := shownProblem(l, c.q)
		if (got == "") != (c.want == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s %q, Shown %q: problem %q, want %q", c.q.In, c.q.Says, c.q.Shown, got, c.want)
		}
	}
}

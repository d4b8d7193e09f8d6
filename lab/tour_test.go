package lab_test

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

func TestCheckTours(t *testing.T) {
	step := func(url string) lab.Step { return lab.Step{Title: "S", URL: url, Text: "Look."} }
	num := &lab.Answer{Unit: "things", Min: 0, Max: 10, Step: 1, Truth: "5"}
	pred := func(a *lab.Answer) lab.Step {
		return lab.Step{Title: "S", URL: "/t", Question: "How many?", Explanation: "Five.", Answer: a, Gives: []string{"five"}}
	}
	for _, tc := range []struct {
		name  string
		tours []lab.Tour
		want  string // "" for valid
	}{
		{"valid", []lab.Tour{{Name: "a-1", Title: "A", Steps: []lab.Step{step("/t"), step("/t?n=5&mode=b+c")}}}, ""},
		{"no tours", nil, ""},
		{"bad name", []lab.Tour{{Name: "A b", Title: "A", Steps: []lab.Step{step("/t")}}}, "tour name"},
		{"twice", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t")}}, {Name: "a", Title: "B", Steps: []lab.Step{step("/t")}}}, "declared twice"},
		{"no steps", []lab.Tour{{Name: "a", Title: "A"}}, "needs a title and steps"},
		{"no text", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t"}}}}, "needs a text, or a question and its explanation"},
		{"no title", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{URL: "/t", Text: "Look."}}}}, "needs a title"},
		{"prediction", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(num)}}}, ""},
		{"choice", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Options: []lab.Choice{{ID: "yes", Label: "Yes"}, {ID: "no", Label: "No"}}, Truth: "no"})}}}, ""},
		{"no answer", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(nil)}}}, "needs an answer space"},
		{"answer without question", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Answer: num}}}}, "only a prediction"},
		{"truth off the scale", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Min: 0, Max: 10, Step: 1, Truth: "12"})}}}, `truth "12"`},
		{"truth not canonical", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Min: 0, Max: 10, Step: 0.5, Truth: "5"})}}}, `truth "5"`},
		{"truth no option", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Options: []lab.Choice{{ID: "yes", Label: "Yes"}, {ID: "no", Label: "No"}}, Truth: "maybe"})}}}, `truth "maybe"`},
		{"option twice", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Options: []lab.Choice{{ID: "yes", Label: "Yes"}, {ID: "yes", Label: "No"}}, Truth: "yes"})}}}, "declared twice"},
		{"scale too fine", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Min: 0, Max: 1000, Step: 1, Truth: "5"})}}}, "at most 201"},
		{"no scale", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{pred(&lab.Answer{Truth: "5"})}}}, "needs a scale"},
		{"question alone", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Question: "How many?", Answer: num}}}}, "both a question and its explanation"},
		{"prediction without what gives it away", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Question: "How many?", Explanation: "Five.", Answer: num}}}}, "Gives"},
		{"introduction answers", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Question: "How many?", Explanation: "Seven.", Answer: num, Gives: []string{"seven"}}}}}, "introduction gives the answer away"},
		{"question answers itself", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Question: "Five, or how many?", Explanation: "Five.", Answer: num, Gives: []string{"five"}}}}}, "question gives its own answer away"},
		{"sweep focused", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t?sw=1:10:1", Text: "Look.", Focus: "s"}}}}, ""},
		{"sweep not focused", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t?sw=1:10:1", Text: "Look.", Focus: "c"}}}}, `turns on a sweep drawn by s, but it focuses "c"`},
		{"gives on a plain step", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Gives: []string{"five"}}}}}, "predictions only"},
		{"explanation alone", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Explanation: "Five."}}}}, "both a question and its explanation"},
		{"focus", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Focus: "c", Controls: []string{"n"}}}}}, ""},
		{"focus on no chart", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Focus: "nope"}}}}, `focus "nope" is no chart or table`},
		{"control of no parameter", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Controls: []string{"n", "nope"}}}}}, `control "nope" is no parameter`},
		{"answer before the reveal", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "There are five.", Question: "How many?", Explanation: "Five.", Answer: num}}}}, "shows only its question"},
		{"other lab", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/u?n=5")}}}, "not a scenario of this lab"},
		{"bad value", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t?n=0")}}}, "n must be"},
		{"not canonical", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t?m=2&n=5")}}}, `write "/t?n=5&m=2"`},
		{"default written", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t?n=10")}}}, `write "/t"`},
		// m's control shows only when mode is "b c" (issue 30, item 12: a step set store_latency
		// with a store that has none, its control hidden).
		{"sets a hidden control", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t?m=2")}}}, "sets or shows m, whose control is hidden"},
		{"shows a hidden control", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{{Title: "S", URL: "/t", Text: "Look.", Controls: []string{"m"}}}}}, "sets or shows m"},
		{"sets a shown control", []lab.Tour{{Name: "a", Title: "A", Steps: []lab.Step{step("/t?m=2&mode=b+c")}}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := testLab("t")
			l.Intro = "Each of the Seven Dwarfs counts."
			l.Params.Defaults()
			l.Params[1].Applies = &param.When{Param: "mode", Values: []string{"b c"}}
			l.Params = append(l.Params, param.Spec{Name: "sw", Kind: param.IntRange, Default: "off", Min: 1, Max: 100, MaxLen: 10, On: "1:10:1"})
			l.View.Charts = []lab.Chart{{ID: "c"}, {ID: "s", Needs: "sw"}}
			l.Tours = tc.tours
			err := l.CheckTours()
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("CheckTours: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("CheckTours: %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestFindStep(t *testing.T) {
	l := testLab("t")
	l.Tours = []lab.Tour{{Name: "intro", Title: "I", Steps: []lab.Step{{Title: "one"}, {Title: "two"}}}}
	for id, want := range map[string]string{"intro/1": "one", "intro/2": "two", "intro/3": "", "intro/0": "", "other/1": "", "intro": "", "": "", "intro/x": ""} {
		tour, n, ok := l.FindStep(id)
		got := ""
		if ok {
			got = tour.Steps[n-1].Title
		}
		if got != want {
			t.Errorf("FindStep(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestAnswerValue(t *testing.T) {
	num := &lab.Answer{Min: 1, Max: 4, Step: 0.01, Truth: "1.88"}
	choice := &lab.Answer{Options: []lab.Choice{{ID: "full", Label: "Full jitter"}, {ID: "equal", Label: "Equal jitter"}}}
	for _, tc := range []struct {
		a      *lab.Answer
		in     string
		want   string
		wantOK bool
	}{
		{num, "1.88", "1.88", true},
		{num, "1.876", "1.88", true},
		{num, "4", "4.00", true},
		{num, "0.5", "", false},
		{num, "NaN", "", false},
		{num, "many", "", false},
		{choice, "full", "full", true},
		{choice, "FULL", "", false},
		{choice, "", "", false},
		{nil, "full", "", false},
	} {
		got, ok := tc.a.Value(tc.in)
		if got != tc.want || ok != tc.wantOK {
			t.Errorf("Value(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.wantOK)
		}
	}
}

package labtest

import (
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// A Quote is a figure that a text of a lab states — a tour step's text, a parameter's help, a
// note, a chart's or a table's help — and how to measure it, so that a test holds the text to
// what its scenario shows and the two cannot drift apart.
type Quote struct {
	// In names the text: "tour:{tour}/{n}" (a step's text, n from 1), "predict:{tour}/{n}"
	// (its question), "explain:{tour}/{n}" (its explanation, shown after the reveal),
	// "answer:{tour}/{n}" (its declared true answer, lab.Answer.Truth: an option's ID or a
	// number), "help:{param}", "note:{i}" (from 0), "chart:{id}" or "table:{id}" (their help).
	In string
	// Says is the words of the text that state the figure, exactly as written.
	Says string
	// Scenario is the query the figure is measured on. For a tour step, "" means the step's
	// own URL.
	Scenario string
	// Measure returns the figure as the scenario measures it, written as Says writes it
	// ("2.80", "8,102"): Says must contain it.
	Measure func(tb testing.TB, r *lab.Result) string
	// Why, when Measure is nil, says why the figure is not measured: a parameter of the
	// scenario, a source's own example, a definition.
	Why string
}

// figure matches what a text states as a number: digits (1,000 or 2.80 or 07:10:00), or a
// word for a number or a ratio.
var figure = regexp.MustCompile(`\d+(?:[.,:]\d+)*|(?i)\b(?:twice|half|halves|double|doubles|doubling|triple|thrice|dozen|` +
	`quarter|third|fifth|tenth|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|hundred|thousand)\b`)

// CheckQuotes checks every quote of l: its text says Says; Says contains what Measure returns
// for the scenario's result (each scenario runs once); a quote that measures nothing says why.
// It also checks that every figure in the text, the question and the explanation of every
// tour step — digits, or a word such as "twice" or "half" — lies within a quote of that step,
// so that no tour states a number that no test holds it to; and that the true answer of every
// prediction is held to its scenario by an "answer:" quote that measures it (Says the whole
// truth), so that a changed model that moves the answer fails here, not in front of a class.
func CheckQuotes(t *testing.T, l *lab.Lab, quotes []Quote) {
	t.Helper()
	results := map[string]*lab.Result{}
	covered := map[string][][2]int{} // text name → spans of its quotes
	answered := map[string]bool{}    // predictions whose truth a quote measures
	for _, q := range quotes {
		if strings.HasPrefix(q.In, "answer:") && q.Measure != nil {
			if text, _, err := quoteText(l, q.In); err == nil && text == q.Says {
				answered[q.In] = true
			}
		}
		text, scenario, err := quoteText(l, q.In)
		if err != nil {
			t.Errorf("quote %q: %v", q.Says, err)
			continue
		}
		if q.Scenario != "" {
			scenario = q.Scenario
		}
		at := strings.Index(text, q.Says)
		if at < 0 {
			t.Errorf("%s does not say %q: %q", q.In, q.Says, text)
			continue
		}
		for i := at; i >= 0; {
			covered[q.In] = append(covered[q.In], [2]int{i, i + len(q.Says)})
			next := strings.Index(text[i+1:], q.Says)
			if next < 0 {
				break
			}
			i += 1 + next
		}
		if q.Measure == nil {
			if q.Why == "" {
				t.Errorf("%s: %q measures nothing and does not say why", q.In, q.Says)
			}
			continue
		}
		r, ok := results[scenario]
		if !ok {
			r = MustRun(t, l, scenario)
			results[scenario] = r
		}
		if got := q.Measure(t, r); !strings.Contains(q.Says, got) {
			t.Errorf("%s says %q; its scenario (%s) measures %s", q.In, q.Says, l.URL(mustParse(t, l, scenario)), got)
		}
	}
	for _, tour := range l.Tours {
		for i, s := range tour.Steps {
			if in := fmt.Sprintf("answer:%s/%d", tour.Name, i+1); s.Predicts() && !answered[in] {
				t.Errorf("%s: no quote measures the prediction's true answer (Says the whole Truth, with a Measure)", in)
			}
			for kind, text := range map[string]string{"tour": s.Text, "predict": s.Question, "explain": s.Explanation} {
				in := fmt.Sprintf("%s:%s/%d", kind, tour.Name, i+1)
				for _, m := range figure.FindAllStringIndex(text, -1) {
					if !within(covered[in], m) {
						t.Errorf("%s states %q (…%s…) but no quote holds it to a measurement or says why not",
							in, text[m[0]:m[1]], text[max(m[0]-30, 0):min(m[1]+30, len(text))])
					}
				}
			}
		}
	}
}

func within(spans [][2]int, m []int) bool {
	for _, sp := range spans {
		if m[0] >= sp[0] && m[1] <= sp[1] {
			return true
		}
	}
	return false
}

func mustParse(tb testing.TB, l *lab.Lab, query string) param.Values {
	tb.Helper()
	v, err := l.Parse(query)
	if err != nil {
		tb.Fatal(err)
	}
	return v
}

// quoteText returns the text a Quote's In names and, for a tour step, the query of its URL.
func quoteText(l *lab.Lab, in string) (text, scenario string, err error) {
	kind, name, _ := strings.Cut(in, ":")
	switch kind {
	case "tour", "predict", "explain", "answer":
		tour, n, ok := l.FindStep(name)
		if !ok {
			return "", "", fmt.Errorf("no tour step %q", name)
		}
		s := tour.Steps[n-1]
		u, err := url.Parse(s.URL)
		if err != nil {
			return "", "", err
		}
		switch kind {
		case "predict":
			return s.Question, u.RawQuery, nil
		case "explain":
			return s.Explanation, u.RawQuery, nil
		case "answer":
			if s.Answer == nil {
				return "", "", fmt.Errorf("step %q declares no answer", name)
			}
			return s.Answer.Truth, u.RawQuery, nil
		}
		return s.Text, u.RawQuery, nil
	case "help":
		if sp, ok := l.Params.Lookup(name); ok {
			return sp.Help, "", nil
		}
	case "note":
		if i, err := strconv.Atoi(name); err == nil && i >= 0 && i < len(l.View.Notes) {
			return l.View.Notes[i], "", nil
		}
	case "chart":
		for _, c := range l.View.Charts {
			if c.ID == name {
				return c.Help, "", nil
			}
		}
	case "table":
		for _, tb := range l.View.Tables {
			if tb.ID == name {
				return tb.Help, "", nil
			}
		}
	}
	return "", "", fmt.Errorf("no text %q", in)
}

// Thousands writes n with commas between groups of three digits, as the labs' texts do:
// 8,102.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// AnswerOf returns x written as the answer space of l's prediction step ("{tour}/{n}") writes
// it (lab.Answer.Value: on its scale's grid), for the Measure of an "answer:" quote; a figure
// off the scale is returned as measured, and fails the quote.
func AnswerOf(tb testing.TB, l *lab.Lab, step string, x float64) string {
	tb.Helper()
	t, n, ok := l.FindStep(step)
	if !ok || t.Steps[n-1].Answer == nil {
		tb.Fatalf("no prediction step %q", step)
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if v, ok := t.Steps[n-1].Answer.Value(s); ok {
		return v
	}
	return s + " (off the answer's scale)"
}

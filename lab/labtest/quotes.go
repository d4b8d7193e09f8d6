package labtest

import (
	"fmt"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

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
	// Shown is the chart or table (by id, as in the lab's View) whose numbers show the figure
	// the quote measures: the one whose data Measure reads — a table's summary entry, or what
	// a chart's series are drawn from —, the figure read in a cell of the table or at a point
	// of the chart. Where a chart and a table share an id, "chart:{id}" or "table:{id}" says
	// which. A quote of a tour step's words (its text, question or explanation) that measures
	// its figure must say it, and it must be the step's Focus, which projector view shows
	// while the step is read: the words discuss what the room sees (issue 30: a step quoted
	// figures of a table while the projector showed a histogram). Other texts are read beside
	// whatever is on screen, and their quotes leave it empty.
	Shown string
}

// figure matches what a text states as a number: digits (1,000 or 2.80 or 07:10:00), or a
// word for a number or a ratio.
var figure = regexp.MustCompile(`\d+(?:[.,:]\d+)*|(?i)\b(?:twice|half|halves|double|doubles|doubling|triple|thrice|dozen|` +
	`quarter|third|fifth|tenth|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|hundred|thousand)\b`)

// CheckQuotes checks every quote of l: its text says Says; Says contains what Measure returns
// for the scenario's result (each scenario runs once); a quote that measures nothing says why.
// It also checks that every figure in every text a reader takes for a statement about what is
// on screen (texts: each tour step's text, question and explanation, each parameter's help,
// each note, each chart's and table's help) — digits, or a word such as "twice" or "half" —
// lies within a quote of that text, so that no text states a number that no test holds it
// to (issue 30: a help quoted deterministic subsetting's figures beside random subsetting's
// scenario, and nothing flagged it); and that the true answer of every
// prediction is held to its scenario by an "answer:" quote that measures it (Says the whole
// truth), so that a changed model that moves the answer fails here, not in front of a class.
// Every measured figure of a step's words is shown by the chart or table the step focuses
// (Quote.Shown), so that a step never discusses figures its projector view does not show.
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
		if q.Measure != nil && !stepText(q.In) {
			checkNamed(t, l, q, text, at, scenario)
		}
		if p := shownProblem(l, q); p != "" {
			t.Error(p)
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
		}
	}
	for _, p := range uncovered(l, covered) {
		t.Error(p)
	}
}

// uncovered returns a problem for each figure of l's texts that lies within no span of covered
// (text name → spans of its quotes), sorted.
func uncovered(l *lab.Lab, covered map[string][][2]int) []string {
	var problems []string
	for in, text := range texts(l) {
		for _, m := range figure.FindAllStringIndex(text, -1) {
			if !within(covered[in], m) {
				problems = append(problems, fmt.Sprintf("%s states %q (…%s…) but no quote holds it to a measurement or says why not",
					in, text[m[0]:m[1]], text[max(m[0]-30, 0):min(m[1]+30, len(text))]))
			}
		}
	}
	slices.Sort(problems)
	return problems
}

// texts returns every text of l that a reader takes for a statement about what is on screen,
// by the name a Quote's In gives it: each tour step's text, question and explanation, each
// parameter's help, each note, and each chart's and table's help.
func texts(l *lab.Lab) map[string]string {
	all := map[string]string{}
	for _, tour := range l.Tours {
		for i, s := range tour.Steps {
			for kind, text := range map[string]string{"tour": s.Text, "predict": s.Question, "explain": s.Explanation} {
				all[fmt.Sprintf("%s:%s/%d", kind, tour.Name, i+1)] = text
			}
		}
	}
	for _, sp := range l.Params {
		all["help:"+sp.Name] = sp.Help
	}
	for i, n := range l.View.Notes {
		all[fmt.Sprintf("note:%d", i)] = n
	}
	for _, c := range l.View.Charts {
		all["chart:"+c.ID] = c.Help
	}
	for _, tb := range l.View.Tables {
		all["table:"+tb.ID] = tb.Help
	}
	return all
}

// stepText reports whether a quote's text is a tour step's — its text, question, explanation
// or true answer —, whose scenario is the step's URL, on screen as the step is read.
func stepText(in string) bool {
	kind, _, _ := strings.Cut(in, ":")
	return kind == "tour" || kind == "predict" || kind == "explain" || kind == "answer"
}

// shownProblem returns what is wrong with where quote q says its figure is shown, or "" if
// nothing is: a quote of a step's words (its text, question or explanation — not its answer,
// which is the declared truth, not text) that measures its figure names (Shown) a chart or a
// table of l's view, and it is the one the step focuses, which projector view shows.
func shownProblem(l *lab.Lab, q Quote) string {
	kind, name, _ := strings.Cut(q.In, ":")
	if q.Measure == nil || (kind != "tour" && kind != "predict" && kind != "explain") {
		return ""
	}
	tour, n, ok := l.FindStep(name)
	if !ok {
		return "" // quoteText reports it
	}
	focus := tour.Steps[n-1].Focus
	projected := projectedOf(l.View, focus)
	quote := fmt.Sprintf("%s %q", q.In, q.Says)
	if q.Shown == "" {
		return fmt.Sprintf("%s measures a figure but does not say which chart or table shows it (Shown); the step focuses %q", quote, focus)
	}
	shown, err := shownOf(l.View, q.Shown)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: Shown %q %v; the step focuses %q", quote, q.Shown, err, focus)
	case projected == "":
		return fmt.Sprintf("%s is shown by %s (Shown %q), but the step focuses %q, no chart or table: projector view shows the lab's first headline chart, "+
			"whatever the words discuss", quote, shown, q.Shown, focus)
	case shown != projected:
		return fmt.Sprintf("%s is shown by %s (Shown %q), but the step focuses %q: projector view shows %s as the step is read. "+
			"Focus the step on what its words discuss, or quote what its focus shows", quote, shown, q.Shown, focus, projected)
	}
	return ""
}

// shownOf returns the chart or table a Quote's Shown names, as "chart id" or "table id": an
// id of one of them, or "chart:{id}" or "table:{id}" where a chart and a table share it.
func shownOf(v lab.View, shown string) (string, error) {
	kind, id, qualified := strings.Cut(shown, ":")
	if !qualified {
		id = shown
	}
	chart := slices.ContainsFunc(v.Charts, func(c lab.Chart) bool { return c.ID == id })
	table := slices.ContainsFunc(v.Tables, func(t lab.Table) bool { return t.ID == id })
	switch {
	case qualified && kind == "chart" && chart, !qualified && chart && !table:
		return "chart " + id, nil
	case qualified && kind == "table" && table, !qualified && table && !chart:
		return "table " + id, nil
	case !qualified && chart && table:
		return "", fmt.Errorf("names both a chart and a table: write chart:%s or table:%s (a step that focuses %s shows the chart)", id, id, id)
	}
	return "", fmt.Errorf("is no chart or table of the lab's view")
}

// projectedOf returns what projector view shows for a step that focuses id, as shownOf writes
// it: the chart of that id, else the table, else "" (web/static/js/present.js).
func projectedOf(v lab.View, id string) string {
	switch {
	case id == "":
		return ""
	case slices.ContainsFunc(v.Charts, func(c lab.Chart) bool { return c.ID == id }):
		return "chart " + id
	case slices.ContainsFunc(v.Tables, func(t lab.Table) bool { return t.ID == id }):
		return "table " + id
	}
	return ""
}

// checkNamed checks that the sentence of text holding the quote's figure (at at) names the
// settings it is measured at: for a figure measured at the defaults, the word "default"; else
// every parameter whose value is not the default, by its name, its label, its value (a
// number as written, with or without a unit, a small one also as a word) or its option's
// label — except the view's key (the algorithms, strategies or policies compared), which
// picks the series a figure belongs to and which the sentence names in its own words. A help
// text, a note or a chart's help is read beside whatever scenario is on screen, so a figure
// that does not say where it comes from reads as a claim about that scenario.
func checkNamed(t *testing.T, l *lab.Lab, q Quote, text string, at int, scenario string) {
	t.Helper()
	sentence := sentenceAt(text, at, at+len(q.Says))
	lower := strings.ToLower(sentence)
	if scenario == "" {
		if !strings.Contains(lower, "default") {
			t.Errorf("%s quotes %q measured at the defaults, but its sentence does not say so: %q", q.In, q.Says, sentence)
		}
		return
	}
	u, err := url.Parse(l.URL(mustParse(t, l, scenario)))
	if err != nil {
		t.Fatal(err)
	}
	for name, vals := range u.Query() {
		sp, ok := l.Params.Lookup(name)
		if !ok || len(vals) == 0 || name == l.View.Key {
			continue
		}
		if !named(lower, sp, vals[0]) {
			t.Errorf("%s quotes %q measured at %s=%s, but its sentence does not name that setting: %q", q.In, q.Says, name, vals[0], sentence)
		}
	}
}

// sentenceAt returns the sentence of text around [from, to): from after the last ". " before
// from to the first ". " after to.
func sentenceAt(text string, from, to int) string {
	start := strings.LastIndex(text[:from], ". ")
	if start < 0 {
		start = 0
	} else {
		start += 2
	}
	end := strings.Index(text[to:], ". ")
	if end < 0 {
		return text[start:]
	}
	return text[start : to+end+1]
}

// smallWords are the words the texts write small numbers with.
var smallWords = []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}

// named reports whether a lower-cased sentence names parameter sp at value raw.
func named(lower string, sp param.Spec, raw string) bool {
	word := func(w string) bool {
		if w == "" {
			return false
		}
		return regexp.MustCompile(`(^|[^\pL\pN_])` + regexp.QuoteMeta(strings.ToLower(w)) + `($|[^\pL\pN_])`).MatchString(lower)
	}
	if word(sp.Name) || word(sp.Label) || word(raw) {
		return true
	}
	switch sp.Kind {
	case param.Enum:
		return word(sp.OptionLabel(raw))
	case param.EnumList:
		for _, o := range strings.Split(raw, ",") {
			if !word(o) && !word(sp.OptionLabel(o)) {
				return false
			}
		}
		return true
	case param.Int, param.Float:
		if f, err := strconv.ParseFloat(raw, 64); err == nil {
			if f == math.Trunc(f) && f >= 1000 && word(Thousands(int64(f))) {
				return true
			}
			if f == math.Trunc(f) && f >= 0 && int(f) < len(smallWords) && word(smallWords[int(f)]) {
				return true
			}
		}
	case param.Duration:
		if d, err := time.ParseDuration(raw); err == nil {
			for _, unit := range []struct {
				d     time.Duration
				names string
			}{{time.Hour, `h|hours?`}, {time.Minute, `min|minutes?|m`}, {time.Second, `s|seconds?`}, {time.Millisecond, `ms|milliseconds?`}} {
				if d%unit.d == 0 {
					n := strconv.FormatInt(int64(d/unit.d), 10)
					if regexp.MustCompile(`(^|[^\pL\pN_.])` + n + `[ -]?(` + unit.names + `)($|[^\pL\pN_])`).MatchString(lower) {
						return true
					}
					if n == "1" && regexp.MustCompile(`\ban? (`+unit.names+`)\b`).MatchString(lower) {
						return true
					}
				}
			}
		}
	}
	return false
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

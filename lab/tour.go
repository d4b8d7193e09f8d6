package lab

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/resilience-playground/playground/param"
)

// A Tour is a guided walk through a lab: ordered steps, each a scenario and a few sentences
// on what to look at, that reproduce a source's figures. A presenter stepping through a tour
// moves the whole room; a step is named "{tour}/{n}" (n from 1), and a page opened with the
// fragment #tour={tour}/{n} shows that step.
type Tour struct {
	Name  string `json:"name"`  // identifier, unique in the lab: lowercase letters, digits and '-'
	Title string `json:"title"` // shown in lists of tours
	Steps []Step `json:"steps"`
}

// A Step is one scenario of a tour: either a step that shows and says (Text), or a step that
// asks the class to predict (Question) and answers only once revealed (Explanation). A
// prediction's page hides the charts and tables until someone reveals them, so the words shown
// before must not give the answer away: its question stands alone, with no Text.
type Step struct {
	Title string `json:"title"`
	// URL is the scenario in canonical form (the lab's path and its non-default parameters).
	URL string `json:"url"`
	// Text is two or three sentences in our own words on what the scenario shows. A step that
	// asks for a prediction has none.
	Text string `json:"text,omitempty"`
	// Question, when set, makes the step a prediction: the class answers it before the charts,
	// the tables and the Explanation are revealed. It sets the scene (what the scenario is) and
	// asks; it never states what the scenario shows.
	Question string `json:"question,omitempty"`
	// Explanation answers the Question, in our own words, with what the scenario shows; the
	// page shows it only after Reveal.
	Explanation string `json:"explanation,omitempty"`
	// Gives lists, for a prediction, the words that would give its answer away ("spread
	// out", "sinkhole"), in lower case: CheckTours refuses a prediction without them, and
	// any of them in the lab's Intro — printed just above the tour on the presenter's page —
	// or in the step's own Question. An introduction sets up its tours' questions; it does
	// not answer them. Not sent to the page.
	Gives []string `json:"-"`
	// Focus names the chart or table (by id) the step is about: projector view shows it.
	Focus string `json:"focus,omitempty"`
	// Controls names the parameters the step is about: projector view shows their controls
	// beside the chart.
	Controls []string `json:"controls,omitempty"`
	// Answer is the answer space of a prediction, which a room's followers answer in and its
	// presenter sees tallied, and its true answer. Every prediction has one.
	Answer *Answer `json:"answer,omitempty"`
}

// An Answer is what a class may answer to a prediction: a choice among named Options, or a
// number on a scale (Min to Max by Step, in Unit). Truth is the true answer as the step's
// scenario computes it — an option's ID, or the number written as [Answer.Value] writes it —
// held to the scenario by the lab's quote test (an "answer:{tour}/{n}" quote), so a model
// that moves the answer fails a test, not a class. Truth is never sent with the page: a room
// sends it on Reveal.
type Answer struct {
	Options []Choice `json:"options,omitempty"`
	Unit    string   `json:"unit,omitempty"`
	Min     float64  `json:"min,omitempty"`
	Max     float64  `json:"max,omitempty"`
	Step    float64  `json:"step,omitempty"`
	Truth   string   `json:"-"`
}

// A Choice is one option of an Answer: ID is what a follower sends and the tally counts, Label
// what the page shows.
type Choice struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// MaxAnswerValues bounds the answers a number's scale may allow ((Max-Min)/Step + 1), so that a
// step's tally has at most as many bars as a projector can show.
const MaxAnswerValues = 201

// Value returns the canonical form of an answer v to a, or false if v is none of its answers: an
// option's ID, or a number on the scale, written with as many decimals as Step has ("64",
// "1.88").
func (a *Answer) Value(v string) (string, bool) {
	if a == nil || len(v) > 32 {
		return "", false
	}
	if len(a.Options) > 0 {
		for _, o := range a.Options {
			if o.ID == v {
				return v, true
			}
		}
		return "", false
	}
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || x < a.Min-a.Step/2 || x > a.Max+a.Step/2 {
		return "", false
	}
	k := math.Round((x - a.Min) / a.Step)
	return strconv.FormatFloat(a.Min+k*a.Step, 'f', a.decimals(), 64), true
}

// decimals is how many decimals a's Step has.
func (a *Answer) decimals() int {
	d := 0
	for s := a.Step; d < 6 && math.Abs(s-math.Round(s)) > 1e-9; s *= 10 {
		d++
	}
	return d
}

// check reports the first problem with a: neither options nor a scale, or both; an option
// without ID or label, or twice; a scale that is empty or too fine; a truth that is no answer
// (or not in canonical form).
func (a *Answer) check() error {
	switch {
	case len(a.Options) > 0 && (a.Step != 0 || a.Unit != ""):
		return fmt.Errorf("an answer is options or a number, not both")
	case len(a.Options) == 1:
		return fmt.Errorf("a choice needs two options or more")
	case len(a.Options) == 0 && !(a.Step > 0 && a.Max > a.Min):
		return fmt.Errorf("a number needs a scale: Min < Max and Step > 0")
	case len(a.Options) == 0 && (a.Max-a.Min)/a.Step+1 > MaxAnswerValues+1e-9:
		return fmt.Errorf("a number's scale allows %.0f answers; at most %d", (a.Max-a.Min)/a.Step+1, MaxAnswerValues)
	}
	seen := map[string]bool{}
	for _, o := range a.Options {
		if o.ID == "" || o.Label == "" || len(o.ID) > 32 || strings.Trim(o.ID, "abcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
			return fmt.Errorf("option %q: want an ID of lowercase letters, digits, '_' and '-' (at most 32) and a label", o.ID)
		}
		if seen[o.ID] {
			return fmt.Errorf("option %q declared twice", o.ID)
		}
		seen[o.ID] = true
	}
	if v, ok := a.Value(a.Truth); !ok || v != a.Truth {
		return fmt.Errorf("truth %q is not one of the answers in canonical form", a.Truth)
	}
	return nil
}

// Predicts reports whether the step asks the class to predict before it reveals.
func (s Step) Predicts() bool { return s.Question != "" }

// FindStep returns the step named id ("{tour}/{n}") among l's tours.
func (l *Lab) FindStep(id string) (Tour, int, bool) {
	name, n, ok := strings.Cut(id, "/")
	if !ok {
		return Tour{}, 0, false
	}
	i, err := strconv.Atoi(n)
	if err != nil {
		return Tour{}, 0, false
	}
	for _, t := range l.Tours {
		if t.Name == name && i >= 1 && i <= len(t.Steps) {
			return t, i, true
		}
	}
	return Tour{}, 0, false
}

// CheckTours reports the first problem with l's tours: a name that is missing, repeated or
// not URL-safe, a step without title or text, a prediction without its question or its
// explanation or with a text shown before the reveal, a prediction without an answer space or
// with one that is malformed or whose truth is none of its answers, a prediction whose answer
// (its Gives) the lab's introduction or the question itself states, a focus that names no chart
// or table of l's view, controls that name no parameter, a step that sets or shows a parameter
// whose control its scenario hides, a sweep on show but not in focus, or a step URL that is not
// one of l's scenarios
// (keeping its rules across parameters) in canonical form.
func (l *Lab) CheckTours() error {
	seen := map[string]bool{}
	for _, t := range l.Tours {
		if t.Name == "" || strings.Trim(t.Name, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return fmt.Errorf("lab %s: tour name %q: want lowercase letters, digits and '-'", l.Name, t.Name)
		}
		if seen[t.Name] {
			return fmt.Errorf("lab %s: tour %q declared twice", l.Name, t.Name)
		}
		seen[t.Name] = true
		if t.Title == "" || len(t.Steps) == 0 {
			return fmt.Errorf("lab %s: tour %q needs a title and steps", l.Name, t.Name)
		}
		for i, s := range t.Steps {
			where := fmt.Sprintf("lab %s: tour %s, step %d", l.Name, t.Name, i+1)
			switch {
			case s.Title == "":
				return fmt.Errorf("%s: needs a title", where)
			case (s.Question == "") != (s.Explanation == ""):
				return fmt.Errorf("%s: a prediction needs both a question and its explanation", where)
			case s.Question != "" && s.Text != "":
				return fmt.Errorf("%s: a prediction shows only its question before the reveal; move the text into the question or the explanation", where)
			case s.Question == "" && s.Text == "":
				return fmt.Errorf("%s: needs a text, or a question and its explanation", where)
			case s.Question != "" && s.Answer == nil:
				return fmt.Errorf("%s: a prediction needs an answer space (options or a scale) and its truth", where)
			case s.Question == "" && s.Answer != nil:
				return fmt.Errorf("%s: only a prediction has an answer", where)
			case s.Question != "" && len(s.Gives) == 0:
				return fmt.Errorf("%s: a prediction lists the words that would give its answer away (Gives)", where)
			case s.Question == "" && len(s.Gives) > 0:
				return fmt.Errorf("%s: Gives is for predictions only", where)
			}
			if s.Answer != nil {
				if err := s.Answer.check(); err != nil {
					return fmt.Errorf("%s: %w", where, err)
				}
			}
			for _, g := range s.Gives {
				if g == "" || g != strings.ToLower(g) {
					return fmt.Errorf("%s: Gives %q: want a lower-case phrase", where, g)
				}
				if strings.Contains(strings.ToLower(l.Intro), g) {
					return fmt.Errorf("%s: the lab's introduction gives the answer away (%q) just above the question %q", where, g, s.Question)
				}
				if strings.Contains(strings.ToLower(s.Question), g) {
					return fmt.Errorf("%s: the question gives its own answer away (%q)", where, g)
				}
			}
			if s.Focus != "" && !l.View.has(s.Focus) {
				return fmt.Errorf("%s: focus %q is no chart or table of the lab's view", where, s.Focus)
			}
			for _, c := range s.Controls {
				if _, ok := l.Params.Lookup(c); !ok {
					return fmt.Errorf("%s: control %q is no parameter of the lab", where, c)
				}
			}
			u, err := url.Parse(s.URL)
			if err != nil || u.Path != "/"+l.Name || u.Fragment != "" {
				return fmt.Errorf("%s: URL %q is not a scenario of this lab", where, s.URL)
			}
			v, err := l.Parse(u.RawQuery)
			if err != nil {
				return fmt.Errorf("%s: URL %q: %w", where, s.URL, err)
			}
			if c := l.URL(v); c != s.URL {
				return fmt.Errorf("%s: URL %q is not canonical; write %q", where, s.URL, c)
			}
			// What a step sets or points to is on show: no parameter it names has its control
			// hidden in its own scenario ("Store latency: 20 ms" with a store that has none).
			named := slices.Clone(s.Controls)
			for k := range u.Query() {
				named = append(named, k)
			}
			for _, n := range named {
				if sp, ok := l.Params.Lookup(n); ok && sp.Applies != nil && !sp.Applies.Holds(v) {
					return fmt.Errorf("%s: it sets or shows %s, whose control is hidden in its scenario (shown only when %s is %v)", where, n, sp.Applies.Param, appliesWords(*sp.Applies))
				}
			}
			if err := l.checkFocusOnSweep(s, v); err != nil {
				return fmt.Errorf("%s: %w", where, err)
			}
		}
	}
	return nil
}

// checkFocusOnSweep reports a step whose scenario v turns on a sweep (a parameter charts
// Need) without focusing one of the charts that draw it: the sweep is why the step turns it
// on, and projector view shows the focus — a step discussing sweep charts while the projector
// shows a histogram, the sweep a screen further down, is what this rules out.
func (l *Lab) checkFocusOnSweep(s Step, v param.Values) error {
	var need []string // charts drawing a sweep the step turns on
	for _, c := range l.View.Charts {
		if c.Needs == "" {
			continue
		}
		// A sweep on by default is no sweep the step turns on (the backoff lab's clients).
		if sp, ok := l.Params.Lookup(c.Needs); !ok || sp.Kind != param.IntRange || sp.Default != "off" || v.Range(c.Needs).Off {
			continue
		}
		if c.ID == s.Focus {
			return nil
		}
		need = append(need, c.ID)
	}
	if len(need) == 0 {
		return nil
	}
	return fmt.Errorf("its scenario turns on a sweep drawn by %s, but it focuses %q", strings.Join(need, ", "), s.Focus)
}

// has reports whether id names a chart or a table of v.
func (v View) has(id string) bool {
	for _, c := range v.Charts {
		if c.ID == id {
			return true
		}
	}
	for _, t := range v.Tables {
		if t.ID == id {
			return true
		}
	}
	return false
}

// appliesWords writes a control's condition for an error message.
func appliesWords(w param.When) string {
	if w.Min != nil {
		return fmt.Sprintf("at least %g", *w.Min)
	}
	return strings.Join(w.Values, " or ")
}

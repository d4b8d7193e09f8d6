package lab

import (
	"fmt"
	"net/url"
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
// explanation or with a text shown before the reveal, a focus that names no chart or table of
// l's view, controls that name no parameter, a prediction whose answer (its Gives) the lab's
// introduction or the question itself states, or a step URL that is not one of l's scenarios
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
			case s.Question != "" && len(s.Gives) == 0:
				return fmt.Errorf("%s: a prediction lists the words that would give its answer away (Gives)", where)
			case s.Question == "" && len(s.Gives) > 0:
				return fmt.Errorf("%s: Gives is for predictions only", where)
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
		if sp, ok := l.Params.Lookup(c.Needs); !ok || sp.Kind != param.IntRange || v.Range(c.Needs).Off {
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

package lab

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
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

// A Step is one scenario of a tour.
type Step struct {
	Title string `json:"title"`
	// URL is the scenario in canonical form (the lab's path and its non-default parameters).
	URL string `json:"url"`
	// Text is two or three sentences in our own words on what the scenario shows.
	Text string `json:"text"`
	// Predict, when set, is a question the class answers before the charts are revealed.
	Predict string `json:"predict,omitempty"`
}

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
// not URL-safe, a step without title or text, or a step URL that is not one of l's scenarios
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
			if s.Title == "" || s.Text == "" {
				return fmt.Errorf("%s: needs a title and text", where)
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
		}
	}
	return nil
}

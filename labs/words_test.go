package labs_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/web/templates"
)

// identifier is a word written like a Go or JavaScript identifier (loadRow, maxActive): in
// text a person reads, a refactor's rename that reached a string.
var identifier = regexp.MustCompile(`\b[a-z]{2,}[A-Z][a-z]+[A-Za-z]*\b`)

// TestNoIdentifiersInText: no text of any lab a person reads — its title and introduction,
// its parameters' labels and help, its view's charts, tables and notes, its tours — holds a
// word written like an identifier. A rename of the type Load to loadRow once made the
// load-balancing lab's introduction cite the SRE book's chapter as “loadRow Balancing in the
// Datacenter”.
func TestNoIdentifiersInText(t *testing.T) {
	for _, l := range labs.Registry().All() {
		spec := templates.Spec(l)
		spec["title"], spec["intro"], spec["tours"] = l.Title, l.Intro, l.Tours
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		var walk func(path string, v any)
		walk = func(path string, v any) {
			switch v := v.(type) {
			case string:
				if w := identifier.FindString(v); w != "" {
					t.Errorf("%s %s: %q in %q", l.Name, path, w, v)
				}
			case []any:
				for _, x := range v {
					walk(path+"[]", x)
				}
			case map[string]any:
				for k, x := range v {
					walk(path+"."+k, x)
				}
			}
		}
		walk("", v)
	}
}

package param_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// conformance is param/testdata/conformance.json: parameters of every kind and, for each, raw
// values with the canonical form the server writes or the error message it gives. The page's
// parameter rules (web/static/js/params.js) run the same vectors in Chromium
// (e2e.TestParamsConformance), so that the page says what the server says, word for word.
type conformance struct {
	Params  []map[string]json.RawMessage `json:"params"`
	Vectors []struct {
		Param     string `json:"param"`
		Raw       string `json:"raw"`
		Canonical string `json:"canonical"`
		Error     string `json:"error"`
	} `json:"vectors"`
}

// readConformance reads the vectors and their parameters (whose kinds are written by name).
func readConformance(tb testing.TB) (param.Set, conformance) {
	tb.Helper()
	b, err := os.ReadFile("testdata/conformance.json")
	if err != nil {
		tb.Fatal(err)
	}
	var c conformance
	if err := json.Unmarshal(b, &c); err != nil {
		tb.Fatal(err)
	}
	kinds := map[string]param.Kind{}
	for k := param.Int; k <= param.IntRange; k++ {
		kinds[k.String()] = k
	}
	var set param.Set
	for _, raw := range c.Params {
		var kind string
		if err := json.Unmarshal(raw["kind"], &kind); err != nil {
			tb.Fatal(err)
		}
		delete(raw, "kind")
		rest, _ := json.Marshal(raw)
		var sp param.Spec
		if err := json.Unmarshal(rest, &sp); err != nil {
			tb.Fatal(err)
		}
		k, ok := kinds[kind]
		if !ok {
			tb.Fatalf("parameter %s: unknown kind %q", sp.Name, kind)
		}
		sp.Kind = k
		set = append(set, sp)
	}
	return set, c
}

// TestConformance checks every vector against the parser: the canonical form (Values.Format)
// of a valid value, the message of an invalid one. Every kind has vectors of both.
func TestConformance(t *testing.T) {
	set, c := readConformance(t)
	set.Defaults() // the declarations themselves are valid
	seen := map[string]map[bool]int{}
	for _, v := range c.Vectors {
		sp, ok := set.Lookup(v.Param)
		if !ok {
			t.Fatalf("vector of an undeclared parameter %q", v.Param)
		}
		if (v.Error == "") == (v.Canonical == "") {
			t.Fatalf("%s=%q: a vector has a canonical form or an error, exactly one", v.Param, v.Raw)
		}
		if seen[sp.Kind.String()] == nil {
			seen[sp.Kind.String()] = map[bool]int{}
		}
		seen[sp.Kind.String()][v.Error == ""]++
		got, err := set.Parse(url.Values{v.Param: {v.Raw}})
		switch {
		case err != nil && err.Error() != v.Error:
			t.Errorf("%s=%q: error %q, the vector says %s", v.Param, v.Raw, err, want(v.Canonical, v.Error))
		case err == nil && got.Format(v.Param) != v.Canonical:
			t.Errorf("%s=%q: canonical %q, the vector says %s", v.Param, v.Raw, got.Format(v.Param), want(v.Canonical, v.Error))
		case err != nil && err.(*param.Error).Param != v.Param:
			t.Errorf("%s=%q: the error names %q", v.Param, v.Raw, err.(*param.Error).Param)
		}
	}
	for k := param.Int; k <= param.IntRange; k++ {
		if s := seen[k.String()]; s[true] == 0 || s[false] == 0 {
			t.Errorf("kind %s: %d valid and %d invalid vectors, want some of each", k, s[true], s[false])
		}
	}
}

func want(canonical, msg string) string {
	if msg != "" {
		return fmt.Sprintf("error %q", msg)
	}
	return fmt.Sprintf("canonical %q", canonical)
}

package param_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/labs/backoff"
	"github.com/resilience-playground/playground/param"
)

// FuzzParseQuery parses arbitrary queries against the backoff lab's parameters. It must never
// panic; a query that parses must survive the canonical round trip; a query that does not
// must fail with a *param.Error that says what is wrong. Salvaging the same query must agree.
// More seeds are in testdata/fuzz/FuzzParseQuery.
func FuzzParseQuery(f *testing.F) {
	for _, seed := range []string{
		"",
		"clients=5",
		"strategies=decorrelated,none&sweep=off&cap=90s",
		"strategies=full,full",
		"base=0.1ms&cap=86400000ms&multiplier=10&seed=9007199254740991",
		"sweep=1:100:1",
		"sweep=-1:5:0",
		"multiplier=NaN&clients=1e3",
		"clients=1&clients=2",
		"x=%zz",
		"a;b",
		"latency_mean=1%C2%B5s",
	} {
		f.Add(seed)
	}
	s := backoff.Params
	f.Fuzz(func(t *testing.T, raw string) {
		v, err := s.ParseQuery(raw)
		sv, errs := s.SalvageQuery(raw)
		if err != nil {
			var pe *param.Error
			if !errors.As(err, &pe) {
				t.Fatalf("ParseQuery(%q): error %v is %T, not *param.Error", raw, err, err)
			}
			if pe.Msg == "" {
				t.Fatalf("ParseQuery(%q): empty message in %+v", raw, pe)
			}
			if _, known := s.Lookup(pe.Param); known && !strings.Contains(pe.Msg, pe.Param) {
				t.Fatalf("ParseQuery(%q): message %q does not name %s", raw, pe.Msg, pe.Param)
			}
			if v.Set() != nil {
				t.Fatalf("ParseQuery(%q) failed but returned values", raw)
			}
			if len(errs) == 0 {
				t.Fatalf("SalvageQuery(%q) found no error where ParseQuery found %v", raw, err)
			}
		} else {
			if len(errs) != 0 {
				t.Fatalf("SalvageQuery(%q) found errors %v in a valid query", raw, errs)
			}
			if !reflect.DeepEqual(v, sv) {
				t.Fatalf("SalvageQuery(%q) and ParseQuery disagree", raw)
			}
		}
		for _, e := range errs {
			if e == nil || e.Msg == "" {
				t.Fatalf("SalvageQuery(%q): empty error in %v", raw, errs)
			}
		}
		// Whatever was salvaged is a valid scenario with a stable canonical form.
		for _, x := range []param.Values{v, sv} {
			if x.Set() == nil {
				continue
			}
			enc := x.Encode()
			y, err := s.ParseQuery(enc)
			if err != nil {
				t.Fatalf("ParseQuery(%q) ok, but its Encode() %q fails: %v", raw, enc, err)
			}
			if again := y.Encode(); again != enc {
				t.Fatalf("ParseQuery(%q): Encode() %q re-encodes as %q", raw, enc, again)
			}
			if !reflect.DeepEqual(x, y) {
				t.Fatalf("ParseQuery(%q): values change through Encode() %q", raw, enc)
			}
		}
	})
}

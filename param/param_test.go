package param_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/labs/backoff"
	"github.com/resilience-playground/playground/param"
)

// kinds is a synthetic Set with one parameter of every Kind. Its bounds include negative
// numbers, and its enum options need escaping, so that the tests reach what backoff.Params
// does not.
var kinds = param.Set{
	{Name: "n", Label: "N", Kind: param.Int, Default: "5", Min: -10, Max: 100, Step: 1},
	{Name: "x", Label: "X", Kind: param.Float, Default: "0.5", Min: -1, Max: 1.5, Step: 0.1},
	{Name: "d", Label: "D", Kind: param.Duration, Default: "1s", Min: 0.5, Max: 3600000, Unit: "ms"},
	{Name: "mode", Label: "Mode", Kind: param.Enum, Default: "b", Options: []string{"a", "b", "c d", "e+f"}},
	{Name: "set", Label: "Set", Kind: param.EnumList, Default: "a,c", Options: []string{"a", "b", "c", "d"}},
	{Name: "on", Label: "On", Kind: param.Bool, Default: "false"},
	{Name: "r", Label: "R", Kind: param.IntRange, Default: "off", Min: 0, Max: 100, MaxLen: 10},
}

// get returns the named parameter through the typed accessor of its kind.
func get(t *testing.T, v param.Values, name string) any {
	t.Helper()
	sp, ok := v.Set().Lookup(name)
	if !ok {
		t.Fatalf("no parameter %q", name)
	}
	switch sp.Kind {
	case param.Int:
		return v.Int(name)
	case param.Float:
		return v.Float(name)
	case param.Duration:
		return v.Duration(name)
	case param.Enum:
		return v.String(name)
	case param.EnumList:
		return v.List(name)
	case param.Bool:
		return v.Bool(name)
	case param.IntRange:
		return v.Range(name)
	}
	t.Fatalf("parameter %q has kind %d", name, sp.Kind)
	return nil
}

// mustParse parses a query that must be valid.
func mustParse(t *testing.T, s param.Set, raw string) param.Values {
	t.Helper()
	v, err := s.ParseQuery(raw)
	if err != nil {
		t.Fatalf("ParseQuery(%q): %v", raw, err)
	}
	return v
}

// asParamError checks that err is a *param.Error with a message and returns it.
func asParamError(t *testing.T, err error) *param.Error {
	t.Helper()
	var pe *param.Error
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *param.Error", err, err)
	}
	if pe.Msg == "" {
		t.Fatalf("*param.Error %+v has an empty message", pe)
	}
	if pe.Error() != pe.Msg {
		t.Errorf("Error() = %q, want Msg %q", pe.Error(), pe.Msg)
	}
	return pe
}

func TestParseValid(t *testing.T) {
	zeros := strings.Repeat("0", param.MaxValueLen-1)
	tests := []struct {
		query string
		name  string
		want  any
		canon string // the canonical query of the whole scenario
	}{
		{"", "n", int64(5), ""},
		{"n=0", "n", int64(0), "n=0"},
		{"n=-10", "n", int64(-10), "n=-10"},
		{"n=100", "n", int64(100), "n=100"},
		{"n=%2B7", "n", int64(7), "n=7"},
		{"n=007", "n", int64(7), "n=7"},
		{"n=5", "n", int64(5), ""},
		{"n=" + zeros + "9", "n", int64(9), "n=9"},                                // exactly MaxValueLen bytes
		{"n=7&" + strings.Repeat("&", param.MaxQueryLen-4), "n", int64(7), "n=7"}, // exactly MaxQueryLen bytes
		{"", "x", 0.5, ""},
		{"x=0", "x", 0.0, "x=0"},
		{"x=-1", "x", -1.0, "x=-1"},
		{"x=1.5", "x", 1.5, "x=1.5"},
		{"x=1e-3", "x", 0.001, "x=0.001"},
		{"x=.25", "x", 0.25, "x=0.25"},
		{"x=0x1p-2", "x", 0.25, "x=0.25"},
		{"x=0.50", "x", 0.5, ""},
		{"x=1.4999999999999998", "x", 1.4999999999999998, "x=1.4999999999999998"},
		{"", "d", time.Second, ""},
		{"d=0.5ms", "d", 500 * time.Microsecond, "d=500%C2%B5s"},
		{"d=500us", "d", 500 * time.Microsecond, "d=500%C2%B5s"},
		{"d=500%C2%B5s", "d", 500 * time.Microsecond, "d=500%C2%B5s"},
		{"d=500%CE%BCs", "d", 500 * time.Microsecond, "d=500%C2%B5s"},
		{"d=1h", "d", time.Hour, "d=1h"},
		{"d=1h0m0s", "d", time.Hour, "d=1h"},
		{"d=60m", "d", time.Hour, "d=1h"},
		{"d=1000ms", "d", time.Second, ""},
		{"d=1.5s", "d", 1500 * time.Millisecond, "d=1.5s"},
		{"d=90s", "d", 90 * time.Second, "d=1m30s"},
		{"d=2m0s", "d", 2 * time.Minute, "d=2m"},
		{"", "mode", "b", ""},
		{"mode=a", "mode", "a", "mode=a"},
		{"mode=c+d", "mode", "c d", "mode=c+d"},
		{"mode=c%20d", "mode", "c d", "mode=c+d"},
		{"mode=e%2Bf", "mode", "e+f", "mode=e%2Bf"},
		{"", "set", []string{"a", "c"}, ""},
		{"set=c,a", "set", []string{"a", "c"}, ""},
		{"set=d,a", "set", []string{"a", "d"}, "set=a,d"},
		{"set=a%2Cb", "set", []string{"a", "b"}, "set=a,b"},
		{"set=b", "set", []string{"b"}, "set=b"},
		{"set=d,c,b,a", "set", []string{"a", "b", "c", "d"}, "set=a,b,c,d"},
		{"", "on", false, ""},
		{"on=true", "on", true, "on=true"},
		{"on=1", "on", true, "on=true"},
		{"on=false", "on", false, ""},
		{"on=0", "on", false, ""},
		{"", "r", param.Range{Off: true}, ""},
		{"r=off", "r", param.Range{Off: true}, ""},
		{"r=0:9:1", "r", param.Range{From: 0, To: 9, Step: 1}, "r=0:9:1"},
		{"r=0%3A90%3A10", "r", param.Range{From: 0, To: 90, Step: 10}, "r=0:90:10"},
		{"r=5:5:1", "r", param.Range{From: 5, To: 5, Step: 1}, "r=5:5:1"},
		{"r=1:100:99", "r", param.Range{From: 1, To: 100, Step: 99}, "r=1:100:99"},
		{"r=0:100:1000", "r", param.Range{From: 0, To: 0, Step: 1000}, "r=0:0:1000"},
		{"r=%2B3:007:2", "r", param.Range{From: 3, To: 7, Step: 2}, "r=3:7:2"},
		{"on=1&n=1&r=1:2:1", "n", int64(1), "n=1&on=true&r=1:2:1"},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v := mustParse(t, kinds, tt.query)
			if got := get(t, v, tt.name); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("%s = %#v, want %#v", tt.name, got, tt.want)
			}
			if got := v.Encode(); got != tt.canon {
				t.Errorf("Encode() = %q, want %q", got, tt.canon)
			}
			if got, want := v.Format(tt.name), mustParse(t, kinds, tt.canon).Format(tt.name); got != want {
				t.Errorf("Format(%q) = %q, canonical form gives %q", tt.name, got, want)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	long := strings.Repeat("0", param.MaxValueLen) + "1"
	longQuery := "n=5&" + strings.Repeat("&", param.MaxQueryLen-4) // valid: see TestParseValid
	longName := strings.Repeat("z", 100)
	tests := []struct {
		set   param.Set
		query string
		param string   // the Param of the error; "" for the query as a whole
		want  []string // substrings of the message
	}{
		// Int.
		{kinds, "n=", "n", []string{"n must not be empty; use a value between -10 and 100"}},
		{kinds, "n", "n", []string{"n must not be empty; use a value between -10 and 100"}},
		{kinds, "n=abc", "n", []string{`n must be a whole number between -10 and 100, got "abc"`}},
		{kinds, "n=1.5", "n", []string{"whole number", `"1.5"`}},
		{kinds, "n=1e3", "n", []string{"whole number"}},
		{kinds, "n=0x10", "n", []string{"whole number"}},
		{kinds, "n=1_000", "n", []string{"whole number"}},
		{kinds, "n=+5+", "n", []string{"whole number"}}, // "+" decodes to a space
		{kinds, "n=NaN", "n", []string{"whole number"}},
		{kinds, "n=Inf", "n", []string{"whole number"}},
		{kinds, "n=101", "n", []string{"n must be between -10 and 100, got 101"}},
		{kinds, "n=-11", "n", []string{"n must be between -10 and 100, got -11"}},
		{kinds, "n=9223372036854775807", "n", []string{"between -10 and 100"}},
		{kinds, "n=-9223372036854775808", "n", []string{"between -10 and 100"}},
		// Beyond int64 the message calls a whole number malformed and omits the range.
		{kinds, "n=99999999999999999999", "n", []string{"n must be a whole number"}},
		{kinds, "n=" + long, "n", []string{"n is 257 bytes long; the limit is 256"}},
		// Float.
		{kinds, "x=", "x", []string{"x must not be empty; use a value between -1 and 1.5"}},
		{kinds, "x=abc", "x", []string{`x must be a finite number between -1 and 1.5, got "abc"`}},
		{kinds, "x=NaN", "x", []string{"x must be a finite number", `"NaN"`}},
		{kinds, "x=nan", "x", []string{"finite number"}},
		{kinds, "x=%2BInf", "x", []string{"finite number", `"+Inf"`}},
		{kinds, "x=-Inf", "x", []string{"finite number", `"-Inf"`}},
		{kinds, "x=Inf", "x", []string{"finite number"}},
		{kinds, "x=infinity", "x", []string{"finite number"}},
		{kinds, "x=1e309", "x", []string{"finite number"}},
		{kinds, "x=-1e309", "x", []string{"finite number"}},
		{kinds, "x=1,5", "x", []string{"finite number"}},
		{kinds, "x=1.5000001", "x", []string{"x must be between -1 and 1.5, got 1.5000001"}},
		{kinds, "x=-1.01", "x", []string{"x must be between -1 and 1.5, got -1.01"}},
		{kinds, "x=1e308", "x", []string{"between -1 and 1.5"}},
		{kinds, "x=" + long, "x", []string{"x is 257 bytes long"}},
		// Duration.
		{kinds, "d=", "d", []string{"d must not be empty; use a value between 500µs and 1h"}},
		{kinds, "d=5", "d", []string{`d must be a duration such as 5ms or 2s between 500µs and 1h, got "5"`}},
		{kinds, "d=5 ms", "d", []string{"duration"}},
		{kinds, "d=1e3ms", "d", []string{"duration"}},
		{kinds, "d=NaNs", "d", []string{"duration"}},
		{kinds, "d=9999999999h", "d", []string{"duration"}},
		{kinds, "d=0s", "d", []string{"d must be between 500µs and 1h, got 0s"}},
		{kinds, "d=0", "d", []string{"between 500µs and 1h"}},
		{kinds, "d=-1s", "d", []string{"between 500µs and 1h, got -1s"}},
		{kinds, "d=499999ns", "d", []string{"between 500µs and 1h"}},
		{kinds, "d=1h0m0.000000001s", "d", []string{"between 500µs and 1h"}},
		{kinds, "d=2562047h", "d", []string{"between 500µs and 1h"}},
		// Enum.
		{kinds, "mode=", "mode", []string{"mode must not be empty; choose one of a, b, c d, e+f"}},
		{kinds, "mode=A", "mode", []string{`mode must be one of a, b, c d, e+f, got "A"`}},
		{kinds, "mode=e+f", "mode", []string{`got "e f"`}},
		{kinds, "mode=a,b", "mode", []string{"mode must be one of"}},
		{kinds, "mode=" + strings.Repeat("a", 300), "mode", []string{"mode is 300 bytes long; the limit is 256"}},
		// EnumList.
		{kinds, "set=", "set", []string{"set must not be empty; choose from a, b, c, d"}},
		{kinds, "set=x", "set", []string{`set: unknown value "x"; choose from a, b, c, d`}},
		{kinds, "set=A", "set", []string{`unknown value "A"`}},
		{kinds, "set=a,,b", "set", []string{`unknown value ""`}},
		{kinds, "set=a,", "set", []string{`unknown value ""`}},
		{kinds, "set=,", "set", []string{`unknown value ""`}},
		{kinds, "set=a+b", "set", []string{`unknown value "a b"`}},
		{kinds, "set=a,a", "set", []string{`set lists "a" more than once`}},
		{kinds, "set=b,a,b", "set", []string{`set lists "b" more than once`}},
		{kinds, "set=a,b,a,c", "set", []string{`set lists "a" more than once`}},
		{kinds, "set=d,d,d", "set", []string{`set lists "d" more than once`}},
		{kinds, "set=a,b,c,d,d", "set", []string{`set lists "d" more than once`}},
		// Bool.
		{kinds, "on=", "on", []string{"on must not be empty; use true or false"}},
		{kinds, "on=yes", "on", []string{`on must be true or false, got "yes"`}},
		{kinds, "on=TRUE", "on", []string{"true or false"}},
		{kinds, "on=t", "on", []string{"true or false"}},
		{kinds, "on=2", "on", []string{"true or false"}},
		// IntRange.
		{kinds, "r=", "r", []string{"r must not be empty; use from:to:step between 0 and 100, or off"}},
		{kinds, "r=OFF", "r", []string{"from:to:step", "or off"}},
		{kinds, "r=1:2", "r", []string{`r must be from:to:step, such as 10:190:10, or off, got "1:2"`}},
		{kinds, "r=1:2:3:4", "r", []string{"from:to:step"}},
		{kinds, "r=a:b:c", "r", []string{"whole numbers"}},
		{kinds, "r=1.5:2:1", "r", []string{"whole numbers"}},
		{kinds, "r=1::1", "r", []string{"whole numbers"}},
		{kinds, "r=99999999999999999999:1:1", "r", []string{"whole numbers"}},
		{kinds, "r=5:1:1", "r", []string{"r: from (5) must not exceed to (1)"}},
		{kinds, "r=200:5:1", "r", []string{"from (200) must not exceed to (5)"}},
		{kinds, "r=1:5:0", "r", []string{"r: step must be at least 1, got 0"}},
		{kinds, "r=1:5:-2", "r", []string{"step must be at least 1, got -2"}},
		{kinds, "r=-1:5:1", "r", []string{"r must lie between 0 and 100, got -1:5:1"}},
		{kinds, "r=0:101:1", "r", []string{"r must lie between 0 and 100, got 0:101:1"}},
		{kinds, "r=0:99:1", "r", []string{"r has 100 points; at most 10 are allowed"}},
		{kinds, "r=0:100:10", "r", []string{"r has 11 points; at most 10 are allowed"}},
		// Names and the query as a whole.
		{kinds, "zzz=1", "zzz", []string{`unknown parameter "zzz"; known parameters are n, x, d, mode, set, on, r`}},
		{kinds, "zzz", "zzz", []string{`unknown parameter "zzz"`}},
		{kinds, "N=1", "N", []string{`unknown parameter "N"`}},
		{kinds, longName + "=1", longName, []string{`unknown parameter "` + longName[:40] + `…"`}},
		{kinds, "b=1&a=1", "a", []string{`unknown parameter "a"`}}, // the same error whatever the order
		{kinds, "n=abc&zzz=1", "zzz", []string{`unknown parameter "zzz"`}},
		{kinds, "n=1&n=2", "n", []string{"n is given 2 times; give it once"}},
		{kinds, "n=1&n=1&n=1", "n", []string{"n is given 3 times"}},
		{kinds, "n=1&%6E=2", "n", []string{"n is given 2 times"}},
		{kinds, "x=2&n=1&n=2", "n", []string{"n is given 2 times"}},
		{kinds, "x=2&n=500", "n", []string{"n must be between"}}, // declaration order
		{kinds, longQuery + "&", "", []string{"the query is 2049 bytes long; the limit is 2048"}},
		// An overlong query blames the name that takes most of its bytes.
		{kinds, "n=1&x=" + strings.Repeat("1", param.MaxQueryLen), "x", []string{"the query is 2054 bytes long, the limit is 2048; x takes 2051 of those bytes"}},
		{kinds, strings.Repeat("n=1&", param.MaxQueryLen/4+1), "n", []string{"n takes 2052 of those bytes"}},
		{kinds, "x=1&" + strings.Repeat("%zz", param.MaxQueryLen), "", []string{"the query is 6148 bytes long; the limit is 2048"}},
		{kinds, "n=1&" + longName + "=" + strings.Repeat("1", param.MaxQueryLen), longName[:40] + "…", []string{longName[:40] + "… takes"}},
		{kinds, "n=%zz", "n", []string{"the query is malformed", `n's value "%zz"`, `invalid URL escape "%zz"`}},
		{kinds, "x=1&n=1%2", "n", []string{"the query is malformed", `n's value "1%2"`}},
		{kinds, "%zz=1", "", []string{"the query is malformed", `"%zz"`}},
		{kinds, "n=1%2", "n", []string{"the query is malformed"}},
		{kinds, "n=1;x=0", "", []string{"the query is malformed", "semicolon"}},
		// The backoff lab: zero, negative, huge and out of range, with its own units.
		{backoff.Params, "clients=0", "clients", []string{"clients must be between 1 and 1000, got 0"}},
		{backoff.Params, "clients=-5", "clients", []string{"clients must be between 1 and 1000, got -5"}},
		{backoff.Params, "clients=1001", "clients", []string{"between 1 and 1000"}},
		{backoff.Params, "trials=0", "trials", []string{"trials must be between 1 and 1000"}},
		{backoff.Params, "retries=201", "retries", []string{"retries must be between 1 and 200"}},
		{backoff.Params, "multiplier=0", "multiplier", []string{"multiplier must be between 1 and 10, got 0"}},
		{backoff.Params, "multiplier=-2", "multiplier", []string{"between 1 and 10"}},
		{backoff.Params, "multiplier=NaN", "multiplier", []string{"multiplier must be a finite number"}},
		{backoff.Params, "multiplier=%2BInf", "multiplier", []string{"finite number"}},
		{backoff.Params, "multiplier=-Inf", "multiplier", []string{"finite number"}},
		{backoff.Params, "base=0s", "base", []string{"base must be between 100µs and 1m, got 0s"}},
		{backoff.Params, "base=61s", "base", []string{"between 100µs and 1m"}},
		{backoff.Params, "cap=0s", "cap", []string{"cap must be between 1ms and 24h"}},
		{backoff.Params, "cap=25h", "cap", []string{"between 1ms and 24h, got 25h"}},
		{backoff.Params, "latency_mean=-1ms", "latency_mean", []string{"latency_mean must be between 0s and 1s, got -1ms"}},
		{backoff.Params, "latency_sd=1.001s", "latency_sd", []string{"between 0s and 1s"}},
		{backoff.Params, "seed=-1", "seed", []string{"seed must be between 0 and 9007199254740991"}},
		{backoff.Params, "seed=9007199254740992", "seed", []string{"seed must be between 0 and"}},
		{backoff.Params, "sweep=0:10:1", "sweep", []string{"sweep must lie between 1 and 1000"}},
		{backoff.Params, "sweep=1:1001:10", "sweep", []string{"sweep must lie between 1 and 1000"}},
		{backoff.Params, "sweep=1:1000:1", "sweep", []string{"sweep has 1000 points; at most 100 are allowed"}},
		{backoff.Params, "sweep=10:1:1", "sweep", []string{"from (10) must not exceed to (1)"}},
		{backoff.Params, "strategies=none,none", "strategies", []string{`strategies lists "none" more than once`}},
		{backoff.Params, "strategies=none,jitter", "strategies", []string{`unknown value "jitter"; choose from none, constant, linear`}},
		{backoff.Params, "clients=5&strategy=full", "strategy", []string{`unknown parameter "strategy"; known parameters are strategies, clients, base`}},
	}
	for _, tt := range tests {
		name := tt.query
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			v, err := tt.set.ParseQuery(tt.query)
			if err == nil {
				t.Fatalf("ParseQuery(%q) = %q, want an error", tt.query, v.Encode())
			}
			if v.Set() != nil {
				t.Errorf("ParseQuery(%q) failed but returned values of a set", tt.query)
			}
			pe := asParamError(t, err)
			if pe.Param != tt.param {
				t.Errorf("Param = %q, want %q (message %q)", pe.Param, tt.param, pe.Msg)
			}
			if _, known := tt.set.Lookup(tt.param); known && !strings.Contains(pe.Msg, tt.param) {
				t.Errorf("message %q does not name %s", pe.Msg, tt.param)
			}
			for _, w := range tt.want {
				if !strings.Contains(pe.Msg, w) {
					t.Errorf("message %q does not contain %q", pe.Msg, w)
				}
			}
			// Salvaging the same query never fails, reports the fault and gives a working scenario.
			sv, errs := tt.set.SalvageQuery(tt.query)
			if len(errs) == 0 {
				t.Errorf("SalvageQuery(%q) reported no error", tt.query)
			}
			for _, e := range errs {
				asParamError(t, e)
			}
			if _, err := tt.set.ParseQuery(sv.Encode()); err != nil {
				t.Errorf("SalvageQuery(%q) gave %q, which does not parse: %v", tt.query, sv.Encode(), err)
			}
		})
	}
}

// TestParseURLValues covers Parse on url.Values a caller built, which ParseQuery never makes.
func TestParseURLValues(t *testing.T) {
	tests := []struct {
		q       url.Values
		canon   string
		wantErr bool
		param   string // the Param of the error
	}{
		{nil, "", false, ""},
		{url.Values{}, "", false, ""},
		{url.Values{"n": {"7"}}, "n=7", false, ""},
		{url.Values{"n": nil}, "", false, ""}, // no values is not given at all
		{url.Values{"n": {}}, "", false, ""},
		{url.Values{"n": {"7", "8"}}, "", true, "n"},
		{url.Values{"n": {""}}, "", true, "n"},
		{url.Values{"": {"1"}}, "", true, ""}, // an unknown, empty name
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.q), func(t *testing.T) {
			v, err := kinds.Parse(tt.q)
			if tt.wantErr {
				if pe := asParamError(t, err); pe.Param != tt.param {
					t.Errorf("Param = %q, want %q", pe.Param, tt.param)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Encode(); got != tt.canon {
				t.Errorf("Encode() = %q, want %q", got, tt.canon)
			}
		})
	}
}

func TestInvalidDefault(t *testing.T) {
	bad := param.Set{
		{Name: "ok", Kind: param.Int, Default: "1", Min: 0, Max: 2},
		{Name: "k", Kind: param.Int, Default: "0", Min: 1, Max: 2},
	}
	_, err := bad.Parse(nil)
	pe := asParamError(t, err)
	if pe.Param != "k" || !strings.HasPrefix(pe.Msg, "default: k must be between 1 and 2") {
		t.Errorf("error = %+v, want a default error for k", pe)
	}
	// Giving the parameter a valid value avoids the bad default.
	if v, err := bad.ParseQuery("k=2"); err != nil || v.Int("k") != 2 {
		t.Errorf("ParseQuery(k=2) = %v, %v", v, err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "param: invalid default") {
				t.Errorf("Defaults() recovered %v, want a panic about the invalid default", r)
			}
		}()
		bad.Defaults()
	}()

	unknownKind := param.Set{{Name: "k", Kind: param.Kind(99), Default: "1"}}
	if _, err := unknownKind.ParseQuery("k=1"); err == nil || !strings.Contains(err.Error(), "k has an unknown kind") {
		t.Errorf("ParseQuery with an unknown kind: %v", err)
	}
}

// TestDeclaredDefaults checks every declared default parses and is omitted from its own Encode.
func TestDeclaredDefaults(t *testing.T) {
	for name, s := range map[string]param.Set{"kinds": kinds, "backoff": backoff.Params} {
		t.Run(name, func(t *testing.T) {
			d := s.Defaults()
			if got := d.Encode(); got != "" {
				t.Errorf("Defaults().Encode() = %q, want \"\"", got)
			}
			v := mustParse(t, s, "")
			if !reflect.DeepEqual(v, d) {
				t.Errorf("ParseQuery(\"\") differs from Defaults()")
			}
			for _, sp := range s {
				if got := d.Format(sp.Name); got != mustFormat(t, s, sp.Name, sp.Default) {
					t.Errorf("default %s = %q, declared %q", sp.Name, got, sp.Default)
				}
				// Setting a parameter explicitly to its default still encodes to "".
				if got := mustParse(t, s, sp.Name+"="+url.QueryEscape(sp.Default)).Encode(); got != "" {
					t.Errorf("%s=%s encodes to %q, want \"\"", sp.Name, sp.Default, got)
				}
			}
		})
	}
}

// mustFormat returns the canonical URL form of raw as a value of the named parameter.
func mustFormat(t *testing.T, s param.Set, name, raw string) string {
	t.Helper()
	return mustParse(t, s, name+"="+url.QueryEscape(raw)).Format(name)
}

func TestBackoffTypedDefaults(t *testing.T) {
	d := backoff.Params.Defaults()
	want := map[string]any{
		"strategies":   []string{"none", "exponential", "full", "equal", "decorrelated"},
		"clients":      int64(100),
		"base":         5 * time.Millisecond,
		"cap":          2 * time.Second,
		"multiplier":   2.0,
		"latency_mean": 10 * time.Millisecond,
		"latency_sd":   2 * time.Millisecond,
		"trials":       int64(100),
		"seed":         int64(1),
		"sweep":        param.Range{From: 10, To: 190, Step: 10},
		"retries":      int64(12),
	}
	for _, sp := range backoff.Params {
		w, ok := want[sp.Name]
		if !ok {
			t.Errorf("parameter %s is not covered by this test", sp.Name)
			continue
		}
		if got := get(t, d, sp.Name); !reflect.DeepEqual(got, w) {
			t.Errorf("%s = %#v, want %#v", sp.Name, got, w)
		}
	}
}

func TestEnumListCanonicalOrder(t *testing.T) {
	all := backoff.Strategies
	tests := []struct {
		raw  string
		want []string
	}{
		{"decorrelated,none", []string{"none", "decorrelated"}},
		{"full,equal,none", []string{"none", "full", "equal"}},
		{"decorrelated,equal,full,exponential,linear,constant,none", all},
		{"constant", []string{"constant"}},
	}
	for _, tt := range tests {
		v := mustParse(t, backoff.Params, "strategies="+tt.raw)
		if got := v.List("strategies"); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("strategies=%s: List = %q, want %q", tt.raw, got, tt.want)
		}
		if got, want := v.Format("strategies"), strings.Join(tt.want, ","); got != want {
			t.Errorf("strategies=%s: Format = %q, want %q", tt.raw, got, want)
		}
	}
	// Every option listed twice, adjacent or not, is rejected.
	for _, o := range all {
		for _, raw := range []string{o + "," + o, o + ",none," + o, "none," + o + "," + o, o + "," + o + "," + o} {
			_, err := backoff.Params.ParseQuery("strategies=" + raw)
			if err == nil {
				t.Errorf("strategies=%s parsed; duplicates must be rejected", raw)
				continue
			}
			if pe := asParamError(t, err); pe.Param != "strategies" || !strings.Contains(pe.Msg, "more than once") {
				t.Errorf("strategies=%s: error %+v", raw, pe)
			}
		}
	}
}

func TestRange(t *testing.T) {
	tests := []struct {
		r      param.Range
		points []int64
		str    string
	}{
		{param.Range{Off: true}, nil, "off"},
		{param.Range{From: 10, To: 190, Step: 10}, []int64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120, 130, 140, 150, 160, 170, 180, 190}, "10:190:10"},
		{param.Range{From: 1, To: 10, Step: 4}, []int64{1, 5, 9}, "1:10:4"},
		{param.Range{From: 5, To: 5, Step: 1}, []int64{5}, "5:5:1"},
		{param.Range{From: -3, To: 3, Step: 3}, []int64{-3, 0, 3}, "-3:3:3"},
		{param.Range{From: 1, To: 2, Step: 100}, []int64{1}, "1:2:100"},
	}
	for _, tt := range tests {
		if got := tt.r.Points(); !reflect.DeepEqual(got, tt.points) {
			t.Errorf("%v.Points() = %v, want %v", tt.r, got, tt.points)
		}
		if got := tt.r.Len(); got != int64(len(tt.points)) {
			t.Errorf("%v.Len() = %d, want %d", tt.r, got, len(tt.points))
		}
		if got := tt.r.String(); got != tt.str {
			t.Errorf("String() = %q, want %q", got, tt.str)
		}
		if b, _ := tt.r.MarshalText(); string(b) != tt.str {
			t.Errorf("MarshalText() = %q, want %q", b, tt.str)
		}
	}
	for _, r := range []param.Range{{From: 5, To: 1, Step: 1}, {From: 1, To: 5, Step: 0}, {From: 1, To: 5, Step: -1}} {
		if r.Len() != 0 {
			t.Errorf("%v.Len() = %d, want 0", r, r.Len())
		}
	}
}

func TestKind(t *testing.T) {
	want := map[param.Kind]string{
		param.Int: "int", param.Float: "float", param.Duration: "duration", param.Enum: "enum",
		param.EnumList: "enum_list", param.Bool: "bool", param.IntRange: "int_range",
	}
	for k, name := range want {
		if k.String() != name {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), k.String(), name)
		}
	}
	b, err := json.Marshal(kinds[4])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"kind":"enum_list"`) {
		t.Errorf("Spec JSON %s does not name its kind", b)
	}
}

func TestFormatDuration(t *testing.T) {
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "1h"},
		{2 * time.Minute, "2m"},
		{90 * time.Second, "1m30s"},
		{5 * time.Millisecond, "5ms"},
		{0, "0s"},
		{time.Second, "1s"},
		{10 * time.Minute, "10m"},
		{24 * time.Hour, "24h"},
		{90 * time.Minute, "1h30m"},
		{time.Hour + time.Second, "1h0m1s"},
		{time.Hour + 1500*time.Millisecond, "1h0m1.5s"},
		{1500 * time.Microsecond, "1.5ms"},
		{100 * time.Microsecond, "100µs"},
		{time.Nanosecond, "1ns"},
		{-time.Hour, "-1h"},
		{-2 * time.Minute, "-2m"},
	}
	for _, tt := range tests {
		got := param.FormatDuration(tt.d)
		if got != tt.want {
			t.Errorf("FormatDuration(%v) = %q, want %q", tt.d, got, tt.want)
		}
		if back, err := time.ParseDuration(got); err != nil || back != tt.d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", got, back, err, tt.d)
		}
	}
}

func TestSalvage(t *testing.T) {
	tests := []struct {
		query  string
		canon  string   // Encode of the salvaged values
		params []string // Param of each error, in order
	}{
		{"", "", nil},
		{"clients=5&trials=7", "clients=5&trials=7", nil},
		{"clients=0&trials=5&bogus=1", "trials=5", []string{"bogus", "clients"}},
		{"zz=1&aa=2&clients=3", "clients=3", []string{"aa", "zz"}},
		{"clients=5&clients=6&trials=7", "trials=7", []string{"clients"}},
		{"strategies=none,none&base=0s&cap=1h&multiplier=NaN", "cap=1h", []string{"strategies", "base", "multiplier"}},
		{"sweep=1:1000:1&seed=7", "seed=7", []string{"sweep"}},
		{"clients=&retries=3", "retries=3", []string{"clients"}},
		{"clients=5&base=%zz&trials=7", "clients=5&trials=7", []string{"base"}}, // the malformed value names its parameter (issue 33)
		{"%zz=1&clients=0&trials=7", "trials=7", []string{"", "clients"}},
		{"clients=5;trials=7&retries=3", "retries=3", []string{""}},
		{"clients=5&" + strings.Repeat("&", param.MaxQueryLen), "", []string{""}},
	}
	for _, tt := range tests {
		name := tt.query
		if len(name) > 60 {
			name = name[:60]
		}
		t.Run(name, func(t *testing.T) {
			v, errs := backoff.Params.SalvageQuery(tt.query)
			if got := v.Encode(); got != tt.canon {
				t.Errorf("SalvageQuery: Encode() = %q, want %q", got, tt.canon)
			}
			var got []string
			for _, e := range errs {
				pe := asParamError(t, e)
				got = append(got, pe.Param)
				if pe.Param != "" && !strings.Contains(pe.Msg, pe.Param) {
					t.Errorf("message %q does not name %s", pe.Msg, pe.Param)
				}
			}
			if !slicesEqual(got, tt.params) {
				t.Errorf("error params = %q, want %q", got, tt.params)
			}
			// Without query-level faults, SalvageQuery and ParseQuery agree.
			pv, err := backoff.Params.ParseQuery(tt.query)
			if (err == nil) != (len(errs) == 0) {
				t.Errorf("ParseQuery error %v, SalvageQuery errors %v", err, errs)
			}
			if err == nil && !reflect.DeepEqual(pv, v) {
				t.Errorf("ParseQuery and SalvageQuery disagree on a valid query")
			}
			if err != nil && errs[0].Msg != err.Error() {
				t.Errorf("first salvage error %q, ParseQuery error %q", errs[0].Msg, err)
			}
		})
	}
}

func slicesEqual(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || reflect.DeepEqual(a, b))
}

func TestSalvageURLValues(t *testing.T) {
	q := url.Values{"clients": {"0"}, "trials": {"9"}, "nope": {"1"}, "retries": {}}
	keep := url.Values{"clients": {"0"}, "trials": {"9"}, "nope": {"1"}, "retries": {}}
	v, errs := backoff.Params.Salvage(q)
	if got := v.Encode(); got != "trials=9" {
		t.Errorf("Encode() = %q, want trials=9", got)
	}
	if len(errs) != 2 || errs[0].Param != "nope" || errs[1].Param != "clients" {
		t.Errorf("errors = %v, want nope then clients", errs)
	}
	if !reflect.DeepEqual(q, keep) {
		t.Errorf("Salvage modified its argument: %v", q)
	}
}

func TestValuesWithMapFormat(t *testing.T) {
	v := mustParse(t, backoff.Params, "clients=5&sweep=off")
	w, err := v.With("base", "1500us")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := w.Encode(), "clients=5&base=1.5ms&sweep=off"; got != want {
		t.Errorf("With: Encode() = %q, want %q", got, want)
	}
	if v.Encode() != "clients=5&sweep=off" {
		t.Errorf("With modified its receiver: %q", v.Encode())
	}
	if _, err := v.With("clients", "0"); err == nil || asParamError(t, err).Param != "clients" {
		t.Errorf("With(clients, 0) = %v, want a clients error", err)
	}
	if _, err := v.With("bogus", "1"); err == nil || asParamError(t, err).Param != "bogus" {
		t.Errorf("With(bogus, 1) = %v, want a bogus error", err)
	}

	b, err := json.Marshal(v.Map())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"base":"5ms","cap":"2s","clients":5,"latency_mean":"10ms","latency_sd":"2ms","multiplier":2,` +
		`"retries":12,"seed":1,"strategies":["none","exponential","full","equal","decorrelated"],"sweep":"off","trials":100}`
	if string(b) != want {
		t.Errorf("Map() JSON = %s\nwant %s", b, want)
	}
	if got := v.Format("sweep"); got != "off" {
		t.Errorf("Format(sweep) = %q", got)
	}
	if got := v.Format("cap"); got != "2s" {
		t.Errorf("Format(cap) = %q", got)
	}
	if !reflect.DeepEqual(v.Set(), backoff.Params) {
		t.Errorf("Set() is not the declarations")
	}
	if _, ok := backoff.Params.Lookup("nope"); ok {
		t.Errorf("Lookup(nope) found a parameter")
	}
	if sp, ok := backoff.Params.Lookup("cap"); !ok || sp.Kind != param.Duration {
		t.Errorf("Lookup(cap) = %+v, %v", sp, ok)
	}
}

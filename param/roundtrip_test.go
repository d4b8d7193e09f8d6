package param_test

import (
	"math"
	"math/rand/v2"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/labs/backoff"
	"github.com/resilience-playground/playground/param"
)

// checkRoundTrip checks that v's canonical query parses back to equal values and re-encodes
// identically, that it lists parameters in declaration order, and that it omits exactly the
// parameters equal to their defaults.
func checkRoundTrip(t *testing.T, v param.Values) {
	t.Helper()
	s := v.Set()
	enc := v.Encode()
	if len(enc) > param.MaxQueryLen {
		t.Fatalf("Encode() is %d bytes, more than MaxQueryLen", len(enc))
	}
	w, err := s.ParseQuery(enc)
	if err != nil {
		t.Fatalf("Encode() = %q does not parse: %v", enc, err)
	}
	if !reflect.DeepEqual(v, w) {
		t.Errorf("values differ after parse(Encode()) = parse(%q)\n got %v\nwant %v", enc, w.Map(), v.Map())
	}
	if again := w.Encode(); again != enc {
		t.Errorf("Encode() is not idempotent: %q then %q", enc, again)
	}

	d := s.Defaults()
	present := map[string]bool{}
	last := -1
	if enc != "" {
		for _, pair := range strings.Split(enc, "&") {
			name, _, ok := strings.Cut(pair, "=")
			if !ok {
				t.Errorf("Encode() = %q: pair %q has no '='", enc, pair)
			}
			i := index(s, name)
			if i <= last {
				t.Errorf("Encode() = %q is not in declaration order at %s", enc, name)
			}
			last = i
			present[name] = true
		}
	}
	for _, sp := range s {
		isDefault := v.Format(sp.Name) == d.Format(sp.Name)
		if isDefault == present[sp.Name] {
			t.Errorf("Encode() = %q: %s=%s, default %s, present %v", enc, sp.Name, v.Format(sp.Name), d.Format(sp.Name), present[sp.Name])
		}
	}
}

func index(s param.Set, name string) int {
	for i, sp := range s {
		if sp.Name == name {
			return i
		}
	}
	return -1
}

func TestEncodeCanonical(t *testing.T) {
	tests := []struct {
		query, canon string
	}{
		{"", ""},
		{"retries=5&clients=5", "clients=5&retries=5"},
		{"sweep=off&strategies=full&seed=42", "strategies=full&seed=42&sweep=off"},
		{"strategies=full,none,exponential,equal,decorrelated", ""},
		{"strategies=decorrelated,none", "strategies=none,decorrelated"},
		{"strategies=decorrelated%2Cnone", "strategies=none,decorrelated"},
		{"clients=100&multiplier=2.0&base=5000us&cap=2000ms&sweep=%2B10:190:10&seed=01&trials=100", ""},
		{"latency_mean=0.01s&latency_sd=2000000ns&retries=12", ""},
		{"cap=120s", "cap=2m"},
		{"cap=3600s", "cap=1h"},
		{"cap=1h0m0s", "cap=1h"},
		{"cap=90s", "cap=1m30s"},
		{"cap=86400000ms", "cap=24h"},
		{"base=500us", "base=500%C2%B5s"},
		{"base=100%C2%B5s", "base=100%C2%B5s"},
		{"base=1500us", "base=1.5ms"},
		{"multiplier=1.50", "multiplier=1.5"},
		{"multiplier=1e1", "multiplier=10"},
		{"latency_sd=0s&latency_mean=0ms", "latency_mean=0s&latency_sd=0s"},
		{"sweep=off", "sweep=off"},
		{"sweep=1%3A1000%3A10", "sweep=1:991:10"},
		// The canonical range keeps To as given, even when it is not a point.
		{"sweep=10:195:10", ""}, // the same points as the default 10:190:10
		{"seed=9007199254740991", "seed=9007199254740991"},
		{
			"retries=200&sweep=5:500:5&seed=0&trials=1&latency_sd=1s&latency_mean=1s&multiplier=10&cap=24h&base=1m&clients=1000&strategies=constant,linear",
			"strategies=constant,linear&clients=1000&base=1m&cap=24h&multiplier=10&latency_mean=1s&latency_sd=1s&trials=1&seed=0&sweep=5:500:5&retries=200",
		},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			v := mustParse(t, backoff.Params, tt.query)
			if got := v.Encode(); got != tt.canon {
				t.Errorf("Encode() = %q, want %q", got, tt.canon)
			}
			checkRoundTrip(t, v)
			if w := mustParse(t, backoff.Params, tt.canon); !reflect.DeepEqual(v, w) {
				t.Errorf("ParseQuery(%q) differs from ParseQuery(%q)", tt.canon, tt.query)
			}
		})
	}
}

// gen draws a random valid value of sp: its URL form (not yet query-escaped) and the typed
// value it must parse to.
func gen(r *rand.Rand, sp param.Spec) (string, any) {
	switch sp.Kind {
	case param.Int:
		lo, hi := int64(math.Ceil(sp.Min)), int64(math.Floor(sp.Max))
		n := lo + r.Int64N(hi-lo+1)
		switch r.IntN(8) {
		case 0:
			n = lo
		case 1:
			n = hi
		}
		switch r.IntN(6) {
		case 0:
			if n >= 0 {
				return "+" + strconv.FormatInt(n, 10), n
			}
		case 1:
			if n >= 0 {
				return "00" + strconv.FormatInt(n, 10), n
			}
		}
		return strconv.FormatInt(n, 10), n
	case param.Float:
		f := math.Min(sp.Min+r.Float64()*(sp.Max-sp.Min), sp.Max)
		switch r.IntN(8) {
		case 0:
			f = sp.Min
		case 1:
			f = sp.Max
		case 2, 3:
			if sp.Step > 0 {
				f = math.Min(sp.Min+math.Round((f-sp.Min)/sp.Step)*sp.Step, sp.Max)
			}
		}
		switch r.IntN(4) {
		case 0:
			return strconv.FormatFloat(f, 'e', -1, 64), f
		case 1:
			return strconv.FormatFloat(f, 'f', -1, 64), f
		}
		return strconv.FormatFloat(f, 'g', -1, 64), f
	case param.Duration:
		lo, hi := int64(math.Ceil(sp.Min*1e6)), int64(math.Floor(sp.Max*1e6))
		d := lo + r.Int64N(hi-lo+1)
		switch r.IntN(8) {
		case 0:
			d = lo
		case 1:
			d = hi
		case 2, 3: // whole milliseconds
			if ms := d / 1e6 * 1e6; ms >= lo {
				d = ms
			}
		case 4: // whole seconds
			if s := d / 1e9 * 1e9; s >= lo {
				d = s
			}
		}
		dd := time.Duration(d)
		switch r.IntN(4) {
		case 0:
			return dd.String(), dd
		case 1:
			return strconv.FormatInt(d, 10) + "ns", dd
		case 2:
			if d%1000 == 0 {
				return strconv.FormatInt(d/1000, 10) + "us", dd
			}
		}
		return param.FormatDuration(dd), dd
	case param.Enum:
		o := sp.Options[r.IntN(len(sp.Options))]
		return o, o
	case param.EnumList:
		var pick []string
		for len(pick) == 0 {
			for _, o := range sp.Options {
				if r.IntN(2) == 0 {
					pick = append(pick, o)
				}
			}
		}
		raw := append([]string(nil), pick...)
		r.Shuffle(len(raw), func(i, j int) { raw[i], raw[j] = raw[j], raw[i] })
		return strings.Join(raw, ","), pick
	case param.Bool:
		b := r.IntN(2) == 0
		if r.IntN(2) == 0 {
			if b {
				return "1", b
			}
			return "0", b
		}
		return strconv.FormatBool(b), b
	case param.IntRange:
		if r.IntN(5) == 0 {
			return "off", param.Range{Off: true}
		}
		lo, hi := int64(math.Ceil(sp.Min)), int64(math.Floor(sp.Max))
		from := lo + r.Int64N(hi-lo+1)
		step := 1 + r.Int64N(max(1, (hi-lo)/4))
		top := hi
		if sp.MaxLen > 0 {
			top = min(hi, from+step*int64(sp.MaxLen-1))
		}
		to := from + r.Int64N(top-from+1)
		rg := param.Range{From: from, To: from + (to-from)/step*step, Step: step} // canonical: To is the last point
		return rg.String(), rg
	}
	panic("unknown kind")
}

// escape query-escapes a value, sometimes leaving commas and colons bare as people write them.
func escape(r *rand.Rand, s string) string {
	e := url.QueryEscape(s)
	if r.IntN(2) == 0 {
		e = strings.NewReplacer("%2C", ",", "%3A", ":").Replace(e)
	}
	return e
}

// TestRoundTripRandom draws random valid scenarios from the declarations and checks that each
// parses to the values drawn and survives the canonical round trip.
func TestRoundTripRandom(t *testing.T) {
	heavy.Test(t)
	for name, s := range map[string]param.Set{"backoff": backoff.Params, "kinds": kinds} {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(len(s))))
			d := s.Defaults()
			for range 3000 {
				var pairs []string
				want := map[string]any{}
				for _, sp := range s {
					if r.IntN(3) == 0 {
						continue // left at its default
					}
					raw, val := gen(r, sp)
					pairs = append(pairs, sp.Name+"="+escape(r, raw))
					want[sp.Name] = val
				}
				r.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
				q := strings.Join(pairs, "&")
				v, err := s.ParseQuery(q)
				if err != nil {
					t.Fatalf("ParseQuery(%q): %v", q, err)
				}
				for _, sp := range s {
					w, ok := want[sp.Name]
					if !ok {
						w = get(t, d, sp.Name)
					}
					if got := get(t, v, sp.Name); !reflect.DeepEqual(got, w) {
						t.Errorf("ParseQuery(%q): %s = %#v, want %#v", q, sp.Name, got, w)
					}
				}
				checkRoundTrip(t, v)
				if t.Failed() {
					t.Fatalf("query %q", q)
				}
			}
		})
	}
}

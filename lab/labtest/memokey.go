package labtest

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// CheckMemoKey is the property test of a lab's memo key. key returns the key (or keys,
// joined) under which the lab keeps what a run of scenario v computes. From the lab's defaults
// and every step of its tours, moving any single parameter but those in ignore (the ones the
// memoised results do not depend on) to any other valid value the lab accepts must change
// the key; and a scenario written differently (every parameter spelled out, in reverse order,
// lists reversed, numbers and durations in other notations) must have the same key.
func CheckMemoKey(t *testing.T, l *lab.Lab, key func(param.Values) string, ignore ...string) {
	t.Helper()
	bases := []param.Values{l.Params.Defaults()}
	for _, tour := range l.Tours {
		for _, s := range tour.Steps {
			u, err := url.Parse(s.URL)
			if err != nil {
				t.Fatalf("tour %s: %v", tour.Name, err)
			}
			v, err := l.Parse(u.RawQuery)
			if err != nil {
				t.Fatalf("tour %s: %v", tour.Name, err)
			}
			bases = append(bases, v)
		}
	}
	moves := 0
	for _, v := range bases {
		k := key(v)
		for _, sp := range l.Params {
			if slices.Contains(ignore, sp.Name) {
				continue
			}
			for _, raw := range alternatives(sp, v) {
				w, err := v.With(sp.Name, raw)
				if err != nil || w.Encode() == v.Encode() {
					continue // not valid, or not a move
				}
				if _, err := l.Parse(w.Encode()); err != nil {
					continue // breaks a rule across parameters
				}
				moves++
				if key(w) == k {
					t.Errorf("moving %s to %s from %q leaves the memo key unchanged: %q", sp.Name, raw, v.Encode(), k)
				}
			}
		}
		q := respell(v)
		w, err := l.Parse(q)
		if err != nil {
			t.Fatalf("respelled %q as %q: %v", v.Encode(), q, err)
		}
		if key(w) != k {
			t.Errorf("%q and %q are the same scenario but have different memo keys: %q, %q", v.Encode(), q, k, key(w))
		}
	}
	if moves == 0 {
		t.Fatal("no parameter could be moved")
	}
	t.Logf("%d scenarios, %d moves", len(bases), moves)
}

// alternatives returns some values of sp in URL form: its bounds and points between them, or
// its options, one at a time and all together.
func alternatives(sp param.Spec, v param.Values) []string {
	num := func(f func(float64) string) []string {
		var out []string
		for _, x := range []float64{sp.Min, sp.Max, (sp.Min + sp.Max) / 2, sp.Min + sp.Step, sp.Max - sp.Step} {
			out = append(out, f(x))
		}
		if sp.Min > 0 {
			out = append(out, f(math.Sqrt(sp.Min*sp.Max)))
		}
		return out
	}
	switch sp.Kind {
	case param.Int:
		return num(func(x float64) string { return strconv.FormatInt(int64(math.Round(x)), 10) })
	case param.Float:
		return num(func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) })
	case param.Duration:
		return num(func(x float64) string { return time.Duration(math.Round(x * 1e6)).String() })
	case param.Enum:
		return sp.Options
	case param.EnumList:
		return append(slices.Clone(sp.Options), strings.Join(sp.Options, ","))
	case param.Bool:
		return []string{"true", "false"}
	case param.IntRange:
		lo := int64(sp.Min)
		return []string{"off", fmt.Sprintf("%d:%d:1", lo, lo+1), fmt.Sprintf("%d:%d:%d", lo, int64(sp.Max), max(1, (int64(sp.Max)-lo)/int64(max(sp.MaxLen-1, 1))+1))}
	}
	return nil
}

// respell writes scenario v out differently from its canonical query: every parameter, the
// last first, lists reversed, durations in nanoseconds, numbers with an exponent.
func respell(v param.Values) string {
	set := v.Set()
	var parts []string
	for i := len(set) - 1; i >= 0; i-- {
		sp := set[i]
		raw := v.Format(sp.Name)
		switch sp.Kind {
		case param.Duration:
			raw = strconv.FormatInt(int64(v.Duration(sp.Name)), 10) + "ns"
		case param.Float:
			raw = strconv.FormatFloat(v.Float(sp.Name), 'e', -1, 64)
		case param.EnumList:
			l := slices.Clone(v.List(sp.Name))
			slices.Reverse(l)
			raw = strings.Join(l, ",")
		case param.Bool:
			raw = map[bool]string{true: "1", false: "0"}[v.Bool(sp.Name)]
		}
		parts = append(parts, sp.Name+"="+url.QueryEscape(raw))
	}
	return strings.Join(parts, "&")
}

// PerChoice returns the key function of a lab that keeps one part per choice of its list
// parameter list (a strategy, a policy, an algorithm): the keys of every chosen name, joined.
func PerChoice(list string, key func(v param.Values, name string) string) func(param.Values) string {
	return func(v param.Values) string {
		var keys []string
		for _, name := range v.List(list) {
			keys = append(keys, key(v, name))
		}
		return strings.Join(keys, " ")
	}
}

package loadtest

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/param"
)

// TestSpaceEveryLab: for every lab of the registry, the default space moves every declared
// parameter, its positions come from the declaration (a slider's span its whole range), and
// every scenario viewers send — whatever gestures they make — is valid for the lab.
func TestSpaceEveryLab(t *testing.T) {
	for _, l := range labs.Registry().All() {
		t.Run(l.Name, func(t *testing.T) {
			sp, err := newSpace(l.Name, l.Params, "", nil, 8, 5)
			if err != nil {
				t.Fatal(err)
			}
			var moved []string
			for _, a := range sp.axes {
				moved = append(moved, a.name)
				s, _ := l.Params.Lookup(a.name)
				switch {
				case a.slider && (a.values[0] != formatNumber(s, s.Min) || a.values[len(a.values)-1] != formatNumber(s, s.Max)):
					t.Errorf("%s: slider positions %v do not span %v..%v", a.name, a.values, s.Min, s.Max)
				case a.slider && len(a.values) < min(8, wholeValues(s)):
					t.Errorf("%s: %d slider positions, want at least 8 (or every value of a short range): %v", a.name, len(a.values), a.values)
				case s.Kind == param.Enum || s.Kind == param.EnumList:
					if !slices.Equal(a.values, s.Options) {
						t.Errorf("%s: positions %v, want the options %v", a.name, a.values, s.Options)
					}
				}
			}
			for _, s := range l.Params {
				if !slices.Contains(moved, s.Name) {
					t.Errorf("the space does not move %s; it moves %v", s.Name, moved)
				}
			}
			if got, want := sp.query(sp.start()), l.Params.Defaults().Encode(); !sameScenario(t, l.Params, got, want) {
				t.Errorf("start = %q, want the defaults %q", got, want)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			moves := map[string]bool{}
			p := sp.start()
			for i := range 2000 {
				for _, s := range sp.gesture(p, i%10 == 9, rng) {
					p = s.p
					q := sp.query(p)
					if _, err := l.Params.ParseQuery(q); err != nil {
						t.Fatalf("gesture to %q: %v", q, err)
					}
					for i, a := range sp.axes {
						if p[i] != sp.start()[i] {
							moves[a.name] = true
						}
					}
				}
			}
			if len(moves) != len(l.Params) {
				t.Errorf("gestures moved %d of %d parameters: %v", len(moves), len(l.Params), moves)
			}
		})
	}
}

// wholeValues is how many values an integer slider can take (layers 1 to 3: three); a large
// number for any other kind.
func wholeValues(s param.Spec) int {
	if s.Kind != param.Int {
		return 1 << 30
	}
	return int(s.Max-s.Min) + 1
}

func sameScenario(t *testing.T, set param.Set, a, b string) bool {
	t.Helper()
	va, err1 := set.ParseQuery(a)
	vb, err2 := set.ParseQuery(b)
	return err1 == nil && err2 == nil && va.Encode() == vb.Encode()
}

func TestSpaceVary(t *testing.T) {
	l, _ := labs.Registry().Lookup("backoff")
	sp, err := newSpace("backoff", l.Params, "trials=20", []string{"clients=10:190:10", "strategies", "seed", "base=1ms|5ms|20ms"}, 8, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"clients: positions 10 20 30 40 50 60 70 80 90 100 110 120 130 140 150 160 170 180 190",
		"strategies: subsets of " + strings.Join(l.Params[0].Options, " "),
		"seed: positions 1 2 3",
		"base: positions 1ms 5ms 20ms",
	}
	if got := sp.describe(); !slices.Equal(got, want) {
		t.Errorf("axes\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := sp.startQuery(); got != "trials=20" {
		t.Errorf("start query %q, want trials=20", got)
	}
	// The presenter's value joins a slider's positions when it is not one of them.
	sp, err = newSpace("backoff", l.Params, "clients=33", []string{"clients=10:50:10"}, 8, 3)
	if err != nil || !slices.Equal(sp.axes[0].values, []string{"10", "20", "30", "33", "40", "50"}) {
		t.Errorf("positions with the presenter's 33: %v, %v", sp.axes[0].values, err)
	}
	for _, tc := range []struct {
		base string
		vary []string
		want string
	}{
		{"", []string{"nosuch"}, `the backoff lab has no parameter "nosuch"`},
		{"", []string{"clients", "clients"}, "names clients twice"},
		{"", []string{"clients=0:10:5"}, "clients must"},
		{"", []string{"base=1ms|forever"}, "base must be"},
		{"", []string{"strategies=full|none"}, "checkbox list"},
		{"clients=5", []string{"clients=5"}, "1 positions"},
		{"trials=0", nil, "-base-query: trials must be"},
		{"nosuch=1", nil, "-base-query: unknown parameter"},
	} {
		if _, err := newSpace("backoff", l.Params, tc.base, tc.vary, 8, 3); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("base %q, vary %q: %v, want an error with %q", tc.base, tc.vary, err, tc.want)
		}
	}
}

// TestPositionsFromDeclaration: slider stops follow the declared range and scale, rounded to
// the step; a log slider from 0 starts at 0.
func TestPositionsFromDeclaration(t *testing.T) {
	for _, tc := range []struct {
		spec param.Spec
		want []string
	}{
		{param.Spec{Kind: param.Int, Min: 1, Max: 1000, Step: 1}, []string{"1", "334", "667", "1000"}},
		{param.Spec{Kind: param.Int, Min: 1, Max: 1000, Step: 1, Log: true}, []string{"1", "10", "100", "1000"}},
		{param.Spec{Kind: param.Float, Min: 0, Max: 1, Step: 0.01}, []string{"0", "0.33", "0.67", "1"}},
		{param.Spec{Kind: param.Duration, Min: 0.1, Max: 100, Step: 0.1, Log: true}, []string{"100µs", "1ms", "10ms", "100ms"}},
		{param.Spec{Kind: param.Duration, Min: 0, Max: 1000, Step: 1, Log: true}, []string{"0s", "1ms", "32ms", "1s"}},
		{param.Spec{Kind: param.Int, Min: 0, Max: 1 << 53, Step: 1, Random: true}, []string{"1", "2", "3", "4"}},
		{param.Spec{Kind: param.Bool}, []string{"false", "true"}},
		{param.Spec{Kind: param.IntRange, Default: "10:190:10"}, []string{"10:190:10", "off"}},
	} {
		cur := tc.spec.Default
		if got := Positions(tc.spec, cur, 4, 4); !slices.Equal(got, tc.want) {
			t.Errorf("Positions(%+v) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}

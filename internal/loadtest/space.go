package loadtest

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/resilience-playground/playground/param"
)

// space is the bounded set of scenarios viewers move through: the presenter's scenario with
// some of the lab's parameters (its axes) moved among a few positions each. The positions
// come from the lab's own declarations — a slider's stops spread over its range (on its
// logarithmic scale when it has one), a menu's options, a checkbox list's subsets — so any lab
// can be loaded, and results repeat often enough for the server's cache and shared runs to
// serve them, as they do a class exploring one scenario.
type space struct {
	lab  string
	vals param.Values // the presenter's scenario
	base url.Values   // the same, as a canonical query
	axes []axis
}

// axis is one parameter viewers move.
type axis struct {
	name   string
	values []string // positions in URL form, in the control's order; for a list, its options
	slider bool     // moved by dragging through adjacent positions; else chosen or toggled
	list   bool     // a checkbox list: a position is a non-empty subset of values, as a bit mask
}

// point is a position in the space: an index into each axis's values (a bit mask for a list).
type point []int

// newSpace returns the space of lab l's scenarios around baseQuery (the presenter's), moving
// the parameters vary names ("name", or "name=v1|v2|…" to give the positions; an Int also
// takes "from:to:step"), or, when vary is empty, every parameter baseQuery does not set.
// Sliders get positions stops; seeds (parameters the page can re-roll) 1..seeds.
func newSpace(lab string, set param.Set, baseQuery string, vary []string, stops, seeds int) (*space, error) {
	raw, err := url.ParseQuery(strings.TrimPrefix(baseQuery, "?"))
	if err != nil {
		return nil, fmt.Errorf("-base-query: %v", err)
	}
	base, err := set.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-base-query: %v", err)
	}
	canon, _ := url.ParseQuery(base.Encode())
	sp := &space{lab: lab, vals: base, base: canon}
	explicit := map[string]string{}
	var names []string
	for _, v := range vary {
		name, values, given := strings.Cut(v, "=")
		if _, ok := set.Lookup(name); !ok {
			return nil, fmt.Errorf("-vary: the %s lab has no parameter %q; its parameters are %s", lab, name, strings.Join(specNames(set), ", "))
		}
		if slices.Contains(names, name) {
			return nil, fmt.Errorf("-vary names %s twice", name)
		}
		names = append(names, name)
		if given {
			explicit[name] = values
		}
	}
	if len(vary) == 0 {
		for _, s := range set {
			if _, fixed := raw[s.Name]; !fixed {
				names = append(names, s.Name)
			}
		}
	}
	for _, name := range names {
		s, _ := set.Lookup(name)
		a := axis{name: name, list: s.Kind == param.EnumList}
		a.slider = !s.Random && (s.Kind == param.Int || s.Kind == param.Float || s.Kind == param.Duration)
		if values, ok := explicit[name]; ok {
			if a.values, err = listed(s, values); err != nil {
				return nil, fmt.Errorf("-vary %s=%s: %v", name, values, err)
			}
		} else {
			a.values = Positions(s, base.Format(name), stops, seeds)
		}
		for _, v := range a.values {
			if a.list {
				v = strings.Join(s.Options, ",") // each option, and so every subset, is valid
			}
			if _, err := base.With(name, v); err != nil {
				return nil, fmt.Errorf("-vary %s: %v", name, err)
			}
		}
		if a.slider {
			a.values = withValue(a.values, base.Format(name), s)
		}
		if len(a.values) < 2 || len(a.values) > 62 {
			if _, ok := explicit[name]; ok || len(vary) > 0 {
				return nil, fmt.Errorf("-vary %s: %d positions; give 2 to 62", name, len(a.values))
			}
			continue
		}
		sp.axes = append(sp.axes, a)
	}
	if len(sp.axes) == 0 {
		return nil, fmt.Errorf("no parameter of the %s lab is left to move; name some with -vary", lab)
	}
	return sp, nil
}

func specNames(set param.Set) []string {
	out := make([]string, len(set))
	for i, s := range set {
		out[i] = s.Name
	}
	return out
}

// listed parses positions given on the command line: from:to:step for an Int, else values in
// URL form separated by '|'.
func listed(s param.Spec, values string) ([]string, error) {
	if s.Kind == param.Int && strings.Count(values, ":") == 2 {
		r, err := param.Set{{Name: s.Name, Kind: param.IntRange, Default: "off", Min: s.Min, Max: s.Max, MaxLen: 1000}}.
			ParseQuery(url.Values{s.Name: {values}}.Encode())
		if err != nil {
			return nil, err
		}
		var out []string
		for _, p := range r.Range(s.Name).Points() {
			out = append(out, strconv.FormatInt(p, 10))
		}
		return out, nil
	}
	out := strings.Split(values, "|")
	if s.Kind == param.EnumList {
		return nil, fmt.Errorf("a checkbox list moves among subsets of its options; name it without values")
	}
	return out, nil
}

// Positions are the values, in URL form, a control of spec s takes in a load (current being
// the presenter's): every option of a list, both values of a switch, the range turned on and
// off, seeds 1 to seeds, and stops points over a slider's span (on its log scale if it has
// one), its ends included.
func Positions(s param.Spec, current string, stops, seeds int) []string {
	switch s.Kind {
	case param.Enum, param.EnumList:
		return slices.Clone(s.Options)
	case param.Bool:
		return []string{"false", "true"}
	case param.IntRange:
		other := "off"
		if current == "off" {
			other = s.Default
		}
		if current == "off" && other == "off" { // a range off by default: five points over its span
			lo, hi := int64(s.Min), int64(s.Max)
			other = fmt.Sprintf("%d:%d:%d", lo, hi, max(1, (hi-lo)/4))
		}
		return slices.Compact([]string{current, other})
	}
	if s.Random {
		var out []string
		for v := max(1, int(s.Min)); v <= seeds && float64(v) <= s.Max; v++ {
			out = append(out, strconv.Itoa(v))
		}
		return out
	}
	var out []string
	for i := range stops {
		f := float64(i) / float64(max(1, stops-1))
		x := s.Min + f*(s.Max-s.Min)
		if s.Log {
			lo := s.Min
			if lo <= 0 { // a log slider starting at 0: its first stop is 0, the rest from one step up
				lo = max(s.Step, s.Max/1e4)
				f = float64(i-1) / float64(max(1, stops-2))
			}
			x = lo * math.Pow(s.Max/lo, f)
			if i == 0 {
				x = s.Min
			}
		}
		out = append(out, formatNumber(s, x))
	}
	return slices.Compact(out)
}

// formatNumber writes x (in the spec's unit) in URL form, rounded to the slider's step and
// within its bounds.
func formatNumber(s param.Spec, x float64) string {
	if s.Step > 0 {
		x = s.Min + math.Round((x-s.Min)/s.Step)*s.Step
	}
	x = min(max(x, s.Min), s.Max)
	switch s.Kind {
	case param.Int:
		return strconv.FormatInt(int64(math.Round(x)), 10)
	case param.Duration:
		return param.FormatDuration(time.Duration(math.Round(x*1e3)) * time.Microsecond)
	}
	digits := 6
	if s.Step > 0 {
		digits = max(0, int(math.Ceil(-math.Log10(s.Step))))
	}
	return strconv.FormatFloat(round(x, digits), 'f', -1, 64)
}

// withValue inserts v into a slider's positions, in order, unless it is there.
func withValue(values []string, v string, s param.Spec) []string {
	if slices.Contains(values, v) {
		return values
	}
	num := func(v string) float64 {
		if s.Kind == param.Duration {
			d, _ := time.ParseDuration(v)
			return float64(d)
		}
		f, _ := strconv.ParseFloat(v, 64)
		return f
	}
	i, _ := slices.BinarySearchFunc(values, num(v), func(e string, t float64) int {
		switch x := num(e); {
		case x < t:
			return -1
		case x > t:
			return 1
		}
		return 0
	})
	return slices.Insert(slices.Clone(values), i, v)
}

// start is the presenter's scenario as a point.
func (sp *space) start() point {
	p := make(point, len(sp.axes))
	for i, a := range sp.axes {
		cur := sp.vals.Format(a.name)
		if a.list {
			for _, o := range strings.Split(cur, ",") {
				if j := slices.Index(a.values, o); j >= 0 {
					p[i] |= 1 << j
				}
			}
			continue
		}
		p[i] = max(0, slices.Index(a.values, cur))
	}
	return p
}

// startQuery is the presenter's scenario as a query.
func (sp *space) startQuery() string { return sp.base.Encode() }

// query is the stream query of p.
func (sp *space) query(p point) string {
	q := url.Values{}
	for k, v := range sp.base {
		q[k] = v
	}
	for i, a := range sp.axes {
		if !a.list {
			q.Set(a.name, a.values[p[i]])
			continue
		}
		var on []string
		for j, o := range a.values {
			if p[i]&(1<<j) != 0 {
				on = append(on, o)
			}
		}
		q.Set(a.name, strings.Join(on, ","))
	}
	return q.Encode()
}

// describe lists the axes for a report: each parameter and its positions.
func (sp *space) describe() []string {
	var out []string
	for _, a := range sp.axes {
		how := "positions"
		if a.list {
			how = "subsets of"
		}
		out = append(out, fmt.Sprintf("%s: %s %s", a.name, how, strings.Join(a.values, " ")))
	}
	return out
}

// step is one message of a gesture: the point to send, after waiting for gap.
type step struct {
	p   point
	gap time.Duration
}

// gesture returns the messages of one human gesture from p: mostly a drag of one slider by one
// to four stops (one message per stop, 40–120ms apart, as a page sends on every input event),
// otherwise a new choice in a menu, a checkbox ticked or cleared, or a new seed (one
// message). With jump, it goes straight to a uniformly random point instead.
func (sp *space) gesture(p point, jump bool, rng *rand.Rand) []step {
	p = slices.Clone(p)
	if jump {
		for i, a := range sp.axes {
			if a.list {
				p[i] = 1 + rng.IntN(1<<len(a.values)-1)
			} else {
				p[i] = rng.IntN(len(a.values))
			}
		}
		return []step{{p: p}}
	}
	var sliders, others []int
	for i, a := range sp.axes {
		if a.slider {
			sliders = append(sliders, i)
		} else {
			others = append(others, i)
		}
	}
	if len(sliders) > 0 && (len(others) == 0 || rng.Float64() < 0.8) {
		i := sliders[rng.IntN(len(sliders))]
		n, dir := 1+rng.IntN(4), 1
		if rng.IntN(2) == 0 {
			dir = -1
		}
		var out []step
		for k := range n {
			next := p[i] + dir
			if next < 0 || next >= len(sp.axes[i].values) { // bounce off the end of the slider
				dir = -dir
				next = p[i] + dir
			}
			p[i] = next
			gap := time.Duration(0)
			if k > 0 {
				gap = time.Duration(40+rng.IntN(81)) * time.Millisecond
			}
			out = append(out, step{p: slices.Clone(p), gap: gap})
		}
		return out
	}
	i := others[rng.IntN(len(others))]
	a := sp.axes[i]
	if a.list {
		j := rng.IntN(len(a.values))
		if p[i] ^= 1 << j; p[i] == 0 { // the last box cannot be cleared: tick another instead
			p[i] = 1 << ((j + 1 + rng.IntN(len(a.values)-1)) % len(a.values))
		}
	} else {
		p[i] = (p[i] + 1 + rng.IntN(len(a.values)-1)) % len(a.values)
	}
	return []step{{p: p}}
}

// size is how many points the space has (saturating at MaxInt).
func (sp *space) size() int {
	n := 1
	for _, a := range sp.axes {
		k := len(a.values)
		if a.list {
			k = 1<<len(a.values) - 1
		}
		hi, lo := bits.Mul64(uint64(n), uint64(k))
		if hi != 0 || lo > math.MaxInt {
			return math.MaxInt
		}
		n = int(lo)
	}
	return n
}

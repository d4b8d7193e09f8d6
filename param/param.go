// Package param is the one description of a lab's parameters. Each lab declares its
// parameters once, as a [Set] of [Spec]s; from that declaration come the URL parser and its
// validation, the canonical URL, the controls on the page, the CLI's help and the error
// messages. No parameter is described twice.
//
// A scenario is a URL query. [Set.Parse] turns a query into typed [Values] or an [*Error]
// naming the parameter at fault and its allowed range; [Values.Encode] gives the canonical
// query: parameters in declaration order, defaults omitted, lists in declaration order. Parsing
// a canonical query gives back the same values, so equal scenarios have equal URLs.
package param

import (
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is the type of a parameter.
type Kind int

// The kinds of parameter. Their names, as [Kind.String] spells them, are part of the page's
// contract with its scripts.
const (
	Int      Kind = iota // a whole number
	Float                // a finite real number
	Duration             // a Go duration string such as 5ms or 2s; bounds in milliseconds
	Enum                 // one of Options
	EnumList             // a comma-separated, non-empty list of distinct Options
	Bool                 // true or false
	IntRange             // from:to:step whole numbers, or off
)

var kindNames = [...]string{"int", "float", "duration", "enum", "enum_list", "bool", "int_range"}

// String returns the kind's name.
func (k Kind) String() string { return kindNames[k] }

// MarshalText encodes the kind by name.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Limits on any query, whatever the lab.
const (
	MaxQueryLen = 2048 // bytes in a whole query
	MaxValueLen = 256  // bytes in one value
)

// Spec declares one parameter.
type Spec struct {
	Name    string   `json:"name"`
	Label   string   `json:"label"`
	Kind    Kind     `json:"kind"`
	Default string   `json:"default"` // in URL form; must itself be valid
	Min     float64  `json:"min"`     // numeric bounds, inclusive, in Unit (durations: milliseconds)
	Max     float64  `json:"max"`
	Step    float64  `json:"step"`              // slider step in Unit
	Unit    string   `json:"unit,omitempty"`    // shown next to the value
	Log     bool     `json:"log,omitempty"`     // slider moves on a logarithmic scale
	Options []string `json:"options,omitempty"` // Enum and EnumList choices
	MaxLen  int      `json:"max_len,omitempty"` // IntRange: most points
	On      string   `json:"on,omitempty"`      // IntRange off by default: the range the page offers to turn it on with
	Random  bool     `json:"random,omitempty"`  // a seed: the page offers a re-roll
	Help    string   `json:"help"`

	// Presentation on the page (the parser ignores them).
	Group   string `json:"group,omitempty"`   // "" for the main controls, or the name of a folded group such as "Advanced"
	Applies *When  `json:"applies,omitempty"` // shown only when this holds

	// OptionLabels are what people read for Options, in the same order ("Fixed window" for
	// fixed_window): controls, legends, table rows and titles show them; URLs, JSON and CSV
	// keep the names. A lab declares each beside its option (lab.Options.Labels).
	OptionLabels []string `json:"option_labels,omitempty"`
}

// OptionLabel returns what people read for option o: its label, or o itself if it has none.
func (sp Spec) OptionLabel(o string) string {
	if i := slices.Index(sp.Options, o); i >= 0 && i < len(sp.OptionLabels) && sp.OptionLabels[i] != "" {
		return sp.OptionLabels[i]
	}
	return o
}

// When is a condition on another parameter: Param (an Enum, EnumList or Bool) has, or for a
// list contains, one of Values; or, when Min is set, Param (an Int, Float or Duration, in its
// Unit) is at least *Min. A parameter that applies only to some algorithms or modes — a
// window length, a leak rate, a store's latency, the clock skew between several instances —
// declares it, and the page shows the control only when it matters. The parameter is still
// parsed and validated either way.
type When struct {
	Param  string   `json:"param"`
	Values []string `json:"values"`
	Min    *float64 `json:"min,omitempty"` // a numeric condition: Param >= *Min (Values is then empty)
}

// Holds reports whether the condition holds for v: the page shows a control whose Applies
// this is only then (web/static/js/params.js applies, its counterpart). A numeric condition
// compares a duration in milliseconds.
func (w When) Holds(v Values) bool {
	sp, ok := v.set.Lookup(w.Param)
	if !ok {
		return false
	}
	if w.Min != nil {
		var x float64
		switch sp.Kind {
		case Int:
			x = float64(v.Int(w.Param))
		case Float:
			x = v.Float(w.Param)
		case Duration:
			x = float64(v.Duration(w.Param)) / float64(time.Millisecond)
		default:
			return false
		}
		return x >= *w.Min
	}
	have := strings.Split(v.Format(w.Param), ",")
	return slices.ContainsFunc(w.Values, func(x string) bool { return slices.Contains(have, x) })
}

// Range is an IntRange value: From, From+Step, ... up to To. Off is true for "off".
type Range struct {
	From, To, Step int64
	Off            bool
}

// Points returns the values in r, or nil when r is off.
func (r Range) Points() []int64 {
	if r.Off {
		return nil
	}
	var p []int64
	for v := r.From; v <= r.To; v += r.Step {
		p = append(p, v)
	}
	return p
}

// Len returns how many points r has.
func (r Range) Len() int64 {
	if r.Off || r.Step <= 0 || r.To < r.From {
		return 0
	}
	return (r.To-r.From)/r.Step + 1
}

// String returns r in URL form.
func (r Range) String() string {
	if r.Off {
		return "off"
	}
	return fmt.Sprintf("%d:%d:%d", r.From, r.To, r.Step)
}

// MarshalText encodes r in URL form.
func (r Range) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Error is a bad parameter value. Param names the parameter ("" when the fault is the query
// as a whole); the message names it too and says what is allowed. An error of a rule across
// parameters (a subset larger than the backends, say) lists in Params every parameter the
// rule spans, Param first, and its message names them all and the relation they must keep.
// A scenario refused for the work or memory it needs may carry in Fit a value of Param, in
// URL form, with which it would be admitted (the message says it too: "lower clients to 51 or
// less"), so that a page can offer it.
type Error struct {
	Param  string   `json:"param"`
	Msg    string   `json:"error"`
	Params []string `json:"params,omitempty"`
	Fit    string   `json:"fit,omitempty"`
}

func (e *Error) Error() string { return e.Msg }

func errorf(name, format string, args ...any) *Error {
	return &Error{Param: name, Msg: fmt.Sprintf(format, args...)}
}

// Set is a lab's parameters in declaration order, which is also their canonical order.
type Set []Spec

// Lookup returns the spec named name.
func (s Set) Lookup(name string) (Spec, bool) {
	for _, sp := range s {
		if sp.Name == name {
			return sp, true
		}
	}
	return Spec{}, false
}

// Defaults returns the values of a query that sets nothing. It panics if a declared default
// is invalid, which is a programming error caught by every test that touches the lab.
func (s Set) Defaults() Values {
	v, err := s.Parse(url.Values{})
	if err != nil {
		panic(fmt.Sprintf("param: invalid default: %v", err))
	}
	return v
}

// ParseQuery parses a raw query string (without the leading '?').
func (s Set) ParseQuery(raw string) (Values, error) {
	if len(raw) > MaxQueryLen {
		return Values{}, tooLong(raw)
	}
	q, err := parseQuery(raw)
	if err != nil {
		return Values{}, err
	}
	return s.Parse(q)
}

// parseQuery is url.ParseQuery, with its error as an *Error that names the parameter whose
// value is malformed ("clients=%ZZ": a link cut or typed wrong) when the name itself is well
// formed, so that a page can say which control the link could not set. It returns what it
// could read, as url.ParseQuery does.
func parseQuery(raw string) (url.Values, *Error) {
	q, err := url.ParseQuery(raw)
	if err == nil {
		return q, nil
	}
	for pair := range strings.SplitSeq(raw, "&") {
		if strings.Contains(pair, ";") {
			break // url.ParseQuery's error is this one
		}
		k, v, _ := strings.Cut(pair, "=")
		name, kerr := url.QueryUnescape(k)
		if kerr != nil {
			break
		}
		if _, verr := url.QueryUnescape(v); verr != nil {
			return q, errorf(name, "the query is malformed: %s's value %q is not URL-encoded: %v (a %% begins an escape of two hexadecimal digits)", clip(name), clip(v), verr)
		}
	}
	return q, errorf("", "the query is malformed: %v", err)
}

// Parse validates q against s: every name must be declared, given at most once, and its value
// well formed and within bounds. Missing parameters take their defaults.
func (s Set) Parse(q url.Values) (Values, error) {
	names := make([]string, 0, len(q))
	for name := range q {
		names = append(names, name)
	}
	slices.Sort(names) // report the same error for the same query, whatever map order
	for _, name := range names {
		if _, ok := s.Lookup(name); !ok {
			return Values{}, errorf(name, "unknown parameter %q; known parameters are %s", clip(name), strings.Join(s.names(), ", "))
		}
		if len(q[name]) > 1 {
			return Values{}, errorf(name, "%s is given %d times; give it once", name, len(q[name]))
		}
	}
	v := Values{set: s, vals: make([]any, len(s))}
	for i, sp := range s {
		raw, given := sp.Default, false
		if vs, ok := q[sp.Name]; ok && len(vs) > 0 {
			raw, given = vs[0], true
		}
		val, err := sp.parse(raw)
		if err != nil {
			if !given {
				err.Msg = "default: " + err.Msg
			}
			return Values{}, err
		}
		v.vals[i] = val
	}
	return v, nil
}

// tooLong is the error of a query over MaxQueryLen. It blames the parameter name that takes
// the most bytes of the query (over all its repetitions), so the person can see what to
// shorten; a query whose largest part has no readable name blames the query as a whole.
func tooLong(raw string) *Error {
	bytesOf := map[string]int{}
	var worst string
	for part := range strings.SplitSeq(raw, "&") {
		name, _, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(name)
		if err != nil {
			key = "" // unreadable: blame the query
		}
		bytesOf[key] += len(part) + 1
		if bytesOf[key] > bytesOf[worst] || (bytesOf[key] == bytesOf[worst] && key < worst) {
			worst = key
		}
	}
	if worst == "" || !utf8.ValidString(worst) {
		return errorf("", "the query is %d bytes long; the limit is %d", len(raw), MaxQueryLen)
	}
	return errorf(clip(worst), "the query is %d bytes long, the limit is %d; %s takes %d of those bytes: shorten it",
		len(raw), MaxQueryLen, clip(worst), bytesOf[worst])
}

func (s Set) names() []string {
	n := make([]string, len(s))
	for i, sp := range s {
		n[i] = sp.Name
	}
	return n
}

// clip shortens s to about 40 bytes for a message, cutting at a rune boundary.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// parse validates one raw value.
func (sp Spec) parse(raw string) (any, *Error) {
	if raw == "" {
		return nil, errorf(sp.Name, "%s must not be empty; %s", sp.Name, sp.allowed())
	}
	if len(raw) > MaxValueLen {
		return nil, errorf(sp.Name, "%s is %d bytes long; the limit is %d", sp.Name, len(raw), MaxValueLen)
	}
	switch sp.Kind {
	case Int:
		n, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, sp.malformed(raw, "a whole number")
		}
		if float64(n) < sp.Min || float64(n) > sp.Max {
			return nil, sp.outOfRange(raw)
		}
		return n, nil
	case Float:
		f, err := strconv.ParseFloat(raw, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, sp.malformed(raw, "a finite number")
		}
		if f < sp.Min || f > sp.Max {
			return nil, sp.outOfRange(raw)
		}
		return f, nil
	case Duration:
		d, err := time.ParseDuration(raw)
		if err != nil {
			return nil, sp.malformed(raw, "a duration such as 5ms or 2s")
		}
		if ms := float64(d) / 1e6; ms < sp.Min || ms > sp.Max {
			return nil, sp.outOfRange(raw)
		}
		return d, nil
	case Enum:
		if !slices.Contains(sp.Options, raw) {
			return nil, sp.malformed(raw, "one of "+strings.Join(sp.Options, ", "))
		}
		return raw, nil
	case EnumList:
		parts := strings.Split(raw, ",")
		for _, p := range parts {
			if !slices.Contains(sp.Options, p) {
				return nil, errorf(sp.Name, "%s: unknown value %q; choose from %s", sp.Name, clip(p), strings.Join(sp.Options, ", "))
			}
		}
		var list []string // declaration order, so equal sets have equal URLs
		for _, o := range sp.Options {
			switch strings.Count(","+strings.ReplaceAll(raw, ",", ",,")+",", ","+o+",") { // ",,": adjacent entries share no comma
			case 0:
			case 1:
				list = append(list, o)
			default:
				return nil, errorf(sp.Name, "%s lists %q more than once", sp.Name, o)
			}
		}
		return list, nil
	case Bool:
		switch raw {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, sp.malformed(raw, "true or false")
	case IntRange:
		return sp.parseRange(raw)
	}
	return nil, errorf(sp.Name, "%s has an unknown kind", sp.Name)
}

func (sp Spec) parseRange(raw string) (any, *Error) {
	if raw == "off" {
		return Range{Off: true}, nil
	}
	parts := strings.Split(raw, ":")
	if len(parts) != 3 {
		return nil, sp.malformed(raw, "from:to:step, such as 10:190:10, or off")
	}
	var n [3]int64
	for i, p := range parts {
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, sp.malformed(raw, "from:to:step in whole numbers, such as 10:190:10, or off")
		}
		n[i] = v
	}
	r := Range{From: n[0], To: n[1], Step: n[2]}
	switch {
	case float64(r.From) < sp.Min || float64(r.To) > sp.Max:
		return nil, errorf(sp.Name, "%s must lie between %s and %s, got %s", sp.Name, sp.Format(sp.Min), sp.Format(sp.Max), clip(raw))
	case r.To < r.From:
		return nil, errorf(sp.Name, "%s: from (%d) must not exceed to (%d)", sp.Name, r.From, r.To)
	case r.Step < 1:
		return nil, errorf(sp.Name, "%s: step must be at least 1, got %d", sp.Name, r.Step)
	case sp.MaxLen > 0 && r.Len() > int64(sp.MaxLen):
		return nil, errorf(sp.Name, "%s has %d points; at most %d are allowed", sp.Name, r.Len(), sp.MaxLen)
	}
	r.To = r.From + (r.Len()-1)*r.Step // 10:195:10 is 10:190:10: one scenario, one URL
	return r, nil
}

func (sp Spec) malformed(raw, want string) *Error {
	switch sp.Kind {
	case Int, Float, Duration:
		return errorf(sp.Name, "%s must be %s between %s and %s, got %q", sp.Name, want, sp.Format(sp.Min), sp.Format(sp.Max), clip(raw))
	}
	return errorf(sp.Name, "%s must be %s, got %q", sp.Name, want, clip(raw))
}

func (sp Spec) outOfRange(raw string) *Error {
	return errorf(sp.Name, "%s must be between %s and %s, got %s", sp.Name, sp.Format(sp.Min), sp.Format(sp.Max), clip(raw))
}

// allowed describes the values sp accepts.
func (sp Spec) allowed() string {
	switch sp.Kind {
	case Enum:
		return "choose one of " + strings.Join(sp.Options, ", ")
	case EnumList:
		return "choose from " + strings.Join(sp.Options, ", ")
	case Bool:
		return "use true or false"
	case IntRange:
		return fmt.Sprintf("use from:to:step between %s and %s, or off", sp.Format(sp.Min), sp.Format(sp.Max))
	}
	return fmt.Sprintf("use a value between %s and %s", sp.Format(sp.Min), sp.Format(sp.Max))
}

// Format writes x, a number on sp's scale (milliseconds for a Duration), as a URL writes it:
// 250, 0.5, 1m30s.
func (sp Spec) Format(x float64) string {
	if sp.Kind == Duration {
		return FormatDuration(time.Duration(math.Round(x * 1e6)))
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}

// FormatDuration writes d as the shortest Go duration string: 1h rather than 1h0m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// Values are a parsed, valid scenario.
type Values struct {
	set  Set
	vals []any
}

// Set returns the declarations v was parsed against.
func (v Values) Set() Set { return v.set }

func (v Values) get(name string) any {
	for i, sp := range v.set {
		if sp.Name == name {
			return v.vals[i]
		}
	}
	panic("param: no parameter " + name)
}

// Int returns an Int parameter.
func (v Values) Int(name string) int64 { return v.get(name).(int64) }

// Float returns a Float parameter.
func (v Values) Float(name string) float64 { return v.get(name).(float64) }

// Duration returns a Duration parameter.
func (v Values) Duration(name string) time.Duration { return v.get(name).(time.Duration) }

// String returns an Enum parameter.
func (v Values) String(name string) string { return v.get(name).(string) }

// List returns an EnumList parameter.
func (v Values) List(name string) []string { return v.get(name).([]string) }

// Bool returns a Bool parameter.
func (v Values) Bool(name string) bool { return v.get(name).(bool) }

// Range returns an IntRange parameter.
func (v Values) Range(name string) Range { return v.get(name).(Range) }

// Format returns the URL form of the named parameter's value.
func (v Values) Format(name string) string {
	for i, sp := range v.set {
		if sp.Name == name {
			return format(v.vals[i])
		}
	}
	panic("param: no parameter " + name)
}

func format(x any) string {
	switch x := x.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Duration:
		return FormatDuration(x)
	case string:
		return x
	case []string:
		return strings.Join(x, ",")
	case bool:
		return strconv.FormatBool(x)
	case Range:
		return x.String()
	}
	panic(fmt.Sprintf("param: cannot format %T", x))
}

// Encode returns the canonical query: parameters in declaration order, those equal to their
// default omitted, values in their shortest form. Commas in lists and colons in ranges are
// left unescaped, as people write them.
func (v Values) Encode() string {
	var b strings.Builder
	for i, sp := range v.set {
		s := format(v.vals[i])
		if d, err := sp.parse(sp.Default); err == nil && format(d) == s {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('&')
		}
		b.WriteString(sp.Name)
		b.WriteByte('=')
		b.WriteString(strings.NewReplacer("%2C", ",", "%3A", ":").Replace(url.QueryEscape(s)))
	}
	return b.String()
}

// Map returns every parameter by name in URL-like JSON form: numbers as numbers, durations
// and ranges as strings, lists as arrays.
func (v Values) Map() map[string]any {
	m := make(map[string]any, len(v.set))
	for i, sp := range v.set {
		switch x := v.vals[i].(type) {
		case time.Duration, Range:
			m[sp.Name] = format(x)
		default:
			m[sp.Name] = x
		}
	}
	return m
}

// Salvage parses q like Parse but never fails: each bad or unknown parameter is dropped (so it
// takes its default) and its error returned, so a page can show a bad URL's errors next to a
// working view instead of a blank page.
func (s Set) Salvage(q url.Values) (Values, []*Error) {
	q = cloneQuery(q)
	var errs []*Error
	for range len(s) + len(q) + 1 {
		v, err := s.Parse(q)
		if err == nil {
			return v, errs
		}
		e := err.(*Error)
		errs = append(errs, e)
		if e.Param == "" || q[e.Param] == nil {
			break
		}
		delete(q, e.Param)
	}
	return s.Defaults(), errs
}

// SalvageQuery is Salvage for a raw query string; a query too long or malformed to read
// gives the defaults and its error.
func (s Set) SalvageQuery(raw string) (Values, []*Error) {
	if len(raw) > MaxQueryLen {
		return s.Defaults(), []*Error{tooLong(raw)}
	}
	q, err := parseQuery(raw)
	v, errs := s.Salvage(q) // parseQuery keeps what it could read
	if err != nil {
		errs = append([]*Error{err}, errs...)
	}
	return v, errs
}

func cloneQuery(q url.Values) url.Values {
	c := make(url.Values, len(q))
	for k, v := range q {
		c[k] = v
	}
	return c
}

// With returns a copy of v with one parameter set from its URL form.
func (v Values) With(name, raw string) (Values, error) {
	q, err := url.ParseQuery(v.Encode())
	if err != nil {
		return Values{}, err
	}
	q.Set(name, raw)
	return v.set.Parse(q)
}

package lab

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"

	"github.com/resilience-playground/playground/param"
)

// View describes a lab's page beyond its controls: the charts its series go to and the tables
// its summary fills. The page's scripts draw any lab from this description alone; [View.Check]
// (run by [NewRegistry]) makes sure it names only real parameters, charts and kinds, and
// labtest.CheckView that a lab's runs fill it.
type View struct {
	Charts []Chart  `json:"charts"`
	Tables []Table  `json:"tables"`
	Notes  []string `json:"notes"` // paragraphs shown under the charts

	// Key names the list or enum parameter whose options are the things the lab compares
	// (strategies, algorithms, policies): series whose Label is one of its options take that
	// option's colour, dash and place, the same for every viewer, and map tables list their
	// rows in its order. A chart whose series are labelled by another parameter's options
	// names it (Chart.Key); each option of every such parameter has a place of its own
	// ([View.Places]), so that a series keeps one style on every chart. Other series take the
	// styles after them in order.
	Key string `json:"key,omitempty"`

	// Headline names the charts shown first, beside the main controls.
	Headline []string `json:"headline,omitempty"`

	// Names are what people read for names a run reports that are no parameter's option (a
	// store's fallback semantics, "get_set": "GET then SET"): the page writes a series label or
	// a table cell that is one of them as its label, as it writes an option as the option's
	// label. labtest.CheckView fails a run that shows a raw name (one with an underscore)
	// declared nowhere.
	Names map[string]string `json:"names,omitempty"`
}

// ChartKind is how a chart draws its series.
type ChartKind string

// Chart kinds.
const (
	Lines ChartKind = "lines" // one line per series (the default, also written "")
	Steps ChartKind = "steps" // step lines: the value holds until the next point
	Bars  ChartKind = "bars"  // bars at each x: a histogram of times or of values
)

// Unit is what the numbers of a chart axis or a table column measure. It decides how the page
// writes them: durations in their largest unit (1.5 s, 2 min), percentages with a sign and
// never rounded onto 0 or ±100, bytes with "B". [Count] numbers are written as they are.
type Unit string

// Units.
const (
	Count   Unit = ""   // plain numbers (requests, clients, backends)
	Micros  Unit = "µs" // a duration in microseconds
	Millis  Unit = "ms" // a duration in milliseconds
	Seconds Unit = "s"  // a duration in seconds
	Percent Unit = "%"  // a percentage
	Bytes   Unit = "B"  // a size in bytes
)

var units = []Unit{Count, Micros, Millis, Seconds, Percent, Bytes}

// Chart is one chart (or, with Split, one small chart per series or group). Its Title, like a
// Table's, may name parameters in braces ("Writes over time at N = {clients}"): the page writes
// there the values of the numbers shown, so a heading never claims a value its numbers are
// not of.
type Chart struct {
	ID     string    `json:"id"`
	Title  string    `json:"title"`
	XLabel string    `json:"x_label"`
	YLabel string    `json:"y_label"`
	Kind   ChartKind `json:"kind,omitempty"`  // Lines, Steps or Bars; "" is Lines
	Split  bool      `json:"split,omitempty"` // one small chart per series (or per Series.Group), on shared axes
	Mark   string    `json:"mark,omitempty"`  // numeric parameter whose value is marked on the x axis
	// MarkValue names instead a summary entry, a number in the x axis's unit, marked on the x
	// axis: for a chosen value derived from the parameters (the offered load, % of capacity,
	// follows from the rate, the clients and the backends). MarkLabel names it on the mark.
	MarkValue string `json:"mark_value,omitempty"`
	MarkLabel string `json:"mark_label,omitempty"`
	LogY      bool   `json:"log_y,omitempty"` // logarithmic y axis
	LogX      bool   `json:"log_x,omitempty"` // logarithmic x axis
	IntX      bool   `json:"int_x,omitempty"` // x takes whole values: ticks only at integers
	IntY      bool   `json:"int_y,omitempty"` // y takes whole values
	XUnit     Unit   `json:"x_unit,omitempty"`
	YUnit     Unit   `json:"y_unit,omitempty"`
	Help      string `json:"help,omitempty"` // a sentence under the title

	// Key names the enum or list parameter whose options label the chart's series when it is
	// not the view's Key (subsetting algorithms on a lab that compares policies, say).
	Key string `json:"key,omitempty"`

	// Needs names an IntRange parameter (a sweep) whose points are the chart's x: while it is
	// off the chart has nothing to draw, and the page says so in the chart's box, with a
	// button that turns the parameter on with its Spec.On range.
	Needs string `json:"needs,omitempty"`

	// Band says what the shaded band around a line shows ("Shaded: the least to the most
	// loaded backend; the line: the median"), for a chart whose series carry bands (Series.Of):
	// the page writes it in the legend, which every chart shows (a headline chart's help text
	// is hidden). labtest.CheckView requires it of a chart that gets bands.
	Band string `json:"band,omitempty"`

	// Empty says, for scenarios that give the chart nothing to draw for another reason than
	// its Needs being off, why, and what would: the page shows it in place of an empty frame
	// ("Nothing to show for this scenario: …"). labtest.CheckView requires it of a chart that
	// one of a lab's test runs leaves empty.
	Empty string `json:"empty,omitempty"`
}

// TableRows is how a summary entry holds a table's rows.
type TableRows string

// Table row layouts.
const (
	MapRows  TableRows = "map"  // an object of rows by name, listed in the order of View.Key's options
	ListRows TableRows = "list" // an array of rows, listed as they come
)

// Table shows a summary entry: a map of rows by name (MapRows) or a list of rows (ListRows).
type Table struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Key     string    `json:"key"` // summary key
	Rows    TableRows `json:"rows"`
	Columns []Column  `json:"columns"`
	Help    string    `json:"help,omitempty"`
	Bottom  bool      `json:"bottom,omitempty"` // shown after the charts rather than before

	// Empty says, for scenarios whose summary has no row for the table, why, and what would
	// fill it ("Shown for deterministic subsetting of up to 32 clients and 32 backends"): the
	// page shows it in place of a table of headers only. labtest.CheckView requires it of a
	// table that one of a lab's test runs leaves empty.
	Empty string `json:"empty,omitempty"`
}

// Column is one column of a Table: Field of each row, a number of Unit printed with Digits
// decimals (durations in their largest unit), or text. Field "" is the row's name in a map
// table.
type Column struct {
	Field  string `json:"field"`
	Label  string `json:"label"`
	Digits int    `json:"digits"`
	Unit   Unit   `json:"unit,omitempty"`
}

// Places returns the style place of every option of the parameters whose options label
// series (the view's Key, then each chart's Key in chart order), by parameter and option: the
// view key's options take places 0, 1, 2… in their declared order, each other parameter's the
// places after. A label names the same thing, and is drawn alike, on every chart of the lab;
// two options of one chart's parameter never share a place. (The page draws place i in the
// palette's style i: web.Palette.Styles.)
func (v View) Places(params param.Set) map[string]map[string]int {
	out := map[string]map[string]int{}
	n := 0
	add := func(name string) {
		sp, ok := params.Lookup(name)
		if !ok || out[name] != nil {
			return
		}
		out[name] = map[string]int{}
		for _, o := range sp.Options {
			out[name][o] = n
			n++
		}
	}
	if v.Key != "" {
		add(v.Key)
	}
	for _, c := range v.Charts {
		if c.Key != "" {
			add(c.Key)
		}
	}
	return out
}

// titleParam matches a parameter named in a title: "{clients}".
var titleParam = regexp.MustCompile(`\{(\w+)\}`)

// FillTitle writes into a chart's or table's title the values of the parameters it names in
// braces ("At N = {clients}" → "At N = 100"); value gives a parameter's value as shown to
// people. Every use of a title on the server (headings, accessible names, previews) goes
// through it; the page's scripts do the same in one function of their own (js/titles.js).
func FillTitle(title string, value func(name string) string) string {
	return titleParam.ReplaceAllStringFunc(title, func(m string) string {
		return value(m[1 : len(m)-1])
	})
}

// Check reports the first mistake in the view's declarations against the lab's parameters:
// ids missing or repeated, headline charts, marks, keys or title placeholders that name no
// chart or parameter, unknown kinds, units or row layouts, tables without a summary key or
// columns. Such a view would draw charts that cannot fill or titles with raw braces; it is a
// programming error, which [NewRegistry] reports at start-up.
func (v View) Check(params param.Set) error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	titled := func(what, title string) {
		for _, m := range titleParam.FindAllStringSubmatch(title, -1) {
			if _, ok := params.Lookup(m[1]); !ok {
				bad("%s: title %q names {%s}, which is no parameter", what, title, m[1])
			}
		}
	}
	unique := func(what, id string, seen map[string]bool) {
		switch {
		case id == "":
			bad("%s: no id", what)
		case seen[id]:
			bad("%s: id used twice", what)
		}
		seen[id] = true
	}
	unit := func(what string, u Unit) {
		if !slices.Contains(units, u) {
			bad("%s: unknown unit %q", what, u)
		}
	}
	if v.Key != "" {
		if sp, ok := params.Lookup(v.Key); !ok || (sp.Kind != param.Enum && sp.Kind != param.EnumList) {
			bad("key %q is no enum or list parameter", v.Key)
		}
	}
	charts := map[string]bool{}
	for i, c := range v.Charts {
		what := fmt.Sprintf("chart %d (%q)", i, c.ID)
		unique(what, c.ID, charts)
		if !slices.Contains([]ChartKind{"", Lines, Steps, Bars}, c.Kind) {
			bad("%s: unknown kind %q", what, c.Kind)
		}
		if c.Key != "" {
			if sp, ok := params.Lookup(c.Key); !ok || (sp.Kind != param.Enum && sp.Kind != param.EnumList) {
				bad("%s: key %q is no enum or list parameter", what, c.Key)
			}
		}
		if c.Mark != "" {
			if sp, ok := params.Lookup(c.Mark); !ok || (sp.Kind != param.Int && sp.Kind != param.Float && sp.Kind != param.Duration) {
				bad("%s: mark %q is no numeric parameter", what, c.Mark)
			}
		}
		if (c.MarkValue == "") != (c.MarkLabel == "") || (c.MarkValue != "" && c.Mark != "") {
			bad("%s: a mark is a parameter (mark) or a summary entry with its label (mark_value, mark_label), not both", what)
		}
		if c.Needs != "" {
			if sp, ok := params.Lookup(c.Needs); !ok || sp.Kind != param.IntRange {
				bad("%s: needs %q, which is no range parameter", what, c.Needs)
			} else if r, err := params.ParseQuery(url.Values{c.Needs: {sp.On}}.Encode()); err != nil || r.Range(c.Needs).Off {
				bad("%s: needs %q, whose on range %q (param.Spec.On) is no from:to:step range it takes", what, c.Needs, sp.On)
			}
		}
		unit(what+" x", c.XUnit)
		unit(what+" y", c.YUnit)
		titled(what, c.Title)
	}
	for _, h := range v.Headline {
		if !charts[h] {
			bad("headline %q names no chart", h)
		}
	}
	tables := map[string]bool{}
	for i, t := range v.Tables {
		what := fmt.Sprintf("table %d (%q)", i, t.ID)
		unique(what, t.ID, tables)
		if t.Key == "" {
			bad("%s: no summary key", what)
		}
		if t.Rows != MapRows && t.Rows != ListRows {
			bad("%s: rows %q, want %q or %q", what, t.Rows, MapRows, ListRows)
		}
		if len(t.Columns) == 0 {
			bad("%s: no columns", what)
		}
		fields := map[string]bool{}
		for j, c := range t.Columns {
			cw := fmt.Sprintf("%s column %d (%q)", what, j, c.Label)
			switch {
			case c.Field == "" && (t.Rows != MapRows || j != 0):
				bad("%s: only a map table's first column may be the row's name (field \"\")", cw)
			case fields[c.Field]:
				bad("%s: field %q shown twice", cw, c.Field)
			case c.Label == "":
				bad("%s: no label", cw)
			}
			fields[c.Field] = true
			unit(cw, c.Unit)
			if c.Digits < 0 || c.Digits > 6 {
				bad("%s: %d digits", cw, c.Digits)
			}
		}
		titled(what, t.Title)
	}
	return errors.Join(errs...)
}

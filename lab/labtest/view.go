package labtest

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// CheckView runs the scenarios of the URL queries on l and checks that its runs fill its view
// (every lab's golden test calls it): every series of every update names a chart of the view,
// every band a series of its chart, and every series of a Bars chart its bars' width; every
// chart gets a series and every table its summary entry, of the layout it declares, in at least
// one of the runs; every column names a field of the rows; every series' units agree with its
// chart's. A view that compiles and passes [lab.View.Check] can still be out of step with
// what the lab computes: a chart renamed on one side only, a summary field dropped. The page
// would then draw an empty chart or blank cells, and nothing else would fail.
func CheckView(tb testing.TB, l *lab.Lab, queries ...string) {
	tb.Helper()
	var runs []run
	for _, q := range queries {
		v, err := l.Params.ParseQuery(q)
		if err != nil {
			tb.Fatalf("%s?%s: %v", l.Name, q, err)
		}
		var rn run
		res, err := l.Execute(context.Background(), v, func(u lab.Update) { rn.Updates = append(rn.Updates, u) })
		if err != nil {
			tb.Fatalf("%s?%s: %v", l.Name, q, err)
		}
		rn.Result = res
		runs = append(runs, rn)
	}
	for _, p := range viewProblems(l.View, runs) {
		tb.Error(l.Name + ": " + p)
	}
	for _, p := range rawNames(l, runs) {
		tb.Error(l.Name + ": " + p)
	}
}

// rawName matches a name as code writes it (get_set, round_robin): lower-case words joined
// by underscores.
var rawName = regexp.MustCompile(`\b[a-z0-9]+(?:_[a-z0-9]+)+\b`)

// rawNames lists the series labels and table cells of the runs that would show people a raw
// name: text holding one, unless the whole text is a parameter's option or a name the view
// declares (lab.View.Names), which the page writes as its label.
func rawNames(l *lab.Lab, runs []run) []string {
	known := map[string]bool{}
	for _, sp := range l.Params {
		for _, o := range sp.Options {
			known[o] = true
		}
	}
	for n := range l.View.Names {
		known[n] = true
	}
	var out []string
	seen := map[string]bool{}
	check := func(where, text string) {
		if known[text] || seen[where+text] {
			return
		}
		if m := rawName.FindString(text); m != "" {
			seen[where+text] = true
			out = append(out, fmt.Sprintf("%s shows the raw name %q (in %q): declare a label for it (lab.View.Names) or write the label", where, m, text))
		}
	}
	for _, r := range runs {
		for _, u := range r.Updates {
			for _, s := range u.Series {
				check(fmt.Sprintf("%s: series %q's label", r.Result.URL, s.Name), s.Label)
			}
		}
		for _, t := range l.View.Tables {
			rows, err := rowsOf(r.Result.Summary[t.Key], t.Rows)
			if err != nil {
				continue
			}
			for _, row := range rows {
				for _, c := range t.Columns {
					if v, ok := row[c.Field].(string); ok {
						check(fmt.Sprintf("%s: table %q column %q", r.Result.URL, t.ID, c.Field), v)
					}
				}
			}
		}
	}
	return out
}

// run is what CheckView looks at of one run: its updates as they were emitted and its result.
type run struct {
	Updates []lab.Update
	Result  *lab.Result
}

// viewProblems lists how the runs fail to fill view v (see CheckView), stage by stage: the
// series against their charts, the shaded bands, the empty charts and tables, and the tables'
// columns against their rows.
func viewProblems(v lab.View, runs []run) []string {
	var out problems
	out = append(out, seriesProblems(v, runs)...)
	out = append(out, bandProblems(v, runs)...)
	out = append(out, emptyProblems(v, runs)...)
	out = append(out, tableProblems(v, runs)...)
	return out
}

// problems is what a stage of viewProblems finds, one sentence each, in the order found.
type problems []string

// add appends a problem, written as by fmt.Sprintf.
func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// seriesProblems checks every series of every run against the chart it names (the chart it
// was last sent with in that run): the view must declare that chart, and the series must fit
// it (see seriesMisfits). A series is reported once, where its first problem is found across
// the runs, so that one mistake in a lab does not repeat for every update. It then lists the
// charts that got no series in any of the runs.
func seriesProblems(v lab.View, runs []run) problems {
	var out problems
	filled := map[string]bool{} // declared chart → got a series
	byID := map[string]lab.Chart{}
	for _, c := range v.Charts {
		filled[c.ID] = false
		byID[c.ID] = c
	}
	reported := map[string]bool{} // series name → already reported
	for _, r := range runs {
		chartOf := map[string]string{} // series name → chart, as last named in the run
		for _, u := range r.Updates {
			for _, s := range u.Series {
				if s.Chart != "" {
					chartOf[s.Name] = s.Chart
				}
			}
		}
		for _, u := range r.Updates {
			for _, s := range u.Series {
				c := chartOf[s.Name]
				if _, ok := filled[c]; !ok {
					if !reported[s.Name] {
						out.add("%s: series %q names chart %q, which the view lacks", r.Result.URL, s.Name, c)
						reported[s.Name] = true
					}
					continue
				}
				filled[c] = true
				if reported[s.Name] {
					continue
				}
				if m := seriesMisfits(r.Result.URL, s, byID[c], chartOf); len(m) > 0 {
					out = append(out, m...)
					reported[s.Name] = true
				}
			}
		}
	}
	for _, c := range v.Charts {
		if !filled[c.ID] {
			out.add("chart %q gets no series in any of the runs", c.ID)
		}
	}
	return out
}

// seriesMisfits lists how series s, sent in the run at url, fails to fit chart c, the chart it
// belongs to, stopping at the first kind of misfit: units that disagree with the chart's (x
// and y each, checked on an update that names the chart), else a histogram's bar without a
// width, else a band bounding no series of c (chartOf maps the run's series to their charts).
func seriesMisfits(url string, s lab.Series, c lab.Chart, chartOf map[string]string) problems {
	var out problems
	if s.Chart != "" {
		for axis, pair := range map[string][2]string{"x": {s.XUnit, string(c.XUnit)}, "y": {s.YUnit, string(c.YUnit)}} {
			if !unitsAgree(pair[0], lab.Unit(pair[1])) {
				out.add("%s: series %q says its %s unit is %q, its chart %q %q", url, s.Name, axis, pair[0], c.ID, pair[1])
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	if c.Kind == lab.Bars && s.Of == "" && !(s.Width > 0) {
		// A bar's width is its bin's: without it, a histogram of one bin would be drawn as
		// wide as the axis.
		out.add("%s: series %q of histogram %q declares no bar width (lab.Series.Width)", url, s.Name, c.ID)
		return out
	}
	if s.Of != "" && chartOf[s.Of] != c.ID {
		out.add("%s: band %q bounds %q, which is no series of chart %q", url, s.Name, s.Of, c.ID)
	}
	return out
}

// bandProblems lists the charts whose lines carry shaded bands (a series with Of, in any of
// the runs) but that declare no Band to say what the bands show.
func bandProblems(v lab.View, runs []run) problems {
	var out problems
	banded := map[string]bool{}
	for _, r := range runs {
		for _, u := range r.Updates {
			for _, s := range u.Series {
				if s.Of != "" && s.Chart != "" {
					banded[s.Chart] = true
				}
			}
		}
	}
	for _, c := range v.Charts {
		if banded[c.ID] && c.Band == "" {
			out.add("chart %q draws shaded bands but declares no Band to say what they show", c.ID)
		}
	}
	return out
}

// emptyProblems lists, run by run, the charts and tables that the run leaves empty and that do
// not say why: a chart must declare Empty unless its Needs is off in that run, a table must
// declare Empty. The page shows that sentence rather than an empty frame or a table of
// headers.
func emptyProblems(v lab.View, runs []run) problems {
	var out problems
	for _, r := range runs {
		drawn := map[string]bool{}
		chartOf := map[string]string{}
		for _, u := range r.Updates {
			for _, s := range u.Series {
				if s.Chart != "" {
					chartOf[s.Name] = s.Chart
				}
				if s.Of == "" && len(s.X) > 0 {
					drawn[chartOf[s.Name]] = true
				}
			}
		}
		for _, c := range v.Charts {
			if drawn[c.ID] || c.Empty != "" || (c.Needs != "" && r.Result.Params[c.Needs] == "off") {
				continue
			}
			if c.Needs != "" {
				out.add("%s: chart %q has nothing to draw with %s on: it declares no Empty to say why", r.Result.URL, c.ID, c.Needs)
			} else {
				out.add("%s: chart %q has nothing to draw: it declares no Needs or Empty to say why", r.Result.URL, c.ID)
			}
		}
		for _, t := range v.Tables {
			if t.Empty != "" {
				continue
			}
			entry, ok := r.Result.Summary[t.Key]
			rows, err := rowsOf(entry, t.Rows)
			if !ok || (err == nil && len(rows) == 0) {
				out.add("%s: table %q has no rows: it declares no Empty to say why", r.Result.URL, t.ID)
			}
		}
	}
	return out
}

// tableProblems checks each table of the view against the runs' summaries: its summary key
// must be in at least one run's result, each such entry must read as rows of the table's
// layout, and every column's field must be a field of some row.
func tableProblems(v lab.View, runs []run) problems {
	var out problems
	for _, t := range v.Tables {
		fields := map[string]bool{}
		found := false
		for _, r := range runs {
			entry, ok := r.Result.Summary[t.Key]
			if !ok {
				continue
			}
			found = true
			rows, err := rowsOf(entry, t.Rows)
			if err != nil {
				out.add("%s: table %q: summary %q: %v", r.Result.URL, t.ID, t.Key, err)
				continue
			}
			for _, row := range rows {
				for f := range row {
					fields[f] = true
				}
			}
		}
		if !found {
			out.add("table %q: summary key %q is in none of the runs' results", t.ID, t.Key)
			continue
		}
		for _, c := range t.Columns {
			if c.Field != "" && !fields[c.Field] {
				have := make([]string, 0, len(fields))
				for f := range fields {
					have = append(have, f)
				}
				slices.Sort(have)
				out.add("table %q: column %q shows field %q, which no row has (rows have %q)", t.ID, c.Label, c.Field, have)
			}
		}
	}
	return out
}

// rowsOf reads a summary entry as the page does: through JSON, as an object of rows (MapRows)
// or an array of rows (ListRows).
func rowsOf(entry any, layout lab.TableRows) ([]map[string]any, error) {
	b, err := json.Marshal(entry)
	if err != nil {
		return nil, err
	}
	switch layout {
	case lab.MapRows:
		var m map[string]map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("not an object of rows by name: %.80s", b)
		}
		var rows []map[string]any
		for _, r := range m {
			rows = append(rows, r)
		}
		return rows, nil
	default:
		var rows []map[string]any
		if err := json.Unmarshal(b, &rows); err != nil {
			return nil, fmt.Errorf("not a list of rows: %.80s", b)
		}
		return rows, nil
	}
}

// unitsAgree reports whether a series' unit (a free string: CSV and JSON carry it) agrees with
// its chart's typed unit: the same unit where the chart declares one, and none of the typed
// units' names where the chart counts plain numbers (a chart of counts whose series claim
// milliseconds would be written as counts).
func unitsAgree(series string, chart lab.Unit) bool {
	if chart != lab.Count {
		return series == string(chart)
	}
	switch lab.Unit(series) {
	case lab.Micros, lab.Millis, lab.Seconds, lab.Percent, lab.Bytes:
		return false
	}
	return true
}

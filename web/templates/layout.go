package templates

import (
	"slices"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// group is a folded group of controls ("Advanced"): shown closed, opened by a click or when
// one of its values is in error.
type group struct {
	Name     string
	Controls []Control
	Open     bool
}

// mainControls returns the controls of no group: those beside the headline charts.
func mainControls(p Page) []Control {
	var out []Control
	for _, c := range p.Controls {
		if c.Group == "" {
			out = append(out, c)
		}
	}
	return out
}

// groups returns the folded groups, in order of first declaration.
func groups(p Page) []group {
	var out []group
	for _, c := range p.Controls {
		if c.Group == "" {
			continue
		}
		i := slices.IndexFunc(out, func(g group) bool { return g.Name == c.Group })
		if i < 0 {
			out = append(out, group{Name: c.Group})
			i = len(out) - 1
		}
		out[i].Controls = append(out[i].Controls, c)
		out[i].Open = out[i].Open || c.Error != ""
	}
	return out
}

// headline returns the charts shown first (View.Headline, in its order; the first chart when
// it names none) and rest the others, in declared order.
func headline(v lab.View) []lab.Chart {
	var out []lab.Chart
	for _, id := range v.Headline {
		for _, c := range v.Charts {
			if c.ID == id {
				out = append(out, c)
			}
		}
	}
	if len(out) == 0 && len(v.Charts) > 0 {
		out = v.Charts[:1]
	}
	return out
}

func rest(v lab.View) []lab.Chart {
	h := headline(v)
	var out []lab.Chart
	for _, c := range v.Charts {
		if !slices.ContainsFunc(h, func(x lab.Chart) bool { return x.ID == c.ID }) {
			out = append(out, c)
		}
	}
	return out
}

// valueText is what a screen reader announces for a slider: its value with its unit, in the
// largest sensible unit for durations ("5.2 ms", "2 s"); the page script keeps it up to date.
func valueText(c Control) string {
	switch c.Kind {
	case param.Duration:
		d, err := time.ParseDuration(c.Value)
		if err != nil {
			return c.Value
		}
		return lab.FormatDuration(float64(d) / float64(time.Millisecond))
	case param.Int, param.Float:
		if c.Unit != "" {
			return c.Value + " " + c.Unit
		}
	}
	return c.Value
}

// pageValues returns the page's scenario in URL form, by parameter name.
func pageValues(p Page) map[string]string {
	values := map[string]string{}
	for _, c := range p.Controls {
		values[c.Name] = c.Value
	}
	return values
}

// fillTitle writes the values of the parameters a title names in braces ("At N = {clients}"),
// in URL form; the page's script then writes them for people ("At N = 1,000").
func fillTitle(title string, values map[string]string) string {
	return lab.FillTitle(title, func(name string) string { return values[name] })
}

// pageState is the page script's starting state: the scenario's values in URL form and the
// problems of the link the page was opened with.
func pageState(p Page) map[string]any {
	values := pageValues(p)
	errs := []map[string]any{}
	for _, e := range p.Errors {
		m := map[string]any{"param": e.Param, "error": e.Msg}
		if len(e.Params) > 0 {
			m["params"] = e.Params // a rule across parameters: shown at each
		}
		errs = append(errs, m)
	}
	return map[string]any{"values": values, "errors": errs}
}

// Package templates renders the playground's pages with templ. The pages are drawn from a lab's
// declarations alone: one control per parameter, one panel per chart and table of its view.
package templates

import (
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/web"
)

// LogSteps is how many positions a logarithmic slider has.
const LogSteps = 1000

// Page is what a lab page shows.
type Page struct {
	Labs     []*lab.Lab
	Lab      *lab.Lab
	Controls []Control
	Errors   []*param.Error // problems with the URL the page was opened with
	Embed    bool           // charts only, for framing in slides
	Theme    string         // an embed's colours from its URL (theme=light|dark), "" for the viewer's
	Room     string         // the join code of the room the page follows, "" for none
	Spec     map[string]any // the lab's params and view, as JSON for the page's script
	Query    string         // the canonical query of the scenario shown, without "?"
}

// Control is one parameter's control with its current value.
type Control struct {
	param.Spec
	Value    string          // current value in URL form
	Slider   bool            // a range input
	Min, Max float64         // slider bounds (positions for a log slider)
	Step     float64         // slider step
	Pos      float64         // slider position of Value
	Checked  map[string]bool // EnumList
	Error    string
	Prefix   string // before its elements' ids, so that two scenarios' controls share a page ("b-")
}

// id is the id of the control's element of one kind ("p-", "help-", "err-").
func (c Control) id(kind string) string { return c.Prefix + kind + c.Name }

// NewPage builds the page of l for values v and the URL's errors.
func NewPage(labs []*lab.Lab, l *lab.Lab, v param.Values, errs []*param.Error, embed bool) Page {
	spec := Spec(l)
	spec["tours"] = l.Tours
	// The room, when there is one, is added by the caller (see Page.Room).
	p := Page{Labs: labs, Lab: l, Errors: errs, Embed: embed, Spec: spec, Query: v.Encode()}
	for _, sp := range l.Params {
		c := Control{Spec: sp, Value: v.Format(sp.Name)}
		for _, e := range errs {
			if e.Param == sp.Name || slices.Contains(e.Params, sp.Name) {
				c.Error = e.Msg
			}
		}
		switch sp.Kind {
		case param.Int, param.Float, param.Duration:
			if !sp.Random {
				c.Slider = true
				c.Min, c.Max, c.Step, c.Pos = sp.Min, sp.Max, sp.Step, numeric(v, sp)
				if sp.Log {
					c.Min, c.Max, c.Step = 0, LogSteps, 1
					c.Pos = logPos(sp, c.Pos)
				}
			}
		case param.EnumList:
			c.Checked = map[string]bool{}
			for _, o := range v.List(sp.Name) {
				c.Checked[o] = true
			}
		}
		p.Controls = append(p.Controls, c)
	}
	return p
}

// Spec is what the page's scripts know of lab l, as JSON: its parameters and view, the
// positions of a logarithmic slider, the palette the charts are drawn in, the style place of
// every option that labels series (lab.View.Places) and the styles of those places and of
// the places after them, for other labels (web.Styles).
func Spec(l *lab.Lab) map[string]any {
	places := l.View.Places(l.Params)
	n := 0
	for _, m := range places {
		n += len(m)
	}
	return map[string]any{"name": l.Name, "params": l.Params, "view": l.View, "log_steps": LogSteps, "palette": web.Palette,
		"places": places, "styles": web.Styles(n + extraStyles)}
}

// extraStyles is how many styles the page has for labels that are no option (a "next sleep"
// line beside the retry schedule's strategies), after the options' places.
const extraStyles = 16

// logPos is the position of value x (in the parameter's unit) on a logarithmic slider of
// LogSteps positions; js/params.js toSlider is the same rule on the page, and the conformance
// vectors (param/testdata/conformance.json, "sliders") hold both to it.
func logPos(sp param.Spec, x float64) float64 {
	return math.Round(LogSteps * math.Log(x/sp.Min) / math.Log(sp.Max/sp.Min))
}

// numeric returns a numeric parameter in its unit (durations in milliseconds).
func numeric(v param.Values, sp param.Spec) float64 {
	switch sp.Kind {
	case param.Int:
		return float64(v.Int(sp.Name))
	case param.Float:
		return v.Float(sp.Name)
	case param.Duration:
		return float64(v.Duration(sp.Name)) / float64(time.Millisecond)
	}
	return 0
}

func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func isOn(c Control, o string) bool { return c.Checked[o] }

// previewAlt describes the preview image of l's front-page entry: its first headline chart,
// at the default scenario.
func previewAlt(l *lab.Lab) string {
	title := ""
	for _, c := range l.View.Charts {
		if title == "" || (len(l.View.Headline) > 0 && c.ID == l.View.Headline[0]) {
			title = c.Title
		}
	}
	return "Preview of " + l.Title + ": " + lab.FillTitle(title, l.Params.Defaults().Format) + ", at the default scenario"
}

// withQuery is path followed by the page's canonical query, if any.
func (p Page) withQuery(path string) string {
	if p.Query == "" {
		return path
	}
	return path + "?" + p.Query
}

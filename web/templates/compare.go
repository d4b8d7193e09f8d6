package templates

import (
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Compare is what the compare view shows: two scenarios of one lab, A and B.
type Compare struct {
	Labs   []*lab.Lab
	Lab    *lab.Lab       // nil when Error is set
	A, B   string         // the scenarios' page URLs (canonical when they resolved)
	VA, VB param.Values   // the scenarios, when they resolved
	Error  string         // why the URLs cannot be compared, "" when they can
	Spec   map[string]any // the lab's params and view, as JSON for the page's script
}

// apiURL is the JSON API's URL of a canonical page URL ("/backoff?x" → "/api/v1/backoff?x").
func apiURL(page string) string { return "/api/v1" + page }

// compareTitle is the compare page's title.
func compareTitle(c Compare) string {
	if c.Lab == nil {
		return "Compare"
	}
	return "Compare · " + c.Lab.Title
}

// labName is the name of the lab compared, "" when there is none.
func labName(c Compare) string {
	if c.Lab == nil {
		return ""
	}
	return c.Lab.Name
}

// title fills a chart's or table's title with the values of both scenarios: "At N = 30 (A),
// 80 (B)", or "At N = 30" when they agree.
func (c Compare) title(t string) string {
	return lab.FillTitle(t, func(name string) string {
		a, b := c.VA.Format(name), c.VB.Format(name)
		if a == b {
			return a
		}
		return a + " (A), " + b + " (B)"
	})
}

// side is the page of one side's scenario ("a" or "b"): the lab page's controls, their
// element ids prefixed with the side ("b-p-clients"), so that both sides share the page.
func (c Compare) side(side string) Page {
	v := c.VA
	if side == "b" {
		v = c.VB
	}
	p := NewPage(c.Labs, c.Lab, v, nil, false)
	for i := range p.Controls {
		p.Controls[i].Prefix = side + "-"
	}
	return p
}

// url is the page URL of one side's scenario ("a" or "b").
func (c Compare) url(side string) string {
	if side == "b" {
		return c.B
	}
	return c.A
}

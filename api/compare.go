package api

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/web/templates"
)

// compare serves GET /compare?a={scenario URL}&b={scenario URL}: two scenarios of one lab side
// by side, their charts on the same axes (A solid, B dashed) and their summary tables next to
// each other. The page fetches both results from the JSON API. Missing or invalid URLs, or
// scenarios of two different labs, get 400 and the page with the message and the form to fix
// them.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a, b := q.Get("a"), q.Get("b")
	c := templates.Compare{Labs: s.cfg.Labs.All(), A: a, B: b}
	fail := func(msg string) {
		c.Error = msg
		w.WriteHeader(http.StatusBadRequest)
		s.render(w, r, templates.ComparePage(c))
	}
	if a == "" || b == "" {
		fail("Compare needs two scenario URLs of one lab: /compare?a=/backoff?clients=50&b=/backoff?clients=100 (each URL escaped).")
		return
	}
	la, va, err := Resolve(s.cfg.Labs, a)
	if err != nil {
		fail("Scenario A: " + compareError(err))
		return
	}
	lb, vb, err := Resolve(s.cfg.Labs, b)
	if err != nil {
		fail("Scenario B: " + compareError(err))
		return
	}
	if la != lb {
		fail(fmt.Sprintf("A is a scenario of %s and B one of %s: compare two scenarios of the same lab.", la.Title, lb.Title))
		return
	}
	c.Lab = la
	c.A, c.B = pageURL(la, va), pageURL(lb, vb)
	c.VA, c.VB = va, vb
	c.Spec = templates.Spec(la)
	s.render(w, r, templates.ComparePage(c))
}

// pageURL is the canonical page URL of scenario v of l.
func pageURL(l *lab.Lab, v param.Values) string {
	if q := v.Encode(); q != "" {
		return "/" + l.Name + "?" + q
	}
	return "/" + l.Name
}

// compareError is the words for a scenario URL that does not resolve.
func compareError(err error) string {
	var pe *param.Error
	if errors.As(err, &pe) {
		return pe.Msg
	}
	if errors.Is(err, errNotFound) {
		return err.Error()
	}
	return "the URL names no scenario: " + err.Error()
}

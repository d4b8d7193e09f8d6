package api_test

import (
	"context"
	"errors"
	"fmt"
	"html"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// badCase is one query meant to be refused.
type badCase struct {
	name  string // subtest name
	query string // raw query
	param string // the parameter it should blame; "" for faults of the whole query
}

// badCases generates, from l's parameter declarations, bad values for every parameter by
// kind, and faults of the whole query.
func badCases(l *lab.Lab) []badCase {
	var cs []badCase
	for _, sp := range l.Params {
		add := func(label, raw string) {
			cs = append(cs, badCase{name: sp.Name + "=" + label, query: sp.Name + "=" + url.QueryEscape(raw), param: sp.Name})
		}
		add("empty", "")
		add("overlong", strings.Repeat("1", param.MaxValueLen+1))
		add("non-numeric", "abc")
		add("NaN", "NaN")
		add("+Inf", "+Inf")
		add("-Inf", "-Inf")
		add("spaces", " 1 ")
		switch sp.Kind {
		case param.Int:
			add("negative", "-1")
			add("zero", "0")
			add("huge", "1e308")
			add("overflow", "99999999999999999999")
			add("fraction", "1.5")
			add("below-min", strconv.FormatInt(int64(sp.Min)-1, 10))
			add("above-max", strconv.FormatInt(int64(sp.Max)+1, 10))
		case param.Float:
			add("negative", "-1")
			add("zero", "0")
			add("huge", "1e308")
			add("overflow", "1e309")
			add("below-min", strconv.FormatFloat(math.Nextafter(sp.Min, math.Inf(-1)), 'g', -1, 64))
			add("above-max", strconv.FormatFloat(math.Nextafter(sp.Max, math.Inf(1)), 'g', -1, 64))
		case param.Duration:
			ns := func(ms float64) time.Duration { return time.Duration(math.Round(ms * 1e6)) }
			add("negative", "-1ms")
			add("zero", "0s")
			add("huge", "1000000000h")
			add("no-unit", "5")
			add("below-min", param.FormatDuration(ns(sp.Min)-1))
			add("above-max", param.FormatDuration(ns(sp.Max)+1))
		case param.Enum, param.EnumList:
			o := sp.Options[0]
			add("unknown-option", "nosuch")
			add("wrong-case", strings.ToUpper(o))
			if sp.Kind == param.EnumList {
				add("unknown-in-list", o+",nosuch")
				add("duplicate", o+","+o)
				add("trailing-comma", o+",")
				add("only-comma", ",")
			} else {
				add("list", o+","+o)
			}
		case param.Bool:
			add("unknown-option", "maybe")
			add("yes", "yes")
			add("two", "2")
		case param.IntRange:
			lo, hi := int64(sp.Min), int64(sp.Max)
			r := func(from, to, step int64) string { return fmt.Sprintf("%d:%d:%d", from, to, step) }
			add("negative", r(-1, lo, 1))
			add("zero", "0:0:0")
			add("huge", "1:99999999999999999999:1")
			add("two-parts", r(lo, hi, 1)[:len(r(lo, hi, 1))-2])
			add("four-parts", r(lo, hi, 1)+":1")
			add("fraction", fmt.Sprintf("%d.5:%d:1", lo, hi))
			add("reversed", r(hi, lo, 1))
			add("step-zero", r(lo, hi, 0))
			add("step-negative", r(lo, hi, -1))
			add("below-min", r(lo-1, lo, 1))
			add("above-max", r(lo, hi+1, 1))
			add("upper-case-off", "OFF")
			if sp.MaxLen > 0 && hi-lo+1 > int64(sp.MaxLen) {
				add("too-many-points", r(lo, lo+int64(sp.MaxLen), 1))
			}
		}
		v := url.QueryEscape(sp.Default)
		cs = append(cs, badCase{name: sp.Name + "=repeated", query: sp.Name + "=" + v + "&" + sp.Name + "=" + v, param: sp.Name})
	}
	first := l.Params[0].Name
	cs = append(cs,
		badCase{name: "unknown-name", query: "nosuch=1", param: "nosuch"},
		badCase{name: "empty-name", query: "=1", param: ""},
		badCase{name: "overlong-query", query: "x=" + strings.Repeat("a", param.MaxQueryLen), param: "x"},
		badCase{name: "overlong-query-of-known-names", query: strings.Repeat(first+"=x&", param.MaxQueryLen/len(first+"=x&")+1), param: first},
		badCase{name: "overlong-query-mostly-one-value", query: first + "=1&" + l.Params[len(l.Params)-1].Name + "=" + strings.Repeat("9", param.MaxQueryLen), param: l.Params[len(l.Params)-1].Name},
		badCase{name: "overlong-query-of-escapes", query: strings.Repeat("%zz", param.MaxQueryLen/3+1), param: ""},
		badCase{name: "bad-escape", query: "%zz", param: ""},
		// A malformed value names its parameter (issue 33: the page says which control the
		// link could not set).
		badCase{name: "bad-escape-in-value", query: first + "=%zz", param: first},
		badCase{name: "truncated-escape", query: first + "=%", param: first},
		badCase{name: "semicolon", query: first + "=1;x=2", param: ""},
	)
	return cs
}

// expectation is what the server should make of a case, decided by the lab's own parser.
type expectation struct {
	badCase
	err *param.Error // nil when the query is valid after all
	run string       // when valid and cheap, a query of it that runs in milliseconds
}

// maxCheapCost is the most simulated events a valid case may need to be run for real.
const maxCheapCost = 1_000_000

func expect(tb testing.TB, l *lab.Lab, tc badCase) expectation {
	tb.Helper()
	e := expectation{badCase: tc}
	_, err := l.Params.ParseQuery(tc.query)
	if err != nil {
		if !errors.As(err, &e.err) {
			tb.Fatalf("ParseQuery(%.60q) = %T %v, want a *param.Error", tc.query, err, err)
		}
		if e.err.Param != tc.param {
			tb.Errorf("ParseQuery(%.60q) blames %q, want %q: %v", tc.query, e.err.Param, tc.param, err)
		}
		if e.err.Msg == "" {
			tb.Errorf("ParseQuery(%.60q): empty message", tc.query)
		}
		return e
	}
	tb.Logf("%.60q is valid; expecting success", tc.query)
	run := tc.query
	for _, name := range []string{"trials", "sweep"} {
		if _, ok := l.Params.Lookup(name); ok && name != tc.param {
			run += "&" + name + "=" + map[string]string{"trials": "1", "sweep": "off"}[name]
		}
	}
	v, err := l.Params.ParseQuery(run)
	if err != nil {
		tb.Logf("cannot make %.60q cheap (%v): checking the parser only", tc.query, err)
		return e
	}
	if l.Cost != nil && l.Cost(v) > maxCheapCost {
		tb.Logf("%.60q needs %d events: checking the parser only", run, l.Cost(v))
		return e
	}
	e.run = run
	return e
}

// TestBadParams sends bad values of every parameter of every lab, and bad queries, through
// the JSON API, the stream, the CLI's RunURL and the page.
func TestBadParams(t *testing.T) {
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.ParamRate, c.ParamBurst = 1e6, 1<<20 }))
	for _, l := range srv.Labs.All() {
		t.Run(l.Name, func(t *testing.T) {
			if len(l.Params) == 0 {
				t.Skip("no parameters")
			}
			st := srv.MustDial(t, l.Name, nil)
			var id int64
			for i, tc := range badCases(l) {
				t.Run(tc.name, func(t *testing.T) {
					// Every case takes the same paths through the server; under the race
					// detector, which finds races in them, every fifth does.
					if heavy.Light() && i%5 != 0 {
						t.Skip("heavy: every fifth case under -race and -short; every one without")
					}
					want := expect(t, l, tc)
					checkAPI(t, srv, l, want)
					id++
					checkStream(t, srv, st.With(t), l, id, want)
					checkCLI(t, srv, l, want)
					checkPage(t, srv, l, want)
				})
			}
		})
	}
}

func checkAPI(t *testing.T, srv *Server, l *lab.Lab, want expectation) {
	t.Helper()
	if want.err == nil {
		if want.run != "" {
			res, _ := srv.MustResult(t, l.Name, want.run)
			if res.Lab != l.Name {
				t.Errorf("result of lab %q, want %q", res.Lab, l.Name)
			}
		}
		return
	}
	resp, body := srv.Get(t, "/api/v1/"+l.Name+"?"+want.query)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("API: status %d, want 400; body %s", resp.StatusCode, body)
	}
	e := MustDecodeError(t, resp, body)
	if e.Param != want.err.Param || e.Error != want.err.Msg {
		t.Errorf("API: error %+v, want param %q and error %q", e, want.err.Param, want.err.Msg)
	}
}

func checkStream(t *testing.T, srv *Server, st *Stream, l *lab.Lab, id int64, want expectation) {
	t.Helper()
	if len(want.query) > param.MaxQueryLen {
		// Too long to be a params message at all: a protocol error, on a connection of its own.
		own := srv.MustDial(t, l.Name, nil)
		own.Send(1, want.query)
		code, reason := own.MustClosed()
		if code != websocket.StatusInvalidFramePayloadData || reason == "" {
			t.Errorf("stream: overlong query closed with %v %q, want 1007 and a reason", code, reason)
		}
		return
	}
	if want.err == nil {
		if want.run == "" {
			return
		}
		st.Send(id, want.run)
		r := st.Await(id)
		for r.Type == "busy" {
			r = st.Await(id)
		}
		if r.Type != "start" {
			t.Errorf("stream: reply %+v, want start", r)
		}
		return
	}
	st.Send(id, want.query)
	r := st.Await(id)
	if r.Type != "error" || r.Param != want.err.Param || r.Error != want.err.Msg {
		t.Errorf("stream: reply %+v, want an error with param %q and error %q", r, want.err.Param, want.err.Msg)
	}
}

func checkCLI(t *testing.T, srv *Server, l *lab.Lab, want expectation) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	if want.err == nil {
		if want.run != "" {
			_, err := api.RunURL(ctx, srv.Labs, "/"+l.Name+"?"+want.run, api.DefaultBudget, nil)
			if code := api.ExitCode(err); code != 0 {
				t.Errorf("CLI: exit code %d (%v), want 0", code, err)
			}
		}
		return
	}
	for _, u := range []string{"/" + l.Name + "?", "/api/v1/" + l.Name + "?", "http://example.com/embed/" + l.Name + "?"} {
		_, err := api.RunURL(ctx, srv.Labs, u+want.query, api.DefaultBudget, nil)
		if code := api.ExitCode(err); code != 2 {
			t.Errorf("CLI %s: exit code %d (%v), want 2", u, code, err)
		}
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Param != want.err.Param {
			t.Errorf("CLI %s: error %#v, want a *param.Error for %q", u, err, want.err.Param)
		}
	}
}

func checkPage(t *testing.T, srv *Server, l *lab.Lab, want expectation) {
	t.Helper()
	resp, body := srv.Get(t, "/"+l.Name+"?"+want.query)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("page: status %d, want 200", resp.StatusCode)
	}
	page := string(body)
	if !strings.Contains(page, `id="controls"`) {
		t.Errorf("page: no controls")
	}
	if want.err == nil {
		return
	}
	msg := html.EscapeString(want.err.Msg)
	if !strings.Contains(page, msg) {
		t.Errorf("page does not show %q", msg)
	}
	if _, ok := l.Params.Lookup(want.err.Param); ok {
		if got := errorNextTo(page, want.err.Param); got != msg {
			t.Errorf("page: error next to %s is %q, want %q", want.err.Param, got, msg)
		}
	}
}

// errorNextTo returns the text of a page's error element of a control.
func errorNextTo(page, name string) string {
	_, rest, ok := strings.Cut(page, `id="err-`+name+`"`)
	if !ok {
		return "(no element)"
	}
	_, rest, _ = strings.Cut(rest, ">")
	text, _, _ := strings.Cut(rest, "</p>")
	return text
}

// TestBudget: a scenario over the work budget is refused before it runs, naming trials.
func TestBudget(t *testing.T) {
	srv := MustOpenServer(t)
	l, ok := srv.Labs.Lookup("backoff")
	if !ok {
		t.Fatal("no backoff lab")
	}
	const q = "clients=1000&trials=1000"
	v, err := l.Params.ParseQuery(q)
	if err != nil {
		t.Fatal(err)
	}
	if c := l.Cost(v); c <= api.DefaultBudget {
		t.Fatalf("cost %d is within the budget; pick a bigger scenario", c)
	}

	resp, body := srv.Get(t, "/api/v1/backoff?"+q)
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("status %d, want 400: %s", resp.StatusCode, body)
	}
	e := MustDecodeError(t, resp, body)
	if e.Param != "trials" || !strings.Contains(e.Error, "trials") {
		t.Errorf("error %+v, want one naming trials", e)
	}
	// The value that fits, in the message and as "fit", is admitted.
	if e.Fit == "" || !strings.Contains(e.Error, "lower trials to "+e.Fit+" ") {
		t.Errorf("error %+v, want the value of trials that fits as fit, the one the message suggests", e)
	} else if w, err := v.With("trials", e.Fit); err != nil || l.CheckBudget(w, api.DefaultBudget) != nil {
		t.Errorf("the fit trials=%s is refused: %v %v", e.Fit, err, l.CheckBudget(w, api.DefaultBudget))
	}

	st := srv.MustDial(t, "backoff", nil)
	st.Send(3, q)
	if r := st.MustNext(); r.Type != "error" || r.ID != 3 || r.Param != "trials" || !strings.Contains(r.Error, "trials") || r.Fit != e.Fit {
		t.Errorf("stream reply %+v, want an error naming trials, with fit %q", r, e.Fit)
	}

	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	_, err = api.RunURL(ctx, srv.Labs, "/backoff?"+q, api.DefaultBudget, nil)
	var pe *param.Error
	if code := api.ExitCode(err); code != 2 || !errors.As(err, &pe) || pe.Param != "trials" {
		t.Errorf("RunURL: exit code %d, error %v; want 2 and a *param.Error naming trials", code, err)
	}
	if n := srv.Hub.Running(); n != 0 {
		t.Errorf("%d runs in flight after refusals", n)
	}
	if n, _ := srv.Metric(t, `playground_runs_rejected_total{reason="over_budget"}`); n != 2 {
		t.Errorf("over_budget rejections = %v, want 2 (API and stream)", n)
	}
}

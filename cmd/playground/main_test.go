package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/labs"
)

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestRunMatchesAPI checks `playground run URL` prints the bytes GET /api/v1/... serves.
func TestRunMatchesAPI(t *testing.T) {
	const q = "/backoff?clients=20&trials=4&sweep=10:30:10&seed=7"
	m := api.NewMetrics(prometheus.NewRegistry())
	srv := httptest.NewServer(api.New(api.Config{Labs: labs.Registry(), Metrics: m,
		Hub: hub.New(hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, Observe: m.ObserveRun})}))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL+"/api/v1"+strings.TrimPrefix(q, ""), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	resp.Body.Close()
	for _, u := range []string{q, "/api/v1" + q, srv.URL + q} {
		code, out, errs := runCLI("run", "-q", u)
		if code != 0 {
			t.Fatalf("run %s: exit %d: %s", u, code, errs)
		}
		if out != body.String() {
			t.Errorf("run %s printed different bytes from the API", u)
		}
	}
}

func TestRunCSV(t *testing.T) {
	code, out, errs := runCLI("run", "-q", "-format", "csv", "/backoff?clients=10&trials=2&sweep=off&strategies=full")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "series,chart,label,x,y,x_unit,y_unit,scenario" || len(lines) < 10 {
		t.Errorf("csv: %d lines, header %q", len(lines), lines[0])
	}
	if !strings.Contains(out, "timeline full,timeline,full,") {
		t.Error("csv lacks the full-jitter timeline")
	}
}

func TestRunErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"run", "/backoff?clients=5000"}, 2, "clients must be between 1 and 1000, got 5000"},
		{[]string{"run", "/backoff?clients=abc"}, 2, "clients must be a whole number"},
		{[]string{"run", "/backoff?bogus=1"}, 2, `unknown parameter "bogus"`},
		{[]string{"run", "/backoff?clients=1000&trials=1000"}, 2, "lower trials"},
		{[]string{"run", "-budget", "2e6", "/backoff"}, 2, "more than the 2e+06 one run may use; lower trials to "}, // as the messages write it
		{[]string{"run", "-budget", "1.5", "/backoff"}, 2, "want a whole number of work units"},
		{[]string{"run", "-budget", "-1", "/backoff"}, 2, "want a whole number of work units"},
		{[]string{"run", "/nosuchlab"}, 2, "no lab at"},
		{[]string{"run"}, 2, "give exactly one URL"},
		{[]string{"run", "-format", "xml", "/backoff"}, 2, "-format must be json or csv"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"serve", "-addr", "256.0.0.1:99999"}, 1, "playground:"},
		{[]string{"serve", "-nosuchflag"}, 2, "flag provided but not defined"},
		{[]string{"run", "/backoff#frag?clients=5"}, 2, "put the query (?...) before any #"},
		{[]string{"run", "/backoff?clients=5#x=1"}, 2, "fragment"},
		{[]string{"run", "/backoff?" + strings.Repeat("sweep=off&", 300)}, 2, "sweep takes 3000 of those bytes"},
	} {
		code, _, errs := runCLI(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errs, tc.code, tc.want)
		}
	}
}

// TestHelp: asked for help in any of the usual ways, the command prints its usage with every
// lab's parameters on standard output and exits 0.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}} {
		code, out, errs := runCLI(args...)
		if code != 0 || errs != "" {
			t.Errorf("%v: exit %d, stderr %q; want 0 and nothing", args, code, errs)
		}
		if !strings.HasPrefix(out, "usage:") || !strings.Contains(out, "playground run") {
			t.Errorf("%v: stdout %.100q, want the usage", args, out)
		}
		for _, p := range labs.Registry().All()[0].Params {
			if !strings.Contains(out, p.Name) {
				t.Errorf("%v: help does not list %s", args, p.Name)
			}
		}
	}
	// The parameter tables of docs/parameters.md: every lab and parameter; a bad format is an
	// error.
	code, out, errs := runCLI("help", "-format", "markdown")
	if code != 0 || errs != "" || !strings.HasPrefix(out, "# Parameters") {
		t.Errorf("help -format markdown: exit %d, stderr %q, stdout %.60q", code, errs, out)
	}
	for _, l := range labs.Registry().All() {
		for _, p := range l.Params {
			if !strings.Contains(out, "## `/"+l.Name+"`") || !strings.Contains(out, "| `"+p.Name+"` |") {
				t.Errorf("help -format markdown lacks %s's %s", l.Name, p.Name)
			}
		}
	}
	if code, _, errs := runCLI("help", "-format", "html"); code != 2 || !strings.Contains(errs, "-format must be text or markdown") {
		t.Errorf("help -format html: exit %d, stderr %q; want 2 and the formats", code, errs)
	}
	for _, args := range [][]string{{"serve", "-h"}, {"run", "-h"}} {
		code, _, errs := runCLI(args...)
		if code != 0 || !strings.Contains(errs, "-") {
			t.Errorf("%v: exit %d, stderr %q; want 0 and the flags", args, code, errs)
		}
	}
	code, _, errs = runCLI("serve", "-h")
	if !strings.Contains(errs, "-allow-host") || code != 0 {
		t.Errorf("serve -h does not document -allow-host: %q", errs)
	}
}

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/labs"
)

// mustOpenServer starts an in-process server of every lab and labtest's ungated lab "free".
// When roomsFail, room lookups answer 500.
func mustOpenServer(tb testing.TB, roomsFail ...bool) string {
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: 4, CacheSize: 64, Observe: m.ObserveRun})
	var srv http.Handler = api.New(api.Config{Labs: labs.Registry(labtest.NewGated("free", false).Lab), Hub: h, Metrics: m})
	if len(roomsFail) > 0 {
		next := srv
		srv = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/api/v1/rooms/") {
				http.Error(w, "oops", http.StatusInternalServerError)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	ts := httptest.NewServer(srv)
	tb.Cleanup(ts.Close)
	return ts.URL
}

// TestModes: each mode runs from its flags, prints its report and exits 0; bad usage exits 2
// and a failed load 1, each with a message.
func TestModes(t *testing.T) {
	url := mustOpenServer(t)
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-url", url, "-lab", "backoff", "-viewers", "2", "-duration", "1s", "-think", "200ms", "-settle", "0s",
			"-base-query", "clients=5&trials=2&sweep=off", "-vary", "clients=1:9:2,strategies", "-vary", "seed"}, 0,
			"viewers load on " + url + " (lab backoff): 2 viewers"},
		{[]string{"viewers", "-url", url, "-lab", "ratelimit", "-viewers", "1", "-duration", "1s", "-settle", "0s",
			"-base-query", "duration=2s&limit=10", "-vary", "limit"}, 0, "limit: positions 1 "},
		{[]string{"churn", "-url", url, "-churn", "3", "-base-query", "clients=5&trials=2&sweep=off", "-vary", "clients", "-settle", "0s"}, 0,
			"churn load on " + url + " (lab backoff): 3 cycles"},
		{[]string{"room", "-url", url, "-followers", "5", "-changes", "3", "-interval", "0", "-scenario", "/free?steps=2", "-vary", "n"}, 0,
			"5 followers, 3 changes of /free?steps=2"},
		{[]string{"room", "-url", url, "-followers", "2", "-changes", "1", "-scenario", "/free", "-vary", "seed"}, 1, `is "seed" a parameter of the lab?`},
		{[]string{"room", "-url", url, "-scenario", "/nosuchlab"}, 1, "creating the room: 400"},
		{[]string{"attack", "-url", url, "-patterns", "codes,rooms", "-conns", "1", "-calm", "300ms", "-duration", "500ms",
			"-viewer", "/backoff?clients=5&trials=2&sweep=off", "-target", "rooms=/free"}, 0, "protocol errors: 0"},
		{[]string{"attack", "-url", mustOpenServer(t, true), "-patterns", "codes", "-conns", "1", "-calm", "300ms", "-duration", "500ms",
			"-viewer", "/backoff?clients=5&trials=2&sweep=off"}, 1, "protocol errors, e.g. codes: GET /api/v1/rooms/"},
		{[]string{"attack", "-patterns", "heavy,nosuch"}, 2, `-patterns: no pattern "nosuch"`},
		{[]string{"attack", "-target", "heavy"}, 2, "want pattern=URL"},
		{[]string{"attack", "-target", "heavy=api"}, 2, "-target heavy=api: give a pattern's name and a URL path"},
		{[]string{"attack", "-viewer", "backoff"}, 2, "-viewer must be a lab URL"},
		{[]string{"-url", "http://192.0.2.1:8080"}, 2, "not loopback"},
		{[]string{"churn", "-url", "http://example.com"}, 2, "not loopback"},
		{[]string{"room", "-url", "http://example.com"}, 2, "not loopback"},
		{[]string{"room", "-followers", "0"}, 2, "-followers must be at least 1"},
		{[]string{"room", "-scenario", "backoff"}, 2, "-scenario must be a lab URL"},
		{[]string{"-lab", "nosuch"}, 2, fmt.Sprintf(`-lab "nosuch" is not a lab; choose one of %v`, labNames())},
		{[]string{"-vary", "clients=0:5:1"}, 2, "-vary clients=0:5:1: clients must"},
		{[]string{"churn", "-churn", "0"}, 2, "-churn must be at least 1"},
		{[]string{"-viewers", "x"}, 2, `invalid value "x" for flag -viewers`},
		{[]string{"stampede"}, 2, `unknown mode "stampede"`},
		{[]string{"room", "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-h"}, 0, "usage: loadtest viewers [flags]"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append(tc.args, "-q"), &stdout, &stderr)
		if tc.args[len(tc.args)-1] == "-h" || tc.args[len(tc.args)-1] == "extra" {
			code = run(tc.args, &stdout, &stderr)
		}
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("loadtest %q: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.want, &stdout, &stderr)
		}
	}
}

// TestJSON: -json prints the report as JSON on standard output, the human one on standard
// error.
func TestJSON(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"-url", mustOpenServer(t), "-base-query", "clients=5&trials=2&sweep=off", "-vary", "seed", "-viewers", "1", "-duration", "500ms",
		"-settle", "0s", "-json", "-q"}, &stdout, &stderr)
	var rep struct {
		Mode   string         `json:"mode"`
		Counts map[string]any `json:"counts"`
		Space  []string       `json:"space"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); code != 0 || err != nil || rep.Mode != "viewers" || rep.Counts["changes_sent"] == nil ||
		len(rep.Space) != 1 || !strings.Contains(stderr.String(), "viewers load on") {
		t.Errorf("exit %d, JSON %v: %+v\nstdout:\n%s\nstderr:\n%s", code, err, rep, &stdout, &stderr)
	}
}

// labNames is the names of the registry's labs, in order, as the tool lists them.
func labNames() []string {
	var names []string
	for _, l := range labs.Registry().All() {
		names = append(names, l.Name)
	}
	return names
}

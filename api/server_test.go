package api_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestSecurityHeaders: every response carries the security headers; only the embed view may be
// framed.
func TestSecurityHeaders(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct {
		path  string
		embed bool
	}{
		{"/", false},
		{"/backoff", false},
		{"/backoff?clients=5000", false},
		{"/api/v1/backoff?clients=0", false},
		{"/api/v1/nosuchlab", false},
		{"/nosuch/page", false},
		{"/healthz", false},
		{"/embed/backoff", true},
		{"/embed/backoff?clients=20", true},
	} {
		t.Run(tc.path, func(t *testing.T) {
			resp, _ := srv.Get(t, tc.path)
			h := resp.Header
			csp := h.Get("Content-Security-Policy")
			if csp == "" {
				t.Fatal("no Content-Security-Policy")
			}
			for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "base-uri 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
				t.Errorf("CSP %q allows unsafe script or style", csp)
			}
			if got := h.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options = %q", got)
			}
			if got := h.Get("Referrer-Policy"); got == "" || got == "unsafe-url" {
				t.Errorf("Referrer-Policy = %q", got)
			}
			framing := directive(csp, "frame-ancestors")
			if tc.embed {
				if framing != "frame-ancestors *" {
					t.Errorf("embed view: %q, want frame-ancestors *", framing)
				}
				if got := h.Get("X-Frame-Options"); got != "" {
					t.Errorf("embed view: X-Frame-Options %q forbids framing", got)
				}
				return
			}
			if framing != "frame-ancestors 'none'" {
				t.Errorf("%q, want frame-ancestors 'none'", framing)
			}
			if got := h.Get("X-Frame-Options"); got != "DENY" {
				t.Errorf("X-Frame-Options = %q, want DENY", got)
			}
		})
	}
}

// directive returns the CSP directive named name, or "" (and all of them if it is repeated).
func directive(csp, name string) string {
	var found []string
	for _, d := range strings.Split(csp, ";") {
		d = strings.TrimSpace(d)
		if d == name || strings.HasPrefix(d, name+" ") {
			found = append(found, d)
		}
	}
	return strings.Join(found, "; ")
}

// TestMetrics: /metrics serves Prometheus text with the playground's metrics.
func TestMetrics(t *testing.T) {
	srv := MustOpenServer(t)
	srv.MustResult(t, "backoff", small)
	st := srv.MustDial(t, "backoff", nil)
	st.Send(1, small)
	st.Run(1)

	resp, body := srv.Get(t, "/metrics")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{
		"# TYPE playground_runs_total counter",
		`playground_runs_total{lab="backoff",outcome="ok"} 1`,
		"# TYPE playground_stream_connections gauge",
		"playground_stream_connections 1",
		"playground_runs_in_flight 0",
		"playground_stream_frames_total",
		`playground_http_requests_total{code="200",route="/api/v1/{lab}"} 1`,
		"go_goroutines",
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}

// TestNotFound: unknown routes are 404, as JSON under /api/ and as a page elsewhere.
func TestNotFound(t *testing.T) {
	srv := MustOpenServer(t)
	for _, path := range []string{"/api/v1/nosuchlab", "/api/v1/nosuchlab?clients=1", "/api/v1/backoff/nosuch", "/api/v1/", "/api/v1", "/api/v2/backoff", "/api/"} {
		resp, body := srv.Get(t, path)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
			continue
		}
		if e := MustDecodeError(t, resp, body); e.Param != "" {
			t.Errorf("GET %s: %+v", path, e)
		}
	}
	for _, path := range []string{"/nosuchlab", "/nosuchlab?clients=1", "/embed/nosuchlab", "/no/such/page", "/static/nosuch.js"} {
		resp, body := srv.Get(t, path)
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, resp.StatusCode)
		}
		if strings.HasPrefix(path, "/static/") {
			continue
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(string(body), "</html>") {
			t.Errorf("GET %s: %q page %.100s, want an HTML page", path, ct, body)
		}
	}
}

// TestPage: a lab page with a bad URL still renders, with the error next to its control.
func TestPage(t *testing.T) {
	srv := MustOpenServer(t)
	resp, body := srv.Get(t, "/backoff?clients=5000&seed=7")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("status %d %q, want a 200 page", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	page := string(body)
	const msg = "clients must be between 1 and 1000, got 5000"
	if got := errorNextTo(page, "clients"); got != msg {
		t.Errorf("error next to clients: %q, want %q", got, msg)
	}
	if got := errorNextTo(page, "seed"); got != "" {
		t.Errorf("error next to seed: %q, want none", got)
	}
	for _, want := range []string{`id="p-clients"`, `name="clients" value="100"`, `id="p-seed" name="seed" value="7"`, `id="chart-work"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}

	for _, path := range []string{"/", "/backoff", "/embed/backoff?clients=20"} {
		if resp, _ := srv.Get(t, path); resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, resp.StatusCode)
		}
	}
	resp, body = srv.Get(t, "/nosuchlab")
	if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "There is no such lab.") {
		t.Errorf("GET /nosuchlab: %d %.200s", resp.StatusCode, body)
	}
}

// TestEmbedTheme: an embed's theme=light|dark is the view's, not the scenario's: the page
// fixes its colours (html data-theme) and parses the rest of the query as the scenario; a bad
// theme is an error on the page naming it; the lab page, whose query is the scenario only,
// has no theme.
func TestEmbedTheme(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct {
		path, want, notWant string
	}{
		{"/embed/backoff?clients=20&theme=dark", `<html lang="en" data-theme="dark">`, "was not used"},
		{"/embed/backoff?theme=light&clients=20", `<html lang="en" data-theme="light">`, "was not used"},
		{"/embed/backoff?clients=20", `<html lang="en">`, "data-theme"},
		{"/embed/backoff?clients=20&theme=blue", "theme must be light or dark", "data-theme"},
		{"/backoff?clients=20&theme=dark", "was not used", "data-theme"},
	} {
		resp, body := srv.Get(t, tc.path)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), tc.want) || strings.Contains(string(body), tc.notWant) {
			t.Errorf("GET %s: %d, want %q in the page and no %q", tc.path, resp.StatusCode, tc.want, tc.notWant)
		}
		if strings.HasPrefix(tc.path, "/embed/") && !strings.Contains(string(body), `Clients`) {
			t.Errorf("GET %s: no controls' scenario", tc.path)
		}
	}
}

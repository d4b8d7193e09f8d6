package api_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestCompare checks the compare view's answers: the page for two scenarios of one lab names
// both canonical URLs and fetches them from the JSON API; missing, invalid and mismatched URLs
// get 400 and a page that says which and why.
func TestCompare(t *testing.T) {
	srv := MustOpenServer(t)
	q := func(a, b string) string { return "/compare?a=" + url.QueryEscape(a) + "&b=" + url.QueryEscape(b) }

	resp, body := srv.Get(t, q("/backoff?clients=50", "http://localhost:8080/api/v1/backoff?seed=7&clients=60"))
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("valid pair: %s: %.300s", resp.Status, body)
	}
	for _, want := range []string{`value="/backoff?clients=50"`, `value="/backoff?clients=60&amp;seed=7"`,
		`data-a="/api/v1/backoff?clients=50"`, `data-b="/api/v1/backoff?clients=60&amp;seed=7"`, `/static/js/compare.js`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("compare page lacks %s", want)
		}
	}
	for _, c := range []struct{ path, want string }{
		{"/compare", "needs two scenario URLs"},
		{"/compare?a=%2Fbackoff", "needs two scenario URLs"},
		{q("/backoff", "/ratelimit"), "same lab"},
		{q("/backoff?clients=0", "/backoff"), "Scenario A: "},
		{q("/backoff", "/backoff?nope=1"), "Scenario B: "},
		{q("/backoff", "/nolab"), "Scenario B: "},
		{q("/backoff", "/backoff#x?clients=1"), "Scenario B: "},
		{q("/backoff", "%zz"), "Scenario B: "},
	} {
		resp, body := srv.Get(t, c.path)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), c.want) || strings.Contains(string(body), "compare.js") {
			t.Errorf("%s: %s, want 400, a page saying %q and no script; body %.300s", c.path, resp.Status, c.want, body)
		}
	}
}

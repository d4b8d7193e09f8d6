package api_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/resilience-playground/playground/api"
)

// TestResultMatchesCLI: the JSON API gives, byte for byte, what the CLI prints for the same
// URL, with the canonical URL; asking again is served from the cache with the same bytes.
func TestResultMatchesCLI(t *testing.T) {
	srv := MustOpenServer(t)
	// Parameters out of canonical order, one at its default: the URL field must be canonical.
	const (
		query     = "sweep=10:30:10&seed=1&trials=5&clients=20"
		canonical = "/backoff?clients=20&trials=5&sweep=10:30:10"
	)
	res, body := srv.MustResult(t, "backoff", query)
	if res.URL != canonical {
		t.Errorf("url = %q, want %q", res.URL, canonical)
	}
	if res.Lab != "backoff" || len(res.Summary) == 0 || len(res.Series) == 0 {
		t.Errorf("result lab %q with %d summary entries and %d series; want a whole result", res.Lab, len(res.Summary), len(res.Series))
	}

	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	for _, u := range []string{
		"/api/v1/backoff?" + query,
		"/backoff?" + query,
		"/embed/backoff?" + query,
		"http://playground.example/backoff?" + query,
		canonical,
	} {
		r, err := api.RunURL(ctx, srv.Labs, u, api.DefaultBudget, nil)
		if err != nil {
			t.Fatalf("RunURL(%s): %v", u, err)
		}
		var cli bytes.Buffer
		if err := api.EncodeJSON(&cli, r); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cli.Bytes(), body) {
			t.Errorf("RunURL(%s) + EncodeJSON differs from the API:\ncli %.300s\napi %.300s", u, cli.Bytes(), body)
		}
	}

	// Again, and by the canonical URL: from the cache, the same bytes, no second run.
	for _, q := range []string{query, canonical[len("/backoff?"):]} {
		if _, again := srv.MustResult(t, "backoff", q); !bytes.Equal(again, body) {
			t.Errorf("second GET of %q differs:\n%.300s\n%.300s", q, again, body)
		}
	}
	if n, _ := srv.Metric(t, `playground_runs_total{lab="backoff",outcome="ok"}`); n != 1 {
		t.Errorf("runs = %v, want 1: repeated requests should come from the cache", n)
	}

	// A fresh server (no cache) computes the same bytes: results depend on the URL alone.
	if _, fresh := MustOpenServer(t).MustResult(t, "backoff", query); !bytes.Equal(fresh, body) {
		t.Errorf("a fresh server's result differs")
	}
}

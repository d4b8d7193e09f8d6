package api_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestWarmPreviews: after WarmPreviews (which the server runs at start-up), the front page's
// preview of a lab's default scenario is served without running the simulation again, even by
// a hub that keeps no results; a preview of another scenario still runs it.
func TestWarmPreviews(t *testing.T) {
	// Runs are counted by the lab as they start: the hub's Observe hook is told after the
	// result is handed out, so it can lag the caller on a busy machine.
	h := hub.New(hub.Config{MaxRuns: 2, Budget: api.DefaultBudget})
	free := labtest.NewGated("free", false)
	reg := lab.NewRegistry(free.Lab)
	srv := api.New(api.Config{Labs: reg, Hub: h, AllowedHosts: []string{"example.com"}})
	srv.WarmPreviews(context.Background())
	if n := free.Runs(); n != 1 {
		t.Fatalf("WarmPreviews ran %d simulations, want 1", n)
	}
	get := func(target string) (int, string) {
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, httptest.NewRequest(http.MethodGet, "http://example.com"+target, nil))
		return w.Code, w.Body.String()
	}
	code, body := get("/preview/free.svg")
	if code != http.StatusOK || !strings.Contains(body, "<svg") {
		t.Fatalf("warm preview: %d %.200s", code, body)
	}
	if n := free.Runs(); n != 1 {
		t.Errorf("the warm preview ran the simulation again (%d runs)", n)
	}
	if code, body := get("/preview/free.svg?n=4&steps=3"); code != http.StatusOK || !strings.Contains(body, "<svg") {
		t.Fatalf("preview of another scenario: %d %.200s", code, body)
	}
	if n := free.Runs(); n != 2 {
		t.Errorf("a preview of another scenario: %d runs, want 2", n)
	}
}

package e2e

import (
	"regexp"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/labs"
)

// durationFigure matches a duration as the texts and the page write it: 63.3 s, 4.84 s, 2.5 min.
var durationFigure = regexp.MustCompile(`\d+(?:\.\d+)? (?:µs|ms|s|min|h)\b`)

// TestTourDurationsAsTables: a tour step quotes a duration exactly as the table beside it
// writes it — one format for one number (issue 30: "63.3 s" where the table said "1.055 min").
// The backoff tour's completion-time step opens its scenario, and every duration in its text
// is one of the page's table cells, word for word.
func TestTourDurationsAsTables(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	l, _ := labs.Registry().Lookup("backoff")
	tour, n, ok := l.FindStep("jitter/4")
	if !ok {
		t.Fatal("no step jitter/4")
	}
	step := tour.Steps[n-1]
	figures := durationFigure.FindAllString(step.Text, -1)
	if len(figures) < 4 {
		t.Fatalf("step %q quotes %d durations (%q), want its four completion times", step.Title, len(figures), figures)
	}
	openLab(t, ctx, srv.URL+step.URL)
	waitDrawn(t, ctx)
	cells := eval[[]string](t, ctx, `[...document.querySelectorAll("#lab table tbody td")].map((td) => td.textContent.trim())`)
	for _, f := range figures {
		if !slices.Contains(cells, f) {
			t.Errorf("step %q says %q; no table cell on its page writes it so (cells: %q)", step.Title, f, cells)
		}
	}
}

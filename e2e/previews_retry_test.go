package e2e

import (
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
)

// TestPreviewsFillInOnABusyServer: on a cold server with one run slot (previews not drawn at
// start-up), the front page's previews, one a lab, are asked for at once and some are refused busy;
// the page asks again and every preview is drawn — none stays a broken image. One viewer:
// the plain run's (the server's busy refusals under the race detector are the API tests',
// TestEightHeavyRequestsFromOneAddress's concurrent GETs; here they ran four labs' simulations ten times slower).
func TestPreviewsFillInOnABusyServer(t *testing.T) {
	srv := mustOpenServerConfig(t, serverConfig{maxRuns: 1})
	ExpectConsole(t, "status of 503") // the refusals the page then retries
	ctx := MustOpenTab(t)
	start := time.Now()
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `[...document.querySelectorAll(".preview img")].every((i) => i.complete && i.naturalWidth > 0)`)
	widths := eval[[]int](t, ctx, `[...document.querySelectorAll(".preview img")].map((i) => i.naturalWidth)`)
	if n := len(labs.Registry().All()); len(widths) != n || slices.Contains(widths, 0) {
		t.Errorf("previews' widths %v: want %d drawn, one a lab", widths, n)
	}
	t.Logf("%d previews drawn %v after the page opened, with one run slot", len(widths), time.Since(start).Round(time.Millisecond))
}

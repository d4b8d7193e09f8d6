package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

func TestPageLoadsAndRuns(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/backoff?clients=50&trials=20&sweep=10:50:20")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `window.__playground && window.__playground.done >= 1`)
	rows := eval[int](t, ctx, `document.querySelectorAll("#table-summary tbody tr").length`)
	if rows != 5 {
		t.Errorf("summary rows = %d, want 5", rows)
	}
}

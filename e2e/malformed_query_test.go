package e2e

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMalformedQuery: a query with a malformed escape (a link cut or typed wrong:
// /backoff?clients=%ZZ) shows an error for that parameter, and the page works on — no uncaught
// URIError (MustOpenTab fails the test on one; issue 33: one was thrown at every run): a move
// runs its scenario, and the address and the download links become the scenario's, in the
// server's spelling, with no trace of the bad escape.
func TestMalformedQuery(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=%ZZ&trials=4&sweep=off")
	waitDrawn(t, ctx)
	msg := eval[string](t, ctx, `document.getElementById("url-errors").textContent`)
	if !strings.Contains(msg, "“clients”") || !strings.Contains(msg, "%ZZ") {
		t.Errorf("the page shows %q, want an error naming clients and its value", msg)
	}
	if search := eval[string](t, ctx, `location.search`); strings.Contains(search, "%ZZ") {
		t.Errorf("address %q once the page has run, want the scenario's", search)
	}
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "trials", 6, true)
	if waitSettled(t, ctx, prev) {
		t.Fatal("the move was refused")
	}
	waitDrawn(t, ctx)
	search := eval[string](t, ctx, `location.search`)
	if strings.Contains(search, "%") || !strings.Contains(search, "trials=6") {
		t.Errorf("address %q after a move, want the scenario's (trials=6), without the bad escape", search)
	}
	for _, id := range []string{"csv-download", "json-download"} {
		href := eval[string](t, ctx, `document.getElementById("`+id+`").getAttribute("href")`)
		if strings.Contains(href, "%ZZ") || !strings.Contains(href, "trials=6") {
			t.Errorf("%s href %q, want the scenario's", id, href)
		}
		status, err := chromedp.Run(ctx, chromedp.Evaluate[int](`fetch(document.getElementById("`+id+`").href).then((r) => r.status)`,
			chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
		if err != nil || status != 200 {
			t.Errorf("%s answers %d, %v", id, status, err)
		}
	}
}

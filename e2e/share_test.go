package e2e

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// sharedURL sets every kind of parameter away from its default, in canonical order.
const sharedURL = "/backoff?strategies=none,constant,full,decorrelated&clients=30&base=10ms&cap=1s&multiplier=1.5" +
	"&latency_mean=8ms&latency_sd=3ms&trials=12&seed=42&sweep=10:40:15&retries=8"

// TestSharedURLRestoresView opens a scenario URL, then opens it again in a fresh tab: the
// controls and the numbers must be the same, bit for bit, and the same as the JSON API's.
func TestSharedURLRestoresView(t *testing.T) {
	srv := MustOpenServer(t)

	first := MustOpenTab(t)
	hookTab(t, first)
	openLab(t, first, srv.URL+sharedURL)
	a := readState(t, first)

	second := MustOpenTab(t)
	hookTab(t, second)
	openLab(t, second, srv.URL+sharedURL)
	b := readState(t, second)

	wantSearch := sharedURL[strings.Index(sharedURL, "?"):]
	for _, s := range []state{a, b} {
		if s.Search != wantSearch {
			t.Errorf("search = %q, want %q (the canonical URL it was opened with)", s.Search, wantSearch)
		}
	}
	if !slices.Equal(a.Controls, b.Controls) {
		t.Errorf("controls differ:\n first %q\nsecond %q", a.Controls, b.Controls)
	}
	for _, want := range []string{"clients=30", "range:clients=30", "seed=42", "sweep=10:40:15", "strategies[constant]=true", "strategies[exponential]=false"} {
		if !slices.Contains(a.Controls, want) {
			t.Errorf("controls %q lack %q", a.Controls, want)
		}
	}
	if a.Raw != b.Raw {
		t.Errorf("summary differs between tabs:\n first %.400s\nsecond %.400s", a.Raw, b.Raw)
	}
	if !mapsEqual(a.Summary, b.Summary) || !mapsEqual(a.Charts, b.Charts) {
		t.Errorf("summary or series differ between tabs")
	}
	if got, want := pageSummary(t, second), apiSummary(t, srv.URL, "backoff", wantSearch); got != want {
		t.Errorf("page summary differs from the JSON API's:\n page %.400s\n  api %.400s", got, want)
	}
	if n := eval[int](t, second, `document.querySelectorAll("#table-summary tbody tr").length`); n != 4 {
		t.Errorf("summary table has %d rows, want 4 (one per strategy)", n)
	}
}

// TestBadURLShowsError opens URLs with a bad value and an unknown parameter: the page shows the
// error next to a working view that runs with the defaults, never a blank page.
func TestBadURLShowsError(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)

	t.Run("out of range", func(t *testing.T) {
		openLab(t, ctx, srv.URL+"/backoff?clients=5000&trials=10&sweep=off")
		assertWorkingPage(t, ctx)
		if !eval[bool](t, ctx, `(() => { const e = document.getElementById("err-clients"); return !!e && e.checkVisibility() && e.textContent.trim() !== ""; })()`) {
			t.Fatalf("#err-clients is not visible after the first run; status %q", eval[string](t, ctx, `document.getElementById("status").textContent`))
		}
		msg := eval[string](t, ctx, `document.getElementById("err-clients").textContent`)
		for _, want := range []string{"clients", "1", "1000"} {
			if !strings.Contains(msg, want) {
				t.Errorf("#err-clients = %q, want it to name %q", msg, want)
			}
		}
		if !eval[bool](t, ctx, `document.querySelector('.control[data-param="clients"]').classList.contains("invalid")`) {
			t.Errorf("the clients control is not marked invalid")
		}
		// The page runs the scenario without the bad value: clients at its default.
		if v := textValue(t, ctx, "clients"); v != "100" {
			t.Errorf("clients box = %q, want the default 100", v)
		}
		if got, want := pageSummary(t, ctx), apiSummary(t, srv.URL, "backoff", "trials=10&sweep=off"); got != want {
			t.Errorf("page summary is not the default-clients scenario's:\n page %.300s\n  api %.300s", got, want)
		}

		// Fixing the value clears the error.
		prev := lastSent(t, ctx)
		typeValue(t, ctx, textSel("clients"), "50")
		if waitSettled(t, ctx, prev) {
			t.Fatalf("clients=50 failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
		}
		if msg := eval[string](t, ctx, `document.getElementById("err-clients").textContent`); msg != "" {
			t.Errorf("#err-clients = %q after fixing clients", msg)
		}
		if eval[bool](t, ctx, `document.querySelector('.control[data-param="clients"]').classList.contains("invalid")`) {
			t.Errorf("the clients control is still marked invalid after fixing it")
		}
		if got, _ := queryParam(t, ctx, "clients"); got != "50" {
			t.Errorf("clients in URL = %q, want 50", got)
		}
	})

	t.Run("typed out of range", func(t *testing.T) {
		openLab(t, ctx, srv.URL+"/backoff?trials=10&sweep=off")
		prev := lastSent(t, ctx)
		before := readState(t, ctx)
		typeValue(t, ctx, textSel("clients"), "5000")
		// The page knows the bounds from the lab's declaration: it says so at once, at the
		// control, and neither runs the value nor writes it into the address.
		waitFor(t, ctx, `document.getElementById("err-clients").textContent !== ""`)
		msg := eval[string](t, ctx, `document.getElementById("err-clients").textContent`)
		if msg != "clients must be between 1 and 1000, got 5000" { // the server's own words (js/params.js)
			t.Errorf("#err-clients = %q, want it to name clients and its range", msg)
		}
		if n := lastSent(t, ctx); n != prev {
			t.Errorf("an invalid value was sent to the server (request %d after %d)", n, prev)
		}
		if s := eval[string](t, ctx, `location.href`); strings.Contains(s, "5000") {
			t.Errorf("location.href = %q holds the invalid value", s)
		}
		if after := readState(t, ctx); after.Raw != before.Raw {
			t.Errorf("the numbers changed after an invalid value")
		}
		assertWorkingPage(t, ctx) // the last good view stays
		prev = lastSent(t, ctx)
		typeValue(t, ctx, textSel("clients"), "60")
		if waitSettled(t, ctx, prev) {
			t.Fatalf("clients=60 failed")
		}
		if msg := eval[string](t, ctx, `document.getElementById("err-clients").textContent`); msg != "" {
			t.Errorf("#err-clients = %q after fixing clients", msg)
		}
	})

	t.Run("unknown parameter", func(t *testing.T) {
		openLab(t, ctx, srv.URL+"/backoff?bogus=1&trials=10&sweep=off")
		assertWorkingPage(t, ctx)
		text := eval[string](t, ctx, `(() => { const e = document.getElementById("url-errors"); return e.checkVisibility() ? e.textContent : ""; })()`)
		if !strings.Contains(text, "bogus") {
			t.Errorf("#url-errors = %q after the first run, want it to mention bogus", text)
		}
		if s := eval[string](t, ctx, `location.search`); strings.Contains(s, "bogus") {
			t.Errorf("search = %q still has the unknown parameter", s)
		}
		// The user's first change starts a view of their own: the link's errors go.
		prev := lastSent(t, ctx)
		sendKeys(t, ctx, rangeSel("clients"), kb.ArrowLeft)
		waitSettled(t, ctx, prev)
		if text := eval[string](t, ctx, `document.getElementById("url-errors").textContent`); strings.TrimSpace(text) != "" {
			t.Errorf("#url-errors = %q after a change", text)
		}
	})
}

// assertWorkingPage checks the page is not blank: a title, controls, tables with rows and charts
// with plots.
func assertWorkingPage(t *testing.T, ctx context.Context) {
	t.Helper()
	// The charts are drawn in the frames after the run is done: wait for them (a broken page
	// fails the wait, minutes later), then read what the page shows.
	waitDrawn(t, ctx)
	type view struct {
		Title, Status        string
		Controls, Rows, Plot int
		Done                 int
	}
	v := eval[view](t, ctx, `({
		Title: document.querySelector("h1")?.textContent ?? "",
		Status: document.getElementById("status").textContent,
		Controls: document.querySelectorAll("#controls .control").length,
		Rows: document.querySelectorAll("#table-summary tbody tr").length,
		Plot: document.querySelectorAll(".chart .plots canvas").length,
		Done: window.__playground.done,
	})`)
	if v.Title == "" || v.Controls == 0 || v.Rows == 0 || v.Plot == 0 || v.Done == 0 {
		t.Errorf("page looks blank or broken: %+v", v)
	}
}

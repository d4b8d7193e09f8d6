package e2e

import (
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestTourBackGoesToPreviousStep starts a tour from the Tours menu and steps on: each step is
// one history entry, so Back returns to the previous step, with its scenario and its text, and
// from the first step to the page the tour started from; Forward comes back.
func TestTourBackGoesToPreviousStep(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	const start = "/ratelimit?duration=5s"
	openLab(t, ctx, srv.URL+start)
	tour := lookupLab(t, "ratelimit").Tours[1]
	at := func(n int) {
		t.Helper()
		step := tour.Steps[n-1]
		waitFor(t, ctx, fmt.Sprintf(`location.hash === %q && decodeURIComponent(location.pathname + location.search) === %q && document.getElementById("tour-title")?.textContent === %q`,
			fmt.Sprintf("#tour=%s/%d", tour.Name, n), step.URL, step.Title))
		waitDrawn(t, ctx)
		if got := eval[string](t, ctx, `decodeURIComponent(new URL(window.__playground.state.run.shown.url, location.href).pathname + new URL(window.__playground.state.run.shown.url, location.href).search)`); got != step.URL {
			t.Errorf("step %d shows the run of %s, want %s", n, got, step.URL)
		}
	}
	before := eval[int](t, ctx, `history.length`)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector(".tours-menu").open = true`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, ".tours-menu li:nth-child(2) a")
	at(1)
	pressKey(t, ctx, "]")
	at(2)
	pressKey(t, ctx, "]")
	at(3)
	if n := eval[int](t, ctx, `history.length`) - before; n != 3 {
		t.Errorf("three steps made %d history entries, want 3", n)
	}
	back := func() {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`history.back()`)); err != nil {
			t.Fatal(err)
		}
	}
	back()
	at(2)
	back()
	at(1)
	back()
	waitFor(t, ctx, fmt.Sprintf(`location.hash === "" && decodeURIComponent(location.pathname + location.search) === %q && document.getElementById("tour").hidden`, start))
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`history.forward()`)); err != nil {
		t.Fatal(err)
	}
	at(1)
}

// TestTourShowsWhatItChanges steps to a step that changes a parameter inside a folded group
// (the rate limiter's "Read, then write" sets the store and its latency, under "Distributed":
// the step before, on the atomic store, has no latency to set): the group opens, the controls
// the step changed are marked and no other, and the panel names them.
func TestTourShowsWhatItChanges(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	tour := lookupLab(t, "ratelimit").Tours[1]
	openStep(t, ctx, fmt.Sprintf("%s%s#tour=%s/1", srv.URL, tour.Steps[0].URL, tour.Name))
	// The person folds the group away.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#controls details").forEach((d) => { d.open = false; })`)); err != nil {
		t.Fatal(err)
	}
	pressKey(t, ctx, "]")
	waitFor(t, ctx, fmt.Sprintf(`location.hash === "#tour=%s/2"`, tour.Name))
	type look struct {
		Moved   []string
		Open    bool
		Visible bool
		Says    string
	}
	v := eval[look](t, ctx, `(() => { const c = document.querySelector('#controls .control[data-param="store"]');
		return { Moved: [...document.querySelectorAll("#controls .control.moved")].map((e) => e.dataset.param),
			Open: c.closest("details").open, Visible: c.checkVisibility(),
			Says: document.querySelector("#tour .tour-changes")?.textContent ?? "" }; })()`)
	if !slices.Equal(v.Moved, []string{"store", "store_latency"}) || !v.Open || !v.Visible {
		t.Errorf("step 2: marked %q, group open %v, store visible %v; want the store and its latency alone marked, in their opened group", v.Moved, v.Open, v.Visible)
	}
	if v.Says != "This step changes Store: Racy read-then-write; Store latency: 20 ms." {
		t.Errorf("the panel says %q, want it to name the store and its latency", v.Says)
	}
}

package e2e

import (
	"fmt"
	"testing"

	"github.com/resilience-playground/playground/labs"
)

// TestFragmentEditKeepsScenario: an edited fragment (a tour step's link, #anything typed) is a
// navigation within the page, which the browser announces with popstate as it does Back and
// Forward; it moves no scenario. A scenario the person has just chosen, whose run the server
// has not started yet (so the address still holds the one before), is not put back to the
// address's: the flaky room lesson of issue 32, where a presenter who moved a slider and then
// a tour step sent the room the scenario before the slider's.
func TestFragmentEditKeepsScenario(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=40&trials=10&sweep=off")
	waitDrawn(t, ctx)
	// One task: the value typed and committed, then the fragment edited, before any message
	// from the server can start the new run and write the address.
	got := eval[[]string](t, ctx, fmt.Sprintf(`(() => {
		const i = document.querySelector(%q);
		i.value = "50";
		i.dispatchEvent(new Event("input", { bubbles: true }));
		i.dispatchEvent(new Event("change", { bubbles: true }));
		const before = new URLSearchParams(location.search).get("clients");
		location.hash = "#elsewhere";
		return [before, window.__playground.state.scenario.clients];
	})()`, textSel("clients")))
	if got[0] != "40" {
		t.Fatalf("the address had clients=%s before the server ran the new scenario; the test needs 40", got[0])
	}
	if got[1] != "50" {
		t.Errorf("the fragment edit put the scenario back to clients=%s, want the 50 just chosen", got[1])
	}
	waitFor(t, ctx, `new URLSearchParams(location.search).get("clients") === "50" && location.hash === "#elsewhere"`)
	if v := textValue(t, ctx, "clients"); v != "50" {
		t.Errorf("the clients box shows %q, want 50", v)
	}
}

// TestFragmentNamesTourStep: a fragment that names a tour step, typed or followed as a link
// within the page, moves to the step — its panel and its scenario — as its link from elsewhere
// does: the browser's popstate for the edit, which shows a Back's or Forward's step, must not
// leave the step shown beside the scenario before it.
func TestFragmentNamesTourStep(t *testing.T) {
	srv := MustOpenServer(t)
	tour := labs.Registry().All()[0].Tours[0]
	step := tour.Steps[1]
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/"+labs.Registry().All()[0].Name)
	waitDrawn(t, ctx)
	if step.URL == eval[string](t, ctx, `decodeURIComponent(location.pathname + location.search)`) {
		t.Fatalf("%s/2's scenario is the defaults'; the test needs a step that moves one", tour.Name)
	}
	eval[string](t, ctx, fmt.Sprintf(`location.hash = %q`, "#tour="+tour.Name+"/2"))
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector("#tour .tour-count")?.textContent === "step 2 of %d"`, len(tour.Steps)))
	waitFor(t, ctx, fmt.Sprintf(`decodeURIComponent(location.pathname + location.search) === %q && location.hash === %q`, step.URL, "#tour="+tour.Name+"/2"))
	waitDrawn(t, ctx)
	if v := eval[tourView](t, ctx, tourViewJS); v.Title != step.Title || len(v.Errors) > 0 {
		t.Errorf("tour panel = %+v, want %q without errors", v, step.Title)
	}
}

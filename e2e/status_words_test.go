package e2e

import (
	"slices"
	"strings"
	"testing"
)

// TestStatusOneTrial: a run of one trial says so in the singular (issue 30, item 12: "over
// all 1 trials"), and a run of several keeps "over all".
func TestStatusOneTrial(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, c := range []struct{ page, want string }{
		{"/backoff?clients=5&trials=1&sweep=off", "final, from 1 trial."},
		{"/backoff?clients=5&trials=3&sweep=off", "final, over all 3 trials."},
	} {
		openLab(t, ctx, srv.URL+c.page)
		waitDrawn(t, ctx)
		if got := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: status %q, want it to end %q", c.page, got, c.want)
		}
	}
}

// TestGroupHintsChanged: a shared URL that sets controls of a folded group away from their
// defaults says so in the group's summary, naming them, while the group stays closed; at the
// defaults the summary says nothing more (issue 30, item 12).
func TestGroupHintsChanged(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	type group struct {
		Name, Hint string
		Open       bool
	}
	const read = `[...document.querySelectorAll("#controls > details.group")].map((d) => ({
		Name: d.querySelector("summary").firstChild.textContent.trim(),
		Hint: d.querySelector("summary .group-changed")?.textContent ?? "", Open: d.open }))`
	openLab(t, ctx, srv.URL+"/backoff?clients=5&trials=2&seed=7&sweep=off")
	waitDrawn(t, ctx)
	found := false
	for _, g := range eval[[]group](t, ctx, read) {
		if g.Name != "Advanced" {
			continue
		}
		found = true
		for _, want := range []string{"changed:", "Trials", "Seed", "Sweep of clients"} {
			if !strings.Contains(g.Hint, want) {
				t.Errorf("the Advanced group's summary hint %q does not name %q", g.Hint, want)
			}
		}
		if g.Open {
			t.Errorf("the group opened by itself: the hint is to tell of a closed one")
		}
	}
	if !found {
		t.Fatal("no Advanced group")
	}
	openLab(t, ctx, srv.URL+"/backoff?clients=5")
	waitDrawn(t, ctx)
	for _, g := range eval[[]group](t, ctx, read) {
		if g.Hint != "" {
			t.Errorf("group %s at its defaults hints %q", g.Name, g.Hint)
		}
	}
}

// TestBandExplained: a headline chart, whose help text is hidden, says in its legend what its
// shaded band shows (issue 30, item 12: the load balancer's CPU band went unexplained).
func TestBandExplained(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+chartPages["loadbalance"])
	waitDrawn(t, ctx)
	l := lookupLab(t, "loadbalance")
	want := ""
	for _, c := range l.View.Charts {
		if c.ID == "cpu" {
			want = c.Band
		}
	}
	if want == "" {
		t.Fatal("the CPU chart declares no Band")
	}
	got := eval[[]string](t, ctx, `[...document.querySelectorAll("#chart-cpu .legend li")].filter((li) => li.checkVisibility()).map((li) => li.textContent)`)
	if !slices.Contains(got, want) {
		t.Errorf("the CPU chart's legend reads %q, want it to say %q", got, want)
	}
}

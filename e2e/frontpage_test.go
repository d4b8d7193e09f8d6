package e2e

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
)

// TestFrontPageTeacher opens the front page as a teacher does: it explains Present and rooms,
// lists a suggested 45-minute lesson of tours in order, each linked to its first step, and its
// "Join a room" box says so clearly for a code that names no room and opens the room's page
// for a code that does (typed in lower case with a dash, as read off a projector).
//
// Its server draws the previews at start-up as cmd/playground does (WarmPreviews): every lab's
// preview draws, though the hub has only two run slots.
func TestFrontPageTeacher(t *testing.T) {
	srv := mustOpenServerConfig(t, serverConfig{warm: true})
	ExpectConsole(t, "/api/v1/rooms/ZZZZZZ") // the 404 of a code naming no room
	res, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/backoff?clients=40&trials=10&sweep=off"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Code string `json:"code"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	// The previews load lazily; each, once loaded, is a drawing (not a refusal of a busy hub).
	waitFor(t, ctx, `[...document.querySelectorAll(".preview img")].every((i) => i.complete)`)
	previews := eval[[]int](t, ctx, `[...document.querySelectorAll(".preview img")].map((i) => i.naturalWidth)`)
	if n := len(labs.Registry().All()); len(previews) != n || slices.Contains(previews, 0) {
		t.Errorf("previews' widths %v: want %d drawn, one a lab", previews, n)
	}
	text := eval[string](t, ctx, `document.querySelector("main").innerText`)
	for _, want := range []string{"Present", "join code", "Projector view", "Join a room", "A 45-minute lesson"} {
		if !strings.Contains(text, want) {
			t.Errorf("front page does not say %q", want)
		}
	}
	links := eval[[]string](t, ctx, `[...document.querySelectorAll(".lesson li a")].map((a) => a.getAttribute("href"))`)
	if len(links) < 5 {
		t.Errorf("the lesson links %d tours, want 5: %q", len(links), links)
	}
	for _, l := range links {
		if !strings.Contains(l, "#tour=") || !strings.HasSuffix(l, "/1") {
			t.Errorf("lesson link %q is not a tour's first step", l)
		}
	}
	t.Logf("lesson: %q", links)

	typeValue(t, ctx, "#join-code", "ZZZZZZ")
	waitFor(t, ctx, `document.getElementById("join-error").textContent.includes("no room with the code ZZZZZZ")`)
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/" {
		t.Errorf("a code naming no room left the front page for %s", loc)
	}

	typed := strings.ToLower(created.Code[:3]) + "-" + strings.ToLower(created.Code[3:])
	typeValue(t, ctx, "#join-code", typed)
	if err := chromedp.Do(ctx, chromedp.WaitReady("#lab[data-lab=backoff]")); err != nil {
		t.Fatal(err)
	}
	if loc := eval[string](t, ctx, `location.pathname`); loc != "/join/"+created.Code {
		t.Errorf("joined at %s, want /join/%s", loc, created.Code)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestRoomAnswers runs a class answering a prediction on one server: see classAnswers.
func TestRoomAnswers(t *testing.T) {
	raceToo(t)
	srv := MustOpenServer(t)
	classAnswers(t, srv.URL, srv.URL)
}

// TestRoomAnswersOnRedis runs the same class on two servers sharing rooms through one real
// redis-server: the presenter and two followers on the first, two followers on the second.
func TestRoomAnswersOnRedis(t *testing.T) {
	raceToo(t)
	browser(t)
	a, b := mustOpenRedisPair(t)
	classAnswers(t, a, b)
}

// counts is a page's distribution of answers as its bars show them, "2,1,0".
const counts = `[...document.querySelectorAll(".answers-row .answers-n")].map((n) => n.textContent).join(",")`

// classAnswers: a presenter on server a asks the backoff tour's question "which strategy
// needs the fewest writes?"; followers, each in a browser context of its own (another
// person's device) on a or b, answer with a tap and may change their mind; the presenter sees
// how many answered and the spread live, followers see nobody's answers; a follower who
// reloads keeps their answer (and is counted once), a late joiner answers; Reveal shows
// everyone the distribution with the true answer marked, and each follower whether theirs was
// right.
func classAnswers(t *testing.T, a, b string) {
	const step = "jitter/3" // options full, equal, decorrelated; the truth: full
	if tr, n, ok := lookupLab(t, "backoff").FindStep(step); !ok || tr.Steps[n-1].Answer == nil || tr.Steps[n-1].Answer.Truth != "full" {
		t.Fatalf("the backoff lab's step %s no longer asks which strategy needs the fewest writes", step)
	}
	res, err := http.Post(a+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/backoff?clients=40&trials=10&sweep=off"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Code         string `json:"code"`
		PresenterURL string `json:"presenter_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	join := "/join/" + created.Code

	pres := MustOpenPrivateTab(t)
	navigate(t, pres, a+created.PresenterURL)
	waitFor(t, pres, `!!window.__playground?.room?.presenting`)
	evalVoid(t, pres, fmt.Sprintf(`location.hash = "#tour=%s"`, step))
	waitFor(t, pres, `document.querySelector(".answers .answers-status")?.textContent === "0 of 0 followers answered"`)

	servers := []string{a, b, a}
	fols := make([]context.Context, len(servers))
	for i, s := range servers {
		fols[i] = MustOpenPrivateTab(t)
		navigate(t, fols[i], s+join)
	}
	answer := func(i int, id, label string) {
		t.Helper()
		waitFor(t, fols[i], fmt.Sprintf(`!!document.querySelector('.answer-option[data-id=%q]')`, id))
		click(t, fols[i], fmt.Sprintf(`.answer-option[data-id=%q]`, id))
		waitFor(t, fols[i], fmt.Sprintf(`document.querySelector(".answers-mine")?.textContent.startsWith("Your answer: %s.") && document.querySelector('.answer-option[aria-pressed="true"]')?.dataset.id === %q`, label, id))
	}
	answer(0, "full", "Full jitter")
	answer(1, "equal", "Equal jitter")
	answer(2, "full", "Full jitter")
	waitFor(t, pres, `document.querySelector(".answers-status").textContent === "3 of 3 followers answered"`)
	waitFor(t, pres, counts+` === "2,1,0"`)
	// A follower's keyboard focus stays on an answer while the room changes around it (the
	// presenter moves a slider; every room update refreshes the tour panel): the panel and the
	// answers are updated in place, not rebuilt.
	evalVoid(t, fols[0], `document.querySelector('.answer-option[data-id="equal"]').focus()`)
	moveSlider(t, pres, "clients", 50, true)
	waitFor(t, fols[0], `new URLSearchParams(location.search).get("clients") === "50"`)
	if !eval[bool](t, fols[0], `!!document.activeElement?.matches('.answer-option[data-id="equal"]')`) {
		t.Errorf("a room update took the follower's focus off its answer (on %s)", eval[string](t, fols[0], `document.activeElement?.outerHTML.slice(0, 80) ?? ""`))
	}
	if eval[bool](t, pres, `!!document.querySelector(".answers-row.truth, .answers-truth")`) {
		t.Errorf("the presenter's live distribution shows the truth before the reveal")
	}
	for i, f := range fols {
		if eval[bool](t, f, `!!document.querySelector(".answers-chart, .answers-row")`) {
			t.Errorf("follower %d sees the class's answers before the reveal", i)
		}
	}

	// A reload keeps the follower's answer, counted once; a change of mind moves it.
	navigate(t, fols[1], servers[1]+join)
	waitFor(t, fols[1], `document.querySelector('.answer-option[aria-pressed="true"]')?.dataset.id === "equal"`)
	answer(2, "equal", "Equal jitter")
	waitFor(t, pres, counts+` === "1,2,0"`)
	// A late joiner (on b) answers.
	late := MustOpenPrivateTab(t)
	navigate(t, late, b+join)
	fols = append(fols, late)
	answer(3, "decorrelated", "Decorrelated jitter")
	waitFor(t, pres, counts+` === "1,2,1"`)
	waitFor(t, pres, `document.querySelector(".answers-status").textContent === "4 of 4 followers answered"`)

	// Reveal: the distribution with the truth marked, for everyone.
	click(t, pres, "#tour .tour-reveal")
	for i, f := range append([]context.Context{pres}, fols...) {
		waitFor(t, f, `document.querySelector(".answers-row.truth .answers-label")?.textContent.startsWith("Full jitter") && document.querySelector(".answers-truth")?.textContent === "The true answer: Full jitter"`)
		if got := eval[string](t, f, counts); got != "1,2,1" {
			t.Errorf("page %d (0: the presenter) shows the revealed distribution %s, want 1,2,1", i, got)
		}
	}
	for i, want := range []string{"right", "not the true answer", "not the true answer", "not the true answer"} {
		waitFor(t, fols[i], fmt.Sprintf(`document.querySelector(".answers-mine")?.textContent.endsWith(%q)`, want+"."))
	}
	if eval[bool](t, fols[0], `!!document.querySelector(".answer-option")`) {
		t.Errorf("a follower can still answer after the reveal")
	}
}

// TestRoomAnswerNumber: a question answered with a number (the retry storm's "how many calls
// reach the service per request?", on a scale of 1 to 100): the follower moves the slider with
// the keyboard alone, the presenter's histogram counts it, and Reveal marks the true number's
// bar and tells the follower it was right.
func TestRoomAnswerNumber(t *testing.T) {
	const step = "layers/1"
	tr, n, ok := lookupLab(t, "retrystorm").FindStep(step)
	if !ok || tr.Steps[n-1].Answer == nil || tr.Steps[n-1].Answer.Truth != "64" {
		t.Fatalf("the retrystorm lab's step %s no longer asks for the calls per request (64)", step)
	}
	srv := MustOpenServer(t)
	res, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/retrystorm"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Code         string `json:"code"`
		PresenterURL string `json:"presenter_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	pres := MustOpenPrivateTab(t)
	navigate(t, pres, srv.URL+created.PresenterURL)
	waitFor(t, pres, `!!window.__playground?.room?.presenting`)
	evalVoid(t, pres, fmt.Sprintf(`location.hash = "#tour=%s"`, step))

	fol := MustOpenPrivateTab(t)
	navigate(t, fol, srv.URL+"/join/"+created.Code)
	waitFor(t, fol, `!!document.querySelector(".answer-range")`)
	start := eval[int](t, fol, `Number(document.querySelector(".answer-range").value)`)
	if err := chromedp.Do(fol, chromedp.Focus(chromedp.CSS(".answer-range"))); err != nil {
		t.Fatal(err)
	}
	for range 64 - start {
		if err := chromedp.Do(fol, chromedp.KeyEvent(kb.ArrowRight)); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, fol, `document.querySelector(".answers-mine")?.textContent.startsWith("Your answer: 64 calls per request.")`)
	waitFor(t, pres, `document.querySelector(".answers-status").textContent === "1 of 1 follower answered"`)
	// A hundred values in bars of five: 64 is in the bar of 61–65.
	waitFor(t, pres, `[...document.querySelectorAll(".answers-row")].map((r) => r.querySelector(".answers-label").textContent + "=" + r.querySelector(".answers-n").textContent).filter((s) => !s.endsWith("=0")).join() === "61–65=1"`)

	click(t, pres, "#tour .tour-reveal")
	for _, p := range []context.Context{pres, fol} {
		waitFor(t, p, `document.querySelector(".answers-row.truth .answers-label")?.textContent.startsWith("61–65") && document.querySelector(".answers-truth")?.textContent === "The true answer: 64 calls per request"`)
	}
	waitFor(t, fol, `document.querySelector(".answers-mine")?.textContent === "Your answer: 64 calls per request — right."`)
}

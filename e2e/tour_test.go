package e2e

import (
	"context"
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/resilience-playground/playground/labs"
)

// tourView is what the tour panel and the address show.
type tourView struct {
	Title, Text, Count, Predict, Hash, Path string
	Hidden, Predicting                      bool
	Errors                                  []string
	Status                                  string
}

const tourViewJS = `(() => { const q = (s) => document.querySelector(s)?.textContent ?? "";
	return { Title: q("#tour-title"), Text: q("#tour .tour-text"), Count: q("#tour .tour-count"), Predict: q("#tour .tour-predict"),
		Hash: location.hash, Path: decodeURIComponent(location.pathname + location.search),
		Hidden: document.getElementById("tour").hidden, Predicting: document.getElementById("lab").classList.contains("predicting"),
		Errors: window.__playground.errors, Status: document.getElementById("status").textContent }; })()`

// TestTourEveryStep opens every step of every tour of every registered lab at its address
// (url#tour=name/n), as the front page links them: the step's scenario runs to its final
// result without an error, and the panel shows the step's title, text and place; a step that
// asks for a prediction hides the charts until "Reveal", which shows its explanation.
func TestTourEveryStep(t *testing.T) {
	srv := MustOpenServer(t)
	for _, l := range labs.Registry().All() {
		for _, tour := range l.Tours {
			for i, step := range tour.Steps {
				n := i + 1
				t.Run(fmt.Sprintf("%s/%s/%d", l.Name, tour.Name, n), func(t *testing.T) {
					ctx := MustOpenTab(t)
					hookTab(t, ctx)
					openStep(t, ctx, fmt.Sprintf("%s%s#tour=%s/%d", srv.URL, step.URL, tour.Name, n))
					v := eval[tourView](t, ctx, tourViewJS)
					want := fmt.Sprintf("step %d of %d", n, len(tour.Steps))
					if v.Hidden || v.Title != step.Title || v.Text != step.Text || v.Count != want {
						t.Errorf("tour panel = %+v, want %q, %q, %q", v, step.Title, step.Text, want)
					}
					if v.Hash != fmt.Sprintf("#tour=%s/%d", tour.Name, n) || v.Path != step.URL {
						t.Errorf("address = %s%s, want %s#tour=%s/%d", v.Path, v.Hash, step.URL, tour.Name, n)
					}
					if len(v.Errors) > 0 {
						t.Errorf("the step's scenario failed: %q", v.Errors)
					}
					if !step.Predicts() {
						if v.Predicting {
							t.Errorf("charts hidden on a step without a prediction")
						}
						return
					}
					if !v.Predicting || v.Predict != "Predict: "+step.Question {
						t.Errorf("predict step: hidden = %v, question = %q; want the charts hidden and %q", v.Predicting, v.Predict, step.Question)
					}
					click(t, ctx, "#tour .tour-reveal")
					waitFor(t, ctx, `!document.getElementById("lab").classList.contains("predicting") && !document.querySelector("#tour .tour-reveal")`)
					if got := eval[string](t, ctx, `document.querySelector("#tour .tour-explanation")?.textContent ?? ""`); got != "Answer: "+step.Explanation {
						t.Errorf("revealed: %q, want the explanation %q", got, step.Explanation)
					}
				})
			}
		}
	}
}

// openStep opens a tour step and waits for its final result.
func openStep(t *testing.T, ctx context.Context, u string) {
	t.Helper()
	openLab(t, ctx, u)
	waitDrawn(t, ctx)
}

// TestTourKeyboard starts a tour from the Tours menu and steps through it with the keyboard
// and the buttons: ] and Page Down go on, [ and Page Up go back; keys typed into a control
// are the control's.
func TestTourKeyboard(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=50&trials=10&sweep=off")
	tour := lookupLab(t, "backoff").Tours[0]
	at := func(n int) {
		t.Helper()
		step := tour.Steps[n-1]
		waitFor(t, ctx, fmt.Sprintf(`location.hash === %q && decodeURIComponent(location.pathname + location.search) === %q && document.getElementById("tour-title")?.textContent === %q`,
			fmt.Sprintf("#tour=%s/%d", tour.Name, n), step.URL, step.Title))
	}
	if eval[bool](t, ctx, `!document.getElementById("tour").hidden`) {
		t.Errorf("a tour panel without a tour")
	}
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector(".tours-menu").open = true`)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, ".tours-menu li:first-child a")
	at(1)
	pressKey(t, ctx, "]")
	at(2)
	pressKey(t, ctx, kb.PageDown)
	at(3)
	pressKey(t, ctx, "[")
	at(2)
	pressKey(t, ctx, kb.PageUp)
	at(1)
	pressKey(t, ctx, "[") // no step before the first
	at(1)
	click(t, ctx, "#tour .tour-next")
	at(2)
	waitDrawn(t, ctx)
	// The button pressed keeps the focus across the step it brings: Enter or Space goes on.
	if !eval[bool](t, ctx, `!!document.activeElement?.matches("#tour .tour-next")`) {
		t.Errorf("Next lost the keyboard's focus to %s", eval[string](t, ctx, `document.activeElement?.tagName ?? ""`))
	}

	// Page Down on a slider moves the slider, not the tour.
	if err := chromedp.Do(ctx, chromedp.Focus(chromedp.CSS(rangeSel("clients"))), chromedp.KeyEvent(kb.PageDown)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `new URLSearchParams(location.search).get("clients") !== null`)
	if h := eval[string](t, ctx, `location.hash`); h != "#tour="+tour.Name+"/2" {
		t.Errorf("Page Down on a slider moved the tour to %s", h)
	}
	// Ending the tour takes it out of the address.
	click(t, ctx, "#tour .tour-end")
	waitFor(t, ctx, `document.getElementById("tour").hidden && location.hash === ""`)
	if s, _ := url.QueryUnescape(eval[string](t, ctx, `location.search`)); s == "" {
		t.Errorf("ending the tour lost the scenario")
	}
}

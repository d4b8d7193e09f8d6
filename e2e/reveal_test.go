package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
)

// TestPredictHidesAnswer opens every step of every tour that asks the class to predict: until
// Reveal, no sentence of the step's explanation is on screen or in the accessibility tree, the
// charts and tables are hidden (no plot or table in the tree) and each says it is; after
// Reveal, every sentence of the explanation is visible and in the tree, and so are the charts.
func TestPredictHidesAnswer(t *testing.T) {
	srv := MustOpenServer(t)
	steps := 0
	for _, l := range labs.Registry().All() {
		for _, tour := range l.Tours {
			for i, step := range tour.Steps {
				if !step.Predicts() {
					continue
				}
				steps++
				n := i + 1
				t.Run(fmt.Sprintf("%s/%s/%d", l.Name, tour.Name, n), func(t *testing.T) {
					ctx := MustOpenTab(t)
					hookTab(t, ctx)
					start := time.Now()
					openStep(t, ctx, fmt.Sprintf("%s%s#tour=%s/%d", srv.URL, step.URL, tour.Name, n))
					sentences := sentencesOf(step.Explanation)
					if len(sentences) == 0 {
						t.Fatalf("explanation %q has no sentence", step.Explanation)
					}

					before := readAnswer(t, ctx, sentences)
					if !strings.Contains(before.Text, step.Question) {
						t.Errorf("before Reveal: the question %q is not on screen", step.Question)
					}
					for _, s := range sentences {
						if strings.Contains(before.Text, s) {
							t.Errorf("before Reveal: %q is on screen", s)
						}
						if before.Tree[s] {
							t.Errorf("before Reveal: %q is in the accessibility tree", s)
						}
					}
					if before.Images > 0 || before.Tables > 0 {
						t.Errorf("before Reveal: %d plots and %d tables in the accessibility tree, want none", before.Images, before.Tables)
					}
					if before.Notes == 0 || before.Notes != before.Panels {
						t.Errorf("before Reveal: %d of %d charts and tables say they are hidden", before.Notes, before.Panels)
					}

					click(t, ctx, "#tour .tour-reveal")
					waitFor(t, ctx, `!document.getElementById("lab").classList.contains("predicting")`)
					after := readAnswer(t, ctx, sentences)
					for _, s := range sentences {
						if !strings.Contains(after.Text, s) {
							t.Errorf("after Reveal: %q is not on screen", s)
						}
						if !after.Tree[s] {
							t.Errorf("after Reveal: %q is not in the accessibility tree", s)
						}
					}
					if after.Images == 0 || after.Notes != 0 {
						t.Errorf("after Reveal: %d plots in the accessibility tree, %d hidden notes; want the charts back", after.Images, after.Notes)
					}
					if f := eval[bool](t, ctx, `document.activeElement?.classList.contains("tour-explanation")`); !f {
						t.Errorf("after Reveal: the focus is not on the explanation")
					}
					t.Logf("%d sentences hidden, then shown; %d plots and %d tables revealed (%.1f s)", len(sentences), after.Images, after.Tables, time.Since(start).Seconds())
				})
			}
		}
	}
	if steps == 0 {
		t.Fatal("no tour step asks for a prediction")
	}
}

// answerView is what a person sees and a screen reader hears of a predict step's page.
type answerView struct {
	Text          string          // the page's rendered text (document.body.innerText)
	Tree          map[string]bool // sentences found in a node's name of the accessibility tree
	Images        int             // named plot images in the tree
	Tables        int             // tables in the tree
	Panels, Notes int             // charts and tables on the page, and those saying they are hidden
}

func readAnswer(t *testing.T, ctx context.Context, sentences []string) answerView {
	t.Helper()
	var v answerView
	v.Text = eval[string](t, ctx, `document.body.innerText.replace(/\s+/g, " ")`)
	v.Panels = eval[int](t, ctx, `document.querySelectorAll("#lab .chart, #lab .table").length`)
	v.Notes = eval[int](t, ctx, `[...document.querySelectorAll("#lab .predict-note")].filter((n) => n.checkVisibility()).length`)
	tree, err := chromedp.Call(ctx, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	if err != nil {
		t.Fatal(err)
	}
	v.Tree = map[string]bool{}
	for _, n := range tree.Nodes {
		if n.Ignored {
			continue
		}
		var role, name string
		if n.Role != nil {
			json.Unmarshal(n.Role.Value, &role)
		}
		if n.Name != nil {
			json.Unmarshal(n.Name.Value, &name)
		}
		switch role {
		case "image", "img":
			if name != "" {
				v.Images++
			}
		case "table":
			v.Tables++
		}
		for _, s := range sentences {
			if strings.Contains(strings.Join(strings.Fields(name), " "), s) {
				v.Tree[s] = true
			}
		}
	}
	return v
}

// sentencesOf splits a text into its sentences of three words or more ("No." alone could be
// any word on the page), without their final stop.
func sentencesOf(text string) []string {
	var out []string
	for rest := strings.TrimSpace(text); rest != ""; {
		i := strings.IndexAny(rest, ".?!")
		for i >= 0 && i+1 < len(rest) && rest[i+1] != ' ' { // 2.80, 00:01
			j := strings.IndexAny(rest[i+1:], ".?!")
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			i = len(rest)
		}
		if s := strings.TrimSpace(rest[:i]); len(strings.Fields(s)) >= 3 {
			out = append(out, s)
		}
		if i >= len(rest) {
			break
		}
		rest = strings.TrimSpace(rest[i+1:])
	}
	return out
}

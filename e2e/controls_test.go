package e2e

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/resilience-playground/playground/param"
)

// startURL is a small scenario of the backoff lab that the control tests start from.
const startURL = "/backoff?clients=40&trials=10&sweep=10:50:20"

// effect is what changing a parameter of the backoff lab must change (summary keys, and with
// them their charts) and what it must leave alone, bit for bit. A parameter not listed must
// change the summary or the series somewhere.
type effect struct{ changes, keeps []string }

var backoffEffects = map[string]effect{
	"strategies":   {changes: []string{"strategies", "sweep"}, keeps: []string{"schedule"}},
	"clients":      {changes: []string{"strategies"}, keeps: []string{"schedule", "sweep"}}, // 40±1 is not a sweep point
	"base":         {changes: []string{"strategies", "sweep", "schedule"}},
	"cap":          {changes: []string{"schedule"}},
	"multiplier":   {changes: []string{"strategies", "sweep", "schedule"}},
	"latency_mean": {changes: []string{"strategies", "sweep"}, keeps: []string{"schedule"}},
	"latency_sd":   {changes: []string{"strategies", "sweep"}, keeps: []string{"schedule"}},
	"trials":       {changes: []string{"strategies", "sweep"}, keeps: []string{"schedule"}},
	"seed":         {changes: []string{"strategies", "sweep"}, keeps: []string{"schedule"}},
	"sweep":        {changes: []string{"sweep"}, keeps: []string{"strategies", "schedule"}},
	"retries":      {changes: []string{"schedule"}, keeps: []string{"strategies", "sweep"}},
}

// chartsOf are the charts drawn from each summary key's run stage.
var chartsOf = map[string][]string{
	"strategies": {"timeline"},
	"sweep":      {"work", "completion"},
	"schedule":   {"schedule", "relation"},
}

// TestEachControlChangesURLAndData changes every control of the lab the way a user would and
// checks that the URL follows, that the data the parameter drives changes after the next run,
// and that undoing the change gives back the URL and the numbers bit for bit.
func TestEachControlChangesURLAndData(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	l := lookupLab(t, "backoff")
	start, err := url.Parse(startURL)
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range l.Params {
		t.Run(sp.Name, func(t *testing.T) {
			openLab(t, ctx, srv.URL+startURL)
			openGroups(t, ctx)
			orig := readState(t, ctx)
			if orig.Search != "?"+start.RawQuery {
				t.Fatalf("start search = %q, want %q", orig.Search, "?"+start.RawQuery)
			}
			origValue := start.Query().Get(sp.Name)
			inURL := start.Query().Has(sp.Name)
			if !inURL {
				origValue = sp.Default
			}
			fx, known := backoffEffects[sp.Name]
			check := func(what string, before, after state) {
				t.Helper()
				checkEffect(t, what, sp.Name, fx, known, before, after)
				matchesAPI(t, ctx, srv.URL, l.Name, what)
			}
			restore := func(what string) {
				t.Helper()
				back := readState(t, ctx)
				if back.Search != orig.Search {
					t.Errorf("%s: search = %q, want %q", what, back.Search, orig.Search)
				}
				if got, ok := queryParam(t, ctx, sp.Name); ok != inURL || (ok && got != origValue) {
					t.Errorf("%s: %s in URL = %q (present %v), want %q (present %v)", what, sp.Name, got, ok, origValue, inURL)
				}
				if back.Raw != orig.Raw {
					t.Errorf("%s: summary differs from the start's:\n got %.300s\nwant %.300s", what, back.Raw, orig.Raw)
				}
				if !mapsEqual(back.Charts, orig.Charts) {
					t.Errorf("%s: series differ from the start's", what)
				}
				if !slices.Equal(back.Controls, orig.Controls) {
					t.Errorf("%s: controls = %q, want %q", what, back.Controls, orig.Controls)
				}
				matchesAPI(t, ctx, srv.URL, l.Name, what)
			}

			switch controlKind(sp) {
			case "slider":
				// Keyboard on the range input: arrow keys until the value moves, then back.
				key, undo := kb.ArrowRight, kb.ArrowLeft
				if eval[bool](t, ctx, fmt.Sprintf(`(() => { const s = document.querySelector('input[type=range][data-for=%q]'); return Number(s.value) >= Number(s.max); })()`, sp.Name)) {
					key, undo = kb.ArrowLeft, kb.ArrowRight
				}
				prev := lastSent(t, ctx)
				presses := 0
				for ; presses < 50 && textValue(t, ctx, sp.Name) == origValue; presses++ {
					sendKeys(t, ctx, rangeSel(sp.Name), key)
				}
				newValue := textValue(t, ctx, sp.Name)
				if newValue == origValue {
					t.Fatalf("%d arrow presses left %s at %q", presses, sp.Name, origValue)
				}
				newPos := eval[string](t, ctx, fmt.Sprintf(`document.querySelector(%q).value`, rangeSel(sp.Name)))
				if waitSettled(t, ctx, prev) {
					t.Fatalf("run after arrow keys failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
				}
				changed := readState(t, ctx)
				if got, ok := queryParam(t, ctx, sp.Name); !ok || got != newValue {
					t.Errorf("arrow: %s in URL = %q (present %v), want %q; search %q", sp.Name, got, ok, newValue, changed.Search)
				}
				check("arrow keys", orig, changed)

				prev = lastSent(t, ctx)
				for range presses {
					sendKeys(t, ctx, rangeSel(sp.Name), undo)
				}
				waitSettled(t, ctx, prev)
				restore("arrow keys back")

				// Typing into the value box: the same value must give the same slider position
				// and the same numbers as the arrow keys did.
				prev = lastSent(t, ctx)
				typeValue(t, ctx, textSel(sp.Name), newValue)
				waitSettled(t, ctx, prev)
				typed := readState(t, ctx)
				// A log slider shows two significant digits, so neighbouring positions can show
				// the same value; typing it may put the slider one position off.
				pos := eval[float64](t, ctx, fmt.Sprintf(`Number(document.querySelector(%q).value)`, rangeSel(sp.Name)))
				if want, _ := strconv.ParseFloat(newPos, 64); pos != want && !(sp.Log && math.Abs(pos-want) <= 1) {
					t.Errorf("typed %q: slider at %v, want %v (where the arrow keys put it)", newValue, pos, want)
				}
				if typed.Search != changed.Search || typed.Raw != changed.Raw {
					t.Errorf("typed %q: search %q summary %.200s; want the arrow keys' %q %.200s", newValue, typed.Search, typed.Raw, changed.Search, changed.Raw)
				}
				prev = lastSent(t, ctx)
				typeValue(t, ctx, textSel(sp.Name), origValue)
				waitSettled(t, ctx, prev)
				restore("typed back")

			case "text":
				newValue := otherValue(sp, origValue)
				prev := lastSent(t, ctx)
				typeValue(t, ctx, textSel(sp.Name), newValue)
				if waitSettled(t, ctx, prev) {
					t.Fatalf("run after typing %q failed: %v", newValue, eval[[]string](t, ctx, `window.__playground.errors`))
				}
				changed := readState(t, ctx)
				if got, ok := queryParam(t, ctx, sp.Name); !ok || got != newValue {
					t.Errorf("typed: %s in URL = %q (present %v), want %q", sp.Name, got, ok, newValue)
				}
				check("typed "+newValue, orig, changed)
				prev = lastSent(t, ctx)
				typeValue(t, ctx, textSel(sp.Name), origValue)
				waitSettled(t, ctx, prev)
				restore("typed back")

				if sp.Random {
					sel := fmt.Sprintf(`#controls button.reroll[data-for=%q]`, sp.Name)
					prev = lastSent(t, ctx)
					click(t, ctx, sel)
					waitSettled(t, ctx, prev)
					rolled := readState(t, ctx)
					seed := textValue(t, ctx, sp.Name)
					if got, ok := queryParam(t, ctx, sp.Name); !ok || got != seed || seed == origValue {
						t.Errorf("re-roll: %s in URL = %q (present %v), box %q, was %q", sp.Name, got, ok, seed, origValue)
					}
					check("re-roll", orig, rolled)
					prev = lastSent(t, ctx)
					typeValue(t, ctx, textSel(sp.Name), origValue)
					waitSettled(t, ctx, prev)
					restore("re-roll typed back")
				}

			case "checkboxes":
				on := strings.Split(origValue, ",")
				option := ""
				for _, o := range sp.Options {
					if !slices.Contains(on, o) {
						option = o // switching an option on always leaves a valid list
						break
					}
				}
				if option == "" {
					option = on[0]
				}
				sel := fmt.Sprintf(`#controls input[type=checkbox][name=%q][value=%q]`, sp.Name, option)
				prev := lastSent(t, ctx)
				click(t, ctx, sel)
				if waitSettled(t, ctx, prev) {
					t.Fatalf("run after clicking %s failed", option)
				}
				changed := readState(t, ctx)
				got, ok := queryParam(t, ctx, sp.Name)
				if !ok || slices.Contains(strings.Split(got, ","), option) == slices.Contains(on, option) {
					t.Errorf("click %s: %s in URL = %q (present %v), was %q", option, sp.Name, got, ok, origValue)
				}
				check("click "+option, orig, changed)
				prev = lastSent(t, ctx)
				click(t, ctx, sel)
				waitSettled(t, ctx, prev)
				restore("click " + option + " again")

			case "checkbox":
				sel := fmt.Sprintf(`#controls input[type=checkbox][name=%q]`, sp.Name)
				prev := lastSent(t, ctx)
				click(t, ctx, sel)
				waitSettled(t, ctx, prev)
				changed := readState(t, ctx)
				if _, ok := queryParam(t, ctx, sp.Name); ok == inURL {
					t.Errorf("click: %s presence in URL unchanged (%v)", sp.Name, ok)
				}
				check("click", orig, changed)
				prev = lastSent(t, ctx)
				click(t, ctx, sel)
				waitSettled(t, ctx, prev)
				restore("click again")

			case "select":
				i := slices.Index(sp.Options, origValue)
				next := sp.Options[(i+1)%len(sp.Options)]
				sel := fmt.Sprintf(`#controls select[name=%q]`, sp.Name)
				prev := lastSent(t, ctx)
				selectOption(t, ctx, sel, next)
				waitSettled(t, ctx, prev)
				changed := readState(t, ctx)
				if got, ok := queryParam(t, ctx, sp.Name); !ok || got != next {
					t.Errorf("select: %s in URL = %q (present %v), want %q", sp.Name, got, ok, next)
				}
				check("select "+next, orig, changed)
				prev = lastSent(t, ctx)
				selectOption(t, ctx, sel, origValue)
				waitSettled(t, ctx, prev)
				restore("select back")
			}
		})
	}
}

// checkEffect checks that the change from before to after touched what fx says it changes and
// left alone what it keeps. For a parameter the table does not know, something must change.
func checkEffect(t *testing.T, what, name string, fx effect, known bool, before, after state) {
	t.Helper()
	if !known {
		if mapsEqual(before.Summary, after.Summary) && mapsEqual(before.Charts, after.Charts) {
			t.Errorf("%s: %s changed neither the summary nor any series", what, name)
		}
		return
	}
	for _, k := range fx.changes {
		if before.Summary[k] == after.Summary[k] {
			t.Errorf("%s: summary.%s did not change", what, k)
		}
		for _, c := range chartsOf[k] {
			if before.Charts[c] == after.Charts[c] {
				t.Errorf("%s: series of chart %s did not change", what, c)
			}
		}
	}
	for _, k := range fx.keeps {
		if before.Summary[k] != after.Summary[k] {
			t.Errorf("%s: summary.%s changed; %s should not affect it", what, k, name)
		}
		for _, c := range chartsOf[k] {
			if before.Charts[c] != after.Charts[c] {
				t.Errorf("%s: series of chart %s changed; %s should not affect it", what, c, name)
			}
		}
	}
}

// otherValue returns a valid value of a text parameter that differs from v.
func otherValue(sp param.Spec, v string) string {
	switch {
	case sp.Kind == param.IntRange && v != "off":
		return "off"
	case sp.Kind == param.IntRange:
		return fmt.Sprintf("%d:%d:%d", int64(sp.Min), int64(sp.Min)+20, 10)
	case sp.Kind == param.Int && v != "7":
		return "7"
	case sp.Kind == param.Int:
		return "8"
	}
	return v + "x"
}

func rangeSel(name string) string {
	return fmt.Sprintf(`#controls input[type=range][data-for=%q]`, name)
}
func textSel(name string) string { return fmt.Sprintf(`#controls input.value[name=%q]`, name) }

func textValue(tb testing.TB, ctx context.Context, name string) string {
	tb.Helper()
	return eval[string](tb, ctx, fmt.Sprintf(`document.querySelector(%q).value`, textSel(name)))
}

func sendKeys(tb testing.TB, ctx context.Context, sel, keys string) {
	tb.Helper()
	if err := chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(sel), keys)); err != nil {
		tb.Fatalf("keys to %s: %v", sel, err)
	}
}

func click(tb testing.TB, ctx context.Context, sel string) {
	tb.Helper()
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(sel))); err != nil {
		tb.Fatalf("click %s: %v", sel, err)
	}
}

// typeValue replaces the text of an input as a user does: select it all, type, press Enter.
func typeValue(tb testing.TB, ctx context.Context, sel, value string) {
	tb.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Focus(chromedp.CSS(sel)),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).select()`, sel)),
		chromedp.SendKeys(chromedp.CSS(sel), value+kb.Enter),
	); err != nil {
		tb.Fatalf("type %q into %s: %v", value, sel, err)
	}
}

// selectOption chooses an option of a select with the keyboard-free path a mouse user takes:
// the value changes and the browser fires input and change.
func selectOption(tb testing.TB, ctx context.Context, sel, value string) {
	tb.Helper()
	js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %q;
		s.dispatchEvent(new Event("input", { bubbles: true })); s.dispatchEvent(new Event("change", { bubbles: true })); })()`, sel, value)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		tb.Fatal(err)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// matchesAPI checks that the page's summary is the JSON API's for the page's URL, bit for bit.
func matchesAPI(t *testing.T, ctx context.Context, base, labName, what string) {
	t.Helper()
	search := eval[string](t, ctx, `location.search`)
	if got, want := pageSummary(t, ctx), apiSummary(t, base, labName, search); got != want {
		t.Errorf("%s: page summary differs from GET /api/v1/%s%s:\n page %.300s\n  api %.300s", what, labName, search, got, want)
	}
}

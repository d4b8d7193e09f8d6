package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The compare view's sides are edited with the lab page's controls, one form per side.
func sideRange(side, name string) string {
	return fmt.Sprintf(`#controls-%s input[type=range][data-for=%q]`, side, name)
}
func sideText(side, name string) string {
	return fmt.Sprintf(`#controls-%s input.value[name=%q]`, side, name)
}
func sideValue(tb testing.TB, ctx context.Context, side, name string) string {
	tb.Helper()
	return eval[string](tb, ctx, fmt.Sprintf(`document.querySelector(%q).value`, sideText(side, name)))
}

// compareReady waits until both sides' newest runs are final and drawn, and fails on an error.
func compareReady(tb testing.TB, ctx context.Context) time.Duration {
	tb.Helper()
	t0 := time.Now()
	waitFor(tb, ctx, `!!window.__compare && (window.__compare.ready || window.__compare.error !== "")`)
	if e := eval[string](tb, ctx, `window.__compare.error`); e != "" {
		tb.Fatalf("compare page error: %s", e)
	}
	return time.Since(t0)
}

// compareSides reads the scenarios A and B from the compare page's address.
func compareSides(tb testing.TB, ctx context.Context) (a, b string) {
	tb.Helper()
	loc := eval[string](tb, ctx, `location.href`)
	u, err := url.Parse(loc)
	if err != nil {
		tb.Fatal(err)
	}
	return u.Query().Get("a"), u.Query().Get("b")
}

// drawnB is what the page's renderer draws of B's series in a chart's one panel: label → y.
func drawnB(tb testing.TB, ctx context.Context, chart string) map[string][]float64 {
	tb.Helper()
	return eval[map[string][]float64](tb, ctx, fmt.Sprintf(`(() => {
		const p = window.__compare.renderer.plots.get(%q + "\u0000");
		if (!p) return {};
		const out = {};
		p.u.series.forEach((s, i) => { if (i > 0 && s.label.startsWith("B ")) out[s.label.slice(2)] = p.u.data[i]; });
		return out; })()`, chart))
}

// apiSeries is the API's y values of a chart's series for a scenario: label → y, an option's
// series under the option's label, as the page draws it.
func apiSeries(tb testing.TB, base, scenario, chart string) map[string][]float64 {
	tb.Helper()
	var res struct {
		Series []struct {
			Name, Label, Chart, Of string
			Y                      []float64
		}
	}
	if err := json.Unmarshal([]byte(get(tb, base+"/api/v1"+scenario)), &res); err != nil {
		tb.Fatal(err)
	}
	out := map[string][]float64{}
	for _, s := range res.Series {
		if s.Chart == chart && s.Of == "" {
			l := s.Label
			if l == "" {
				l = s.Name
			}
			for _, sp := range lookupLab(tb, strings.SplitN(scenario[1:], "?", 2)[0]).Params {
				if slices.Contains(sp.Options, l) {
					l = sp.OptionLabel(l)
					break
				}
			}
			out[l] = s.Y
		}
	}
	return out
}

// TestCompareControls opens a compare link of two equal scenarios and moves B's base with the
// keyboard on its slider, as on the lab page: B reruns and its retry-schedule chart redraws
// with the API's numbers for the new base, the address names the new B (one history entry for
// the presses) while A stays, B's base is marked as differing and the difference line names
// it; reloading the address shows the same A and B; Back returns to the equal scenarios.
func TestCompareControls(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	scenario := "/backoff?strategies=none,exponential,full&clients=30&trials=4&sweep=off"
	start := "/compare?a=" + url.QueryEscape(scenario) + "&b=" + url.QueryEscape(scenario)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+start)); err != nil {
		t.Fatal(err)
	}
	t.Logf("compare page ready in %v", compareReady(t, ctx))
	if d := eval[string](t, ctx, `document.getElementById("compare-diff").textContent`); !strings.Contains(d, "same scenario") {
		t.Errorf("difference line %q for two equal scenarios", d)
	}
	before := drawnB(t, ctx, "schedule")
	if len(before) == 0 {
		t.Fatal("no B series drawn in the retry schedule chart")
	}
	orig := sideValue(t, ctx, "b", "base")
	entries := eval[int](t, ctx, `history.length`)

	t0 := time.Now()
	sendKeys(t, ctx, sideRange("b", "base"), strings.Repeat(kb.ArrowRight, 40))
	moved := sideValue(t, ctx, "b", "base")
	if moved == orig {
		t.Fatalf("forty arrow presses on B's base slider left it at %s", orig)
	}
	waitFor(t, ctx, fmt.Sprintf(`new URLSearchParams(new URLSearchParams(location.search).get("b").split("?")[1] || "").get("base") === %q`, moved))
	a, b := compareSides(t, ctx)
	if a != scenario {
		t.Errorf("A in the address = %q, want it unchanged %q", a, scenario)
	}
	wantB := strings.Replace(scenario, "clients=30", "clients=30&base="+moved, 1)
	if b != wantB {
		t.Errorf("B in the address = %q, want %q", b, wantB)
	}
	waitFor(t, ctx, fmt.Sprintf(`window.__compare.ready && window.__compare.b.params && window.__compare.b.params.base === %q`, moved))
	t.Logf("B's base %s → %s: B rerun and drawn in %v", orig, moved, time.Since(t0))
	if n := eval[int](t, ctx, `history.length`) - entries; n != 1 {
		t.Errorf("the presses on B's slider made %d history entries, want 1", n)
	}

	// B's chart shows the API's numbers for the new B, which differ from the old ones.
	after := drawnB(t, ctx, "schedule")
	want := apiSeries(t, srv.URL, wantB, "schedule")
	if fmt.Sprint(after) != fmt.Sprint(want) {
		t.Errorf("B's retry schedule drawn %v, the API's for %s is %v", after, wantB, want)
	}
	if fmt.Sprint(after) == fmt.Sprint(before) {
		t.Errorf("B's retry schedule did not change with base %s → %s: %v", orig, moved, after)
	}

	// The difference is visible: B's base is marked, A's controls are not, and the line names it.
	if !eval[bool](t, ctx, `document.querySelector('#controls-b .control[data-param="base"]').classList.contains("differs")`) {
		t.Error("B's base control is not marked as differing from A")
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#controls-b .control.differs").length`); n != 1 {
		t.Errorf("%d of B's controls marked as differing, want 1 (base)", n)
	}
	diff := eval[string](t, ctx, `document.getElementById("compare-diff").textContent`)
	if !strings.HasPrefix(diff, "B differs from A in: base ") || !strings.Contains(diff, "→") || strings.Contains(diff, "clients") {
		t.Errorf("difference line %q, want it to name base alone", diff)
	}
	t.Logf("difference line: %q", diff)

	// Reloading the address shows the same A and B.
	t0 = time.Now()
	if err := chromedp.Do(ctx, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	compareReady(t, ctx)
	t.Logf("reloaded and ready in %v", time.Since(t0))
	if got := sideValue(t, ctx, "b", "base"); got != moved {
		t.Errorf("after a reload B's base = %s, want %s", got, moved)
	}
	if got := sideValue(t, ctx, "a", "base"); got != orig {
		t.Errorf("after a reload A's base = %s, want %s", got, orig)
	}
	if got := eval[string](t, ctx, `window.__compare.b.params.base`); got != moved {
		t.Errorf("after a reload B was run with base %s, want %s", got, moved)
	}
	if d := eval[string](t, ctx, `document.getElementById("compare-diff").textContent`); d != diff {
		t.Errorf("after a reload the difference line is %q, want %q", d, diff)
	}

	// Back returns to the scenarios before the move.
	if err := chromedp.Do(ctx, chromedp.NavigateBack()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector(%q).value === %q`, sideText("b", "base"), orig))
	waitFor(t, ctx, `document.getElementById("compare-diff").textContent.includes("same scenario")`)
}

// TestCompareOldLinks opens compare links as they were written before the controls: the lab
// page's "Compare…" link, and A and B as API and full URLs with non-canonical values. Each
// opens, both sides' controls show its scenarios, and the address becomes the canonical link.
func TestCompareOldLinks(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	for _, c := range []struct{ query, wantA, wantB string }{
		{
			"a=" + url.QueryEscape("/backoff?clients=40&trials=4&sweep=off") + "&b=" + url.QueryEscape("/backoff?clients=40&trials=4&sweep=off"),
			"/backoff?clients=40&trials=4&sweep=off", "/backoff?clients=40&trials=4&sweep=off",
		},
		{
			"a=" + url.QueryEscape("/api/v1/backoff?sweep=off&trials=4&clients=50") + "&b=" + url.QueryEscape(srv.URL+"/backoff?cap=1000ms&sweep=off&trials=4&clients=60&strategies=full,none"),
			"/backoff?clients=50&trials=4&sweep=off", "/backoff?strategies=none,full&clients=60&cap=1s&trials=4&sweep=off",
		},
	} {
		t0 := time.Now()
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?"+c.query)); err != nil {
			t.Fatal(err)
		}
		compareReady(t, ctx)
		a, b := compareSides(t, ctx)
		if a != c.wantA || b != c.wantB {
			t.Errorf("/compare?%s: address holds A %q and B %q, want %q and %q", c.query, a, b, c.wantA, c.wantB)
		}
		for side, want := range map[string]string{"a": c.wantA, "b": c.wantB} {
			q, _ := url.ParseQuery(want[strings.Index(want, "?")+1:])
			if got := sideValue(t, ctx, side, "clients"); got != q.Get("clients") {
				t.Errorf("/compare?%s: %s's clients control shows %s, want %s", c.query, side, got, q.Get("clients"))
			}
		}
		t.Logf("/compare?%s opened as A %s, B %s in %v", c.query, a, b, time.Since(t0))
	}
	if got := eval[string](t, ctx, `[...document.querySelectorAll('#controls-b input[name="strategies"]:checked')].map((c) => c.value).join(",")`); got != "none,full" {
		t.Errorf("B's strategies checked: %s, want none,full", got)
	}
}

// TestCompareControlsOutOfRange types an out-of-range value into B's clients: B's control shows
// the message the lab page shows for it, the value does not enter the address, the status says
// which scenario is wrong, and fixing it runs B again.
func TestCompareControlsOutOfRange(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	scenario := "/backoff?clients=30&trials=4&sweep=off"
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+scenario)
	typeValue(t, ctx, textSel("clients"), "5000")
	waitFor(t, ctx, `document.getElementById("err-clients").textContent !== ""`)
	labMsg := eval[string](t, ctx, `document.getElementById("err-clients").textContent`)

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape(scenario)+"&b="+url.QueryEscape(scenario))); err != nil {
		t.Fatal(err)
	}
	compareReady(t, ctx)
	addr := eval[string](t, ctx, `location.search`)
	waitFor(t, ctx, fmt.Sprintf(`!!document.querySelector(%q)`, sideText("b", "clients")))
	typeValue(t, ctx, sideText("b", "clients"), "5000")
	waitFor(t, ctx, `document.getElementById("b-err-clients").textContent !== ""`)
	if got := eval[string](t, ctx, `document.getElementById("b-err-clients").textContent`); got != labMsg {
		t.Errorf("B's clients error %q, the lab page's %q", got, labMsg)
	}
	if !strings.Contains(labMsg, "clients must be between 1 and 1000") {
		t.Errorf("lab page's message %q does not name the parameter and its range", labMsg)
	}
	if got := eval[string](t, ctx, `document.querySelector('#controls-b input.value[name="clients"]').getAttribute("aria-invalid") || ""`); got != "true" {
		t.Errorf("B's clients input aria-invalid=%q, want true", got)
	}
	if got := eval[string](t, ctx, `document.getElementById("a-err-clients").textContent`); got != "" {
		t.Errorf("A's clients shows an error %q for B's value", got)
	}
	waitFor(t, ctx, `document.getElementById("compare-status").textContent.startsWith("Scenario B: clients must be between")`)
	if got := eval[string](t, ctx, `location.search`); got != addr {
		t.Errorf("an invalid value entered the address: %s, was %s", got, addr)
	}
	t0 := time.Now()
	typeValue(t, ctx, sideText("b", "clients"), "40")
	waitFor(t, ctx, `document.getElementById("b-err-clients").textContent === ""`)
	waitFor(t, ctx, `window.__compare.ready && window.__compare.b.params.clients === 40`)
	t.Logf("fixed B's clients: rerun and drawn in %v; message was %q", time.Since(t0), labMsg)
}

package e2e

import (
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestRefusalOffersFit: a scenario refused for the work it needs shows, beside the control the
// refusal names, a button with the value the server says is admitted; pressing it runs the
// scenario with that value (no second refusal), puts it in the address, and the button goes.
// (A server with a small budget, so that the default backoff scenario is refused and the value
// that fits runs in moments.)
func TestRefusalOffersFit(t *testing.T) {
	srv := mustOpenServerConfig(t, serverConfig{budget: 2e6})
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff")
	if !eval[bool](t, ctx, `window.__e2e.lastError === window.__e2e.lastSent`) {
		t.Fatal("the default backoff scenario ran on a budget of 2e6 work units; the test needs it refused")
	}
	offer := eval[map[string]string](t, ctx, `(() => {
		const b = document.querySelector("#controls button.fit");
		if (!b) return {};
		const ctl = b.closest(".control");
		return { param: ctl.dataset.param, value: b.dataset.value, text: b.textContent, error: ctl.querySelector("p.error").textContent };
	})()`)
	if offer["param"] == "" {
		t.Fatalf("refused, but no control offers a value that fits: %v", eval[string](t, ctx, `document.querySelector("#controls").innerText`))
	}
	t.Logf("refused: %s — offered %q", offer["error"], offer["text"])
	if !strings.Contains(offer["error"], "lower "+offer["param"]+" to "+offer["value"]) {
		t.Errorf("the button sets %s=%s, which the message does not suggest: %s", offer["param"], offer["value"], offer["error"])
	}
	prev := lastSent(t, ctx)
	evalVoid(t, ctx, `document.querySelector("#controls button.fit").click()`)
	if waitSettled(t, ctx, prev) {
		t.Fatalf("with the offered %s=%s the scenario was refused again: %s", offer["param"], offer["value"],
			eval[string](t, ctx, `document.querySelector("#controls .invalid p.error")?.textContent || ""`))
	}
	if search := eval[string](t, ctx, `location.search`); !strings.Contains(search, offer["param"]+"="+offer["value"]) {
		t.Errorf("address %q, want %s=%s in it", search, offer["param"], offer["value"])
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#controls button.fit, #controls .invalid").length`); n != 0 {
		t.Errorf("%d offers or invalid controls left after the run was admitted", n)
	}
}

// TestRefusalPageTells: what the page says around a refusal is what happens. On a server with
// a small budget, /ratelimit?duration=1m runs and 5m is refused with a duration that fits: the
// refused value leaves no history entry behind and the note over the picture says it was
// refused (not invalid); the offer names the duration as the message and the control's box
// write it ("Set Duration to 1m12s", not "1.2 min"); a press of the pointer on it takes (the
// control's help, shown as the focus enters it, used to push the offer from under the
// pointer); it leaves the keyboard at the box, showing the value; and Back from there goes to
// 1m, not to a copy of it.
func TestRefusalPageTells(t *testing.T) {
	srv := mustOpenServerConfig(t, serverConfig{budget: 2e6})
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/ratelimit?duration=1m")
	if eval[bool](t, ctx, `window.__e2e.lastError === window.__e2e.lastSent`) {
		t.Fatal("/ratelimit?duration=1m was refused on a budget of 2e6 work units; the test needs it run")
	}
	at := eval[int](t, ctx, `navigation.currentEntry.index`)
	prev := lastSent(t, ctx)
	typeValue(t, ctx, textSel("duration"), "5m")
	if !waitSettled(t, ctx, prev) {
		t.Fatal("duration=5m ran on a budget of 2e6 work units; the test needs it refused")
	}
	waitFor(t, ctx, fmt.Sprintf(`navigation.currentEntry.index === %d && location.search === "?duration=1m"`, at))
	if note := eval[string](t, ctx, `document.getElementById("stale").textContent`); !strings.Contains(note, "— refused Duration") {
		t.Errorf("the note over the picture says %q, want it to say the new duration was refused", note)
	}

	offer := eval[map[string]string](t, ctx, `(() => {
		const b = document.querySelector("#controls button.fit");
		if (!b) return {};
		const name = b.closest(".control").dataset.param;
		return { param: name, value: b.dataset.value, text: b.textContent, label: window.__playground.state.params.get(name).label };
	})()`)
	if offer["param"] != "duration" {
		t.Fatalf("offer %v, want one for duration", offer)
	}
	if want := "Set " + offer["label"] + " to " + offer["value"]; offer["text"] != want {
		t.Errorf("the button says %q, want %q: the value as the message and the box write it", offer["text"], want)
	}
	prev = lastSent(t, ctx)
	click(t, ctx, "#controls button.fit")
	if waitSettled(t, ctx, prev) {
		t.Fatalf("duration=%s was refused", offer["value"])
	}
	focus := eval[map[string]string](t, ctx, `(() => { const a = document.activeElement;
		return { tag: a.tagName, name: a.name || "", value: a.value || "" }; })()`)
	if focus["name"] != "duration" || focus["value"] != offer["value"] {
		t.Errorf("after pressing the offer, the keyboard is at %v, want the duration box showing %s", focus, offer["value"])
	}
	if i := eval[int](t, ctx, `navigation.currentEntry.index`); i != at+1 {
		t.Errorf("the offer's scenario is history entry %d, want %d: the refused one left an entry", i, at+1)
	}
	evalVoid(t, ctx, `history.back()`)
	waitFor(t, ctx, fmt.Sprintf(`navigation.currentEntry.index === %d`, at))
	if s := eval[string](t, ctx, `location.search`); s != "?duration=1m" {
		t.Errorf("Back went to %q, want ?duration=1m", s)
	}
}

// TestStoppedRunIsMarkedPartial: a run stopped partway (as the CPU limit stops one) leaves
// its numbers on show, and the page says they are partial — "Stopped", not "Not run", and
// the picture marked — until a run of the scenario finishes. A gated lab stops where it is
// told, so the test does not depend on the machine's speed.
func TestStoppedRunIsMarkedPartial(t *testing.T) {
	srv := mustOpenStopsServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/stops?steps=3&picture=1&stop=2")
	if !eval[bool](t, ctx, `window.__e2e.lastError === window.__e2e.lastSent`) {
		t.Fatal("the run was not stopped")
	}
	const look = `(() => ({ status: document.getElementById("status").textContent,
		note: document.getElementById("stale").hidden ? "" : document.getElementById("stale").textContent,
		marked: String(document.getElementById("lab").classList.contains("stale")),
		progress: document.getElementById("progress").getAttribute("aria-valuetext") }))()`
	got := eval[map[string]string](t, ctx, look)
	if !strings.HasPrefix(got["status"], "Stopped: this run was stopped after 2 of its 3 updates, as asked") ||
		!strings.HasPrefix(got["note"], "Partial numbers") || got["marked"] != "true" || got["progress"] != "stopped" {
		t.Errorf("after a stop the page shows %v, want the status to say Stopped, the picture marked partial and the progress stopped", got)
	}
	// Another value refused: the partial picture stays, and says it is partial.
	prev := lastSent(t, ctx)
	typeValue(t, ctx, textSel("n"), "300000000")
	if !waitSettled(t, ctx, prev) {
		t.Fatal("n=300000000 ran; the test needs it refused (over the default budget)")
	}
	if got = eval[map[string]string](t, ctx, look); !strings.Contains(got["note"], "(partial: its run was stopped) — refused n = ") {
		t.Errorf("a refusal over a stopped run's picture shows %v, want the note to say the picture is partial", got)
	}
	// A value the page cannot send: its own error, not the server's last one.
	typeValue(t, ctx, textSel("n"), "abc")
	waitFor(t, ctx, `document.getElementById("status").textContent.startsWith("Not run: fix n")`)
	if got = eval[map[string]string](t, ctx, look); !strings.Contains(got["note"], "not run (invalid value)") || got["progress"] != "not run" {
		t.Errorf("an invalid value after a refusal shows %v, want the note to say invalid value", got)
	}
	prev = lastSent(t, ctx)
	typeValue(t, ctx, textSel("n"), "1")
	if !waitSettled(t, ctx, prev) {
		t.Fatal("n=1&stop=2 was not stopped")
	}
	prev = lastSent(t, ctx)
	typeValue(t, ctx, textSel("stop"), "0")
	if waitSettled(t, ctx, prev) {
		t.Fatal("the run with stop=0 failed")
	}
	got = eval[map[string]string](t, ctx, look)
	if !strings.HasPrefix(got["status"], "Done") || got["note"] != "" || got["marked"] != "false" {
		t.Errorf("once a run finished the page shows %v, want Done and no mark", got)
	}

	// The compare view says so too, of the side stopped.
	a, b := url.QueryEscape("/stops?steps=3&picture=1"), url.QueryEscape("/stops?steps=3&picture=1&stop=2")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+a+"&b="+b)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__compare && window.__compare.error !== ""`)
	if e := eval[string](t, ctx, `window.__compare.error`); !strings.HasPrefix(e, "Scenario B, stopped partway (its numbers are partial): this run was stopped") {
		t.Errorf("the compare view says %q, want it to say B was stopped partway", e)
	}
}

// mustOpenStopsServer serves the playground's labs and "stops", a progressive gated lab that
// does not wait for its gate: its runs end with an error after stop updates, as the CPU limit
// stops one partway (see labtest.Params).
func mustOpenStopsServer(tb testing.TB) *httptest.Server {
	g := labtest.NewGated("stops", false)
	g.Lab.Progressive = true
	return mustOpenServerWith(tb, g.Lab)
}

// TestRefusedGestureHistory: history holds the scenarios that ran, each gesture once. On a
// server whose budget admits n up to 100 of the gated lab, one drag through n = 50 (runs), 500
// and 5000 (refused) to 80 (runs) makes one entry, holding 80; a typed refused value makes
// none, so there is nothing Forward to land on; Back and Forward then step between 2 and 80.
// (The drag's steps are the page's own calls for a slider's input events, one at a time.)
func TestRefusedGestureHistory(t *testing.T) {
	g := labtest.NewGated("stops", false)
	srv := mustOpenServerConfig(t, serverConfig{budget: 100, extra: []*lab.Lab{g.Lab}})
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/stops?n=2")
	at := eval[int](t, ctx, `navigation.currentEntry.index`)
	step := func(n string, commit, refused bool) {
		t.Helper()
		prev := lastSent(t, ctx)
		evalVoid(t, ctx, fmt.Sprintf(`window.__playground.state.setScenario({ n: %q }, "user", { partial: true, moved: "n", commit: %v, drag: %v })`, n, commit, !commit))
		if waitSettled(t, ctx, prev) != refused {
			t.Fatalf("n=%s: refused %v, want %v", n, !refused, refused)
		}
	}
	step("50", false, false)
	step("500", false, true)
	step("5000", false, true)
	step("80", true, false)
	waitFor(t, ctx, `location.search === "?n=80"`)
	entries := func() string {
		return eval[string](t, ctx, `navigation.entries().map((e) => new URL(e.url).search).join(" ") + " @" + navigation.currentEntry.index`)
	}
	if got, want := entries(), fmt.Sprintf("?n=2 ?n=80 @%d", at+1); !strings.HasSuffix(got, want) || eval[int](t, ctx, `navigation.entries().length`) != at+2 {
		t.Errorf("after the drag, history %q, want it to end %q", got, want)
	}
	step("900", true, true) // typed, refused
	if got, want := entries(), fmt.Sprintf("?n=2 ?n=80 @%d", at+1); !strings.HasSuffix(got, want) || eval[int](t, ctx, `navigation.entries().length`) != at+2 {
		t.Errorf("after a refused value, history %q, want it to end %q and nothing after", got, want)
	}
	evalVoid(t, ctx, `history.back()`)
	waitFor(t, ctx, `location.search === "?n=2" && window.__playground.state.scenario.n === "2"`)
	evalVoid(t, ctx, `history.forward()`)
	waitFor(t, ctx, `location.search === "?n=80" && window.__playground.state.scenario.n === "80"`)
	if got, want := entries(), fmt.Sprintf("?n=2 ?n=80 @%d", at+1); !strings.HasSuffix(got, want) {
		t.Errorf("after Back and Forward, history %q, want it to end %q", got, want)
	}
}

// TestCompareRefusalKeepsAddress: on the compare view, a value one side is refused never
// enters the address, not even when the other side changes next (its part was written from
// the refused scenario), and "Open A" opens what A shows.
func TestCompareRefusalKeepsAddress(t *testing.T) {
	g := labtest.NewGated("stops", false)
	srv := mustOpenServerConfig(t, serverConfig{budget: 100, extra: []*lab.Lab{g.Lab}})
	ctx := MustOpenTab(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape("/stops?n=5")+"&b="+url.QueryEscape("/stops?n=6"))); err != nil {
		t.Fatal(err)
	}
	compareReady(t, ctx)
	typeValue(t, ctx, sideText("a", "n"), "700")
	waitFor(t, ctx, `window.__compare.error.startsWith("Scenario A: ")`)
	typeValue(t, ctx, sideText("b", "n"), "7")
	waitFor(t, ctx, `new URLSearchParams(location.search).get("b") === "/stops?n=7"`)
	if a, b := compareSides(t, ctx); a != "/stops?n=5" || b != "/stops?n=7" {
		t.Errorf("address holds a=%s b=%s, want a=/stops?n=5 (its last run) and b=/stops?n=7", a, b)
	}
	if href := eval[string](t, ctx, `document.getElementById("cmp-open-a")?.getAttribute("href") ?? ""`); href != "/stops?n=5" {
		t.Errorf(`"Open A" opens %q, want /stops?n=5`, href)
	}
}

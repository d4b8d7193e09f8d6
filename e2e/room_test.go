package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// roomOf returns GET /api/v1/rooms/{code}.
func roomOf(tb testing.TB, base, code string) (r struct {
	URL, Step string
	Followers int
}) {
	tb.Helper()
	res, err := http.Get(base + "/api/v1/rooms/" + code)
	if err != nil {
		tb.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		tb.Fatalf("GET room %s: %s", code, res.Status)
	}
	if err := json.NewDecoder(res.Body).Decode(&r); err != nil {
		tb.Fatal(err)
	}
	return r
}

// searchOf returns a page's location.search, decoded.
func searchOf(tb testing.TB, ctx context.Context) string {
	tb.Helper()
	s, err := url.QueryUnescape(eval[string](tb, ctx, `location.search`))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// sameCharts checks that two pages show the same numbers.
func sameCharts(t *testing.T, what string, a, b context.Context) {
	t.Helper()
	sa, sb := readState(t, a), readState(t, b)
	if !mapsEqual(sa.Summary, sb.Summary) || !mapsEqual(sa.Charts, sb.Charts) {
		t.Errorf("%s: the pages show different numbers:\n %.300s\n %.300s", what, sa.Raw, sb.Raw)
	}
}

// TestRoomPage opens a room from a lab page with the Present button and follows it from a
// second page: the presenter's slider moves the follower's URL, controls and charts; the
// follower cannot drive; detached, it explores alone without moving the room; rejoined, it
// is back at the room's scenario. A tour step of the presenter reaches the follower too.
func TestRoomPage(t *testing.T) {
	raceToo(t)
	srv := MustOpenServer(t)
	pres := MustOpenTab(t)
	hookTab(t, pres)
	openLab(t, pres, srv.URL+"/backoff?clients=50&trials=10&sweep=off")
	waitDrawn(t, pres)

	click(t, pres, "#present")
	waitFor(t, pres, `!!window.__playground.room?.presenting && location.pathname.startsWith("/join/")`)
	code := eval[string](t, pres, `window.__playground.room.code`)
	type bar struct {
		Code, Link, QR, Hash, Search string
		PresentShown                 bool
	}
	b := eval[bar](t, pres, `({ Code: document.querySelector(".room .room-code")?.textContent ?? "",
		Link: document.querySelector(".room .room-link")?.href ?? "",
		QR: document.querySelector(".room img.room-qr")?.getAttribute("src") ?? "",
		Hash: location.hash, Search: location.search,
		PresentShown: !document.getElementById("present").hidden })`)
	if b.Code != code || b.Link != srv.URL+"/join/"+code || b.QR != "/join/"+code+"/qr.svg" || b.PresentShown {
		t.Errorf("presenter's room bar = %+v, want code %s, its join link and QR code", b, code)
	}
	if b.Hash != "" || b.Search != "?clients=50&trials=10&sweep=off" {
		t.Errorf("presenter's address = %s%s, want the scenario and no key", b.Search, b.Hash)
	}
	if k := eval[string](t, pres, `sessionStorage.getItem("playground-room-key:" + window.__playground.room.code) ?? ""`); len(k) < 40 {
		t.Errorf("the presenter's tab keeps no key (%q)", k)
	}
	if eval[bool](t, pres, `document.getElementById("controls").inert || window.__playground.state.view.following`) {
		t.Errorf("the presenter's controls take no input")
	}
	if r := roomOf(t, srv.URL, code); r.URL != "/backoff?clients=50&trials=10&sweep=off" {
		t.Errorf("room URL = %q, want the presenter's scenario", r.URL)
	}

	fol := MustOpenTab(t)
	hookTab(t, fol)
	if err := chromedp.Do(fol, chromedp.Navigate(srv.URL+"/join/"+code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `!!window.__playground?.room?.room && window.__playground.state.view.following`)
	waitDrawn(t, fol)
	if !eval[bool](t, fol, `document.getElementById("controls").inert && !!document.querySelector(".room .room-detach")`) {
		t.Errorf("a follower's controls take input, or it has no Detach button")
	}
	waitFor(t, fol, `document.querySelector(".room .room-count").textContent === "1 in the room"`)
	waitFor(t, pres, `document.querySelector(".room .room-count").textContent === "1 following"`)
	sameCharts(t, "joined", pres, fol)

	// The presenter moves a slider; the follower's URL, controls and charts follow.
	moveSlider(t, pres, "clients", 60, true)
	waitFor(t, fol, `new URLSearchParams(location.search).get("clients") === "60"`)
	waitDrawn(t, pres)
	waitDrawn(t, fol)
	if v := textValue(t, fol, "clients"); v != "60" {
		t.Errorf("follower's clients box = %q, want 60", v)
	}
	if p := eval[string](t, fol, `location.pathname`); p != "/join/"+code {
		t.Errorf("follower's path = %q, want it to stay /join/%s", p, code)
	}
	sameCharts(t, "after the presenter's move", pres, fol)
	matchesAPI(t, fol, srv.URL, "backoff", "follower")

	// A follower cannot drive: the server refuses its params.
	if err := chromedp.Do(fol, chromedp.Evaluate[chromedp.Void](`(() => { const ws = window.__playground.room.ws;
		ws.addEventListener("message", (e) => { const m = JSON.parse(e.data); if (m.type === "error" && m.id === 99) window.__refused = m.error; });
		ws.send(JSON.stringify({ type: "params", id: 99, query: "clients=7" })); })()`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `!!window.__refused`)
	msg := eval[string](t, fol, `window.__refused`)
	if msg == "" {
		t.Errorf("a follower's params were not refused")
	}
	if r := roomOf(t, srv.URL, code); r.URL != "/backoff?clients=60&trials=10&sweep=off" {
		t.Errorf("room URL = %q after a follower tried to drive, want clients=60", r.URL)
	}

	// Detached, the follower explores alone; the room stays.
	click(t, fol, ".room .room-detach")
	waitFor(t, fol, `!window.__playground.state.view.following && !document.getElementById("controls").inert && !!document.querySelector(".room .room-rejoin")`)
	moveSlider(t, fol, "clients", 80, true)
	waitFor(t, fol, `new URLSearchParams(location.search).get("clients") === "80"`)
	waitDrawn(t, fol)
	matchesAPI(t, fol, srv.URL, "backoff", "detached follower")
	if r := roomOf(t, srv.URL, code); r.URL != "/backoff?clients=60&trials=10&sweep=off" {
		t.Errorf("room URL = %q after the detached follower moved, want clients=60", r.URL)
	}
	// The presenter moves on; the detached page stays where it is.
	moveSlider(t, pres, "clients", 70, true)
	waitFor(t, pres, `new URLSearchParams(location.search).get("clients") === "70"`)
	waitDrawn(t, pres)
	waitFor(t, fol, `window.__playground.room.room.url.includes("clients=70")`)
	if s := searchOf(t, fol); s != "?clients=80&trials=10&sweep=off" {
		t.Errorf("detached follower's search = %q, want its own clients=80", s)
	}

	// Rejoined, it is back at the room's scenario.
	click(t, fol, ".room .room-rejoin")
	waitFor(t, fol, `window.__playground.state.view.following && new URLSearchParams(location.search).get("clients") === "70"`)
	waitDrawn(t, fol)
	if !eval[bool](t, fol, `document.getElementById("controls").inert`) {
		t.Errorf("rejoined, the follower's controls take input")
	}
	sameCharts(t, "rejoined", pres, fol)

	// The presenter starts a tour and steps through it with the keyboard; the room and the
	// follower follow, with the step's text.
	l := lookupLab(t, "backoff")
	tour := l.Tours[0]
	if err := chromedp.Do(pres, chromedp.Evaluate[chromedp.Void](`document.querySelector(".tours-menu").open = true;
		document.querySelector(".tours-menu li:first-child a").click()`)); err != nil {
		t.Fatal(err)
	}
	for n := 1; n <= 2; n++ {
		if n == 2 {
			pressKey(t, pres, "]")
		}
		step := tour.Steps[n-1]
		id := fmt.Sprintf("%s/%d", tour.Name, n)
		waitFor(t, fol, fmt.Sprintf(`document.getElementById("tour-title")?.textContent === %q && decodeURIComponent(location.search) === %q`,
			step.Title, step.URL[len("/backoff"):]))
		if h := eval[string](t, fol, `location.hash`); h != "#tour="+id {
			t.Errorf("follower's fragment = %q, want #tour=%s", h, id)
		}
		if h := eval[string](t, pres, `location.hash`); h != "#tour="+id {
			t.Errorf("presenter's fragment = %q, want tour=%s and no key", h, id)
		}
		if r := roomOf(t, srv.URL, code); r.Step != id || r.URL != step.URL {
			t.Errorf("room = %+v, want step %s at %s", r, id, step.URL)
		}
		if eval[bool](t, pres, `document.querySelector("#tour .tour-next").disabled`) {
			t.Errorf("the presenter cannot step the tour")
		}
		if eval[bool](t, fol, `!document.querySelector("#tour .tour-next").disabled`) {
			t.Errorf("a follower can step the tour")
		}
	}
	waitDrawn(t, fol)
	waitDrawn(t, pres)
	sameCharts(t, "tour step 2", pres, fol)
}

// pressKey presses one key with the page's body focused.
func pressKey(tb testing.TB, ctx context.Context, key string) {
	tb.Helper()
	if err := chromedp.Do(ctx,
		chromedp.Evaluate[chromedp.Void](`document.activeElement?.blur()`),
		chromedp.KeyEvent(key)); err != nil {
		tb.Fatalf("key %q: %v", key, err)
	}
}

// TestRoomUnknownCode opens a join link of no room: a clear page, not a blank one.
func TestRoomUnknownCode(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	ExpectConsole(t, "404")
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/join/NOSUCH")); err != nil {
		t.Fatal(err)
	}
	if h := eval[string](t, ctx, `document.querySelector("h1").textContent`); h == "" {
		t.Errorf("unknown room: blank page")
	}
}

// TestRoomPresenterLink opens a room from outside (POST /api/v1/rooms) and its presenter_url
// in a page: the page presents (its controls take input, its moves reach the room) and keeps
// the key out of the address bar (in the tab's sessionStorage); a join link with a wrong key follows instead.
func TestRoomPresenterLink(t *testing.T) {
	raceToo(t)
	srv := MustOpenServer(t)
	res, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/backoff?clients=40&trials=10&sweep=off"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Code         string `json:"code"`
		JoinURL      string `json:"join_url"`
		PresenterURL string `json:"presenter_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	pres := MustOpenTab(t)
	hookTab(t, pres)
	if err := chromedp.Do(pres, chromedp.Navigate(srv.URL+created.PresenterURL)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, pres, `!!window.__playground?.room?.presenting && !document.getElementById("controls").inert`)
	waitDrawn(t, pres)
	if s := searchOf(t, pres); s != "?clients=40&trials=10&sweep=off" {
		t.Errorf("presenter's search = %q, want the room's scenario", s)
	}
	moveSlider(t, pres, "clients", 45, true)
	waitFor(t, pres, `window.__playground.room.room.url.includes("clients=45")`)
	if r := roomOf(t, srv.URL, created.Code); r.URL != "/backoff?clients=45&trials=10&sweep=off" {
		t.Errorf("room URL = %q, want the presenter's move", r.URL)
	}
	if h := eval[string](t, pres, `location.hash`); h != "" {
		t.Errorf("presenter's fragment = %q, want the key moved out of the address bar", h)
	}
	if k := eval[string](t, pres, `sessionStorage.getItem("playground-room-key:`+created.Code+`") ?? ""`); "/join/"+created.Code+"#key="+k != created.PresenterURL {
		t.Errorf("presenter's tab keeps the key %q, want the key of %s", k, created.PresenterURL)
	}

	wrong := MustOpenTab(t)
	hookTab(t, wrong)
	if err := chromedp.Do(wrong, chromedp.Navigate(srv.URL+created.JoinURL+"#key=not-the-key")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, wrong, `window.__playground?.state.view.following && document.getElementById("controls").inert && !!document.querySelector(".room .room-note") && location.hash === ""`)
	waitFor(t, wrong, `new URLSearchParams(location.search).get("clients") === "45"`)
	waitDrawn(t, wrong)

	// A lost connection comes back by itself and follows on.
	opened := eval[int](t, wrong, `window.__e2e.opened`)
	if err := chromedp.Do(wrong, chromedp.Evaluate[chromedp.Void](`window.__playground.room.ws.close(4001)`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, wrong, fmt.Sprintf(`window.__e2e.opened > %d && window.__playground.room.ws?.readyState === WebSocket.OPEN`, opened))
	moveSlider(t, pres, "clients", 55, true)
	waitFor(t, wrong, `new URLSearchParams(location.search).get("clients") === "55"`)
	waitDrawn(t, wrong)
	waitDrawn(t, pres)
	sameCharts(t, "after a reconnect", pres, wrong)
}

package e2e

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRoomLinksOutliveRoom runs roomLinks on one server.
func TestRoomLinksOutliveRoom(t *testing.T) {
	srv := MustOpenServer(t)
	roomLinks(t, srv.URL, srv.URL)
}

// TestRoomLinksOutliveRoomOnRedis runs roomLinks on two servers sharing rooms through one real
// redis-server: the presenter on the first, the follower on the second, where the room's end
// and its kept join link arrive through Redis.
func TestRoomLinksOutliveRoomOnRedis(t *testing.T) {
	browser(t)
	a, b := mustOpenRedisPair(t)
	roomLinks(t, a, b)
}

// roomLinks: a room's links die with it, its scenario's do not (issue 30, item 13). On a room's
// page, the presenter's (on server a) and a follower's (on b, another person's browser), "Copy
// link" copies the scenario's own link — the lab's page with its canonical query and tour step
// — never /join/CODE, and so do the data, compare and embed links. When the presenter ends the
// room both addresses become the scenario's, and a reload shows the same scenario; the join link
// the follower kept, opened after the end, lands on that scenario with a note that the room has
// ended, and an address that is the scenario's alone (no marker), to share; so does its code
// typed into the front page's "Join a room" box.
func roomLinks(t *testing.T, a, b string) {
	pres := MustOpenTab(t)
	hookTab(t, pres)
	openLab(t, pres, a+"/backoff?strategies=exponential,full&clients=50&trials=10&sweep=off#tour=jitter/2")
	waitDrawn(t, pres)
	scenario := eval[string](t, pres, `location.pathname + location.search`) // as the server spells it
	const step = "#tour=jitter/2"
	click(t, pres, "#present")
	waitFor(t, pres, `!!window.__playground.room?.presenting && location.pathname.startsWith("/join/") && window.__playground.room.room?.step === "jitter/2"`)
	code := eval[string](t, pres, `window.__playground.room.code`)
	// The 404 by which a page learns that the room ended, and its stream's closing.
	ExpectConsole(t, "/api/v1/rooms/"+code)
	ExpectConsole(t, "WebSocket connection to")

	fol := MustOpenPrivateTab(t)
	hookTab(t, fol)
	if err := chromedp.Do(fol, chromedp.Navigate(b+"/join/"+code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `!!window.__playground?.room?.room && window.__playground.state.view.following && location.hash === "`+step+`"`)
	waitDrawn(t, fol)

	// The clipboard, as the page writes it.
	copied := func(ctx context.Context) string {
		t.Helper()
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__copied = null;
			navigator.clipboard.writeText = async (s) => { window.__copied = s; }`)); err != nil {
			t.Fatal(err)
		}
		click(t, ctx, "#copy-link")
		waitFor(t, ctx, `window.__copied !== null`)
		return eval[string](t, ctx, `window.__copied`)
	}
	query := strings.TrimPrefix(scenario, "/backoff")
	for _, p := range []struct {
		who, origin string
		ctx         context.Context
	}{{"presenter", a, pres}, {"follower", b, fol}} {
		if !strings.HasPrefix(eval[string](t, p.ctx, `location.pathname`), "/join/") {
			t.Fatalf("the %s's page is not the room's", p.who)
		}
		if got, want := copied(p.ctx), p.origin+scenario+step; got != want {
			t.Errorf("the %s's Copy link copied %q, want the scenario's link %q", p.who, got, want)
		}
		// Every link the page makes to what is on screen.
		links := eval[map[string]string](t, p.ctx, `({
			csv: document.getElementById("csv-download").getAttribute("href"),
			json: document.getElementById("json-download").getAttribute("href"),
			jsonLink: document.getElementById("json-link").getAttribute("href"),
			compare: document.getElementById("compare-link").getAttribute("href"),
			embed: document.getElementById("embed-code").value,
		})`)
		want := map[string]string{
			"csv":      "/api/v1/backoff.csv" + query,
			"json":     "/api/v1/backoff" + query,
			"jsonLink": "/api/v1/backoff" + query,
			"compare":  "/compare?a=" + url.QueryEscape(scenario) + "&b=" + url.QueryEscape(scenario),
			"embed":    `src="` + strings.ReplaceAll(p.origin+"/embed"+scenario, "&", "&amp;") + `"`, // in HTML
		}
		for k, w := range want {
			got := links[k]
			if strings.Contains(got, "/join/") || (k != "embed" && got != w) || (k == "embed" && !strings.Contains(got, w)) {
				t.Errorf("the %s's %s link is %q, want %q", p.who, k, got, w)
			}
		}
	}
	if got := eval[string](t, pres, `document.querySelector(".room .room-link").getAttribute("href")`); got != "/join/"+code {
		t.Errorf("the room's bar offers the join link %q, want /join/%s", got, code)
	}

	if err := chromedp.Do(pres, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`)); err != nil {
		t.Fatal(err)
	}
	click(t, pres, ".room .room-end")
	for _, ctx := range []context.Context{fol, pres} {
		waitFor(t, ctx, `location.pathname === "/backoff"`)
		if got := eval[string](t, ctx, `location.pathname + location.search + location.hash`); got != scenario+step {
			t.Errorf("after the room ended the address is %q, want %q", got, scenario+step)
		}
	}
	if err := chromedp.Do(fol, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, fol)
	if v := textValue(t, fol, "clients"); v != "50" {
		t.Errorf("reloaded after the room ended, clients = %q, want 50", v)
	}

	// The join link the follower kept, opened after the end (a bookmark, a reload of a tab
	// left on /join/CODE): the scenario, saying the room has ended.
	if err := chromedp.Do(fol, chromedp.Navigate(b+"/join/"+code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `location.pathname === "/backoff" && !!document.querySelector(".room .room-ended")`)
	waitDrawn(t, fol)
	if got := eval[string](t, fol, `location.pathname + location.search + location.hash`); got != scenario+step {
		t.Errorf("the kept join link led to %q, want the scenario's own address %q", got, scenario+step)
	}
	if note := eval[string](t, fol, `document.querySelector(".room .room-ended").textContent`); !strings.Contains(note, "Room "+code+" has ended") {
		t.Errorf("the note on the scenario reads %q, want it to say room %s has ended", note, code)
	}
	if v := textValue(t, fol, "clients"); v != "50" {
		t.Errorf("the kept join link shows clients = %q, want 50", v)
	}
	if eval[bool](t, fol, `window.__playground.state.view.following || !!window.__playground.room`) {
		t.Errorf("the kept join link's page follows a room")
	}
	if got, want := copied(fol), b+scenario+step; got != want {
		t.Errorf("Copy link on the kept join link's page copied %q, want %q", got, want)
	}

	// The code typed into the front page's "Join a room" box after the end: the same. (The
	// front page's previews may be refused by a server busy with the lab's runs, and retried.)
	ExpectConsole(t, "/preview/")
	if err := chromedp.Do(fol, chromedp.Navigate(b+"/")); err != nil {
		t.Fatal(err)
	}
	typeValue(t, fol, "#join-code", code)
	if err := chromedp.Do(fol, chromedp.WaitReady("#lab[data-lab=backoff]")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `location.pathname === "/backoff" && !!document.querySelector(".room .room-ended")`)
	if got := eval[string](t, fol, `location.pathname + location.search + location.hash`); got != scenario+step {
		t.Errorf("the ended room's code typed on the front page led to %q, want %q", got, scenario+step)
	}
}

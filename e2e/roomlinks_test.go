package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRoomLinksOutliveRoom: a follower's "Copy link" copies the scenario's own link, not
// /join/CODE; when the presenter ends the room, the follower's address becomes the scenario's
// URL, and reloading it shows the same scenario (issue 30, item 13: the link and the address
// died with the room, a reload gave 404).
func TestRoomLinksOutliveRoom(t *testing.T) {
	srv := MustOpenServer(t)
	pres := MustOpenTab(t)
	hookTab(t, pres)
	const scenario = "/backoff?clients=50&trials=10&sweep=off"
	openLab(t, pres, srv.URL+scenario)
	waitDrawn(t, pres)
	click(t, pres, "#present")
	waitFor(t, pres, `!!window.__playground.room?.presenting && location.pathname.startsWith("/join/")`)
	code := eval[string](t, pres, `window.__playground.room.code`)
	ExpectConsole(t, "/api/v1/rooms/"+code) // the 404 by which a page learns that the room ended

	fol := MustOpenTab(t)
	hookTab(t, fol)
	if err := chromedp.Do(fol, chromedp.Navigate(srv.URL+"/join/"+code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `!!window.__playground?.room?.room && window.__playground.state.view.following`)
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
	if got := copied(fol); got != srv.URL+scenario {
		t.Errorf("a follower's Copy link copied %q, want the scenario's link %q", got, srv.URL+scenario)
	}
	if got := copied(pres); got != srv.URL+"/join/"+code+"?clients=50&trials=10&sweep=off" {
		t.Errorf("the presenter's Copy link copied %q, want the room's join link", got)
	}

	if err := chromedp.Do(pres, chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`)); err != nil {
		t.Fatal(err)
	}
	click(t, pres, ".room .room-end")
	for _, ctx := range []context.Context{fol, pres} {
		waitFor(t, ctx, `location.pathname === "/backoff"`)
		if got := eval[string](t, ctx, `location.pathname + location.search`); got != scenario {
			t.Errorf("after the room ended the address is %q, want %q", got, scenario)
		}
	}
	if err := chromedp.Do(fol, chromedp.Reload()); err != nil {
		t.Fatal(err)
	}
	waitDrawn(t, fol)
	if v := textValue(t, fol, "clients"); v != "50" {
		t.Errorf("reloaded after the room ended, clients = %q, want 50", v)
	}
}

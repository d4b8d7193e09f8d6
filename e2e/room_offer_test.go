package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// TestRoomOfferPresenterOnly: when the room's run is stopped with a value that would run (as
// the CPU limit stops one), the presenter, who drives, is offered it; a follower, whose
// controls take no input, sees the message and no offer.
func TestRoomOfferPresenterOnly(t *testing.T) {
	raceToo(t)
	srv := mustOpenStopsServer(t)
	pres := MustOpenTab(t)
	hookTab(t, pres)
	openLab(t, pres, srv.URL+"/stops?steps=3&picture=1")
	click(t, pres, "#present")
	waitFor(t, pres, `!!window.__playground.room?.presenting && location.pathname.startsWith("/join/")`)
	code := eval[string](t, pres, `window.__playground.room.code`)

	fol := MustOpenTab(t)
	hookTab(t, fol)
	if err := chromedp.Do(fol, chromedp.Navigate(srv.URL+"/join/"+code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, fol, `!!window.__playground?.room?.room && window.__playground.state.view.following`)
	waitFor(t, pres, `document.querySelector(".room .room-count").textContent === "1 following"`)

	typeValue(t, pres, textSel("stop"), "2")
	waitFor(t, pres, `document.querySelector("#controls button.fit")?.textContent === "Set Stop to 0"`)
	waitFor(t, fol, `document.getElementById("status").textContent.includes("stopped after 2 of its 3 updates")`)
	if n := eval[int](t, fol, `document.querySelectorAll("button.fit").length`); n != 0 {
		t.Errorf("the follower is offered %d values to set, want none: it does not drive", n)
	}
}

package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestMalformedFragment: a fragment that does not decode (a link cut short, a key mistyped)
// is ignored: no uncaught URIError (MustOpenTab fails the test on one), and the page runs and
// draws its scenario; a room's page with a broken key follows the room.
func TestMalformedFragment(t *testing.T) {
	srv := MustOpenServer(t)
	const scenario = "/backoff?strategies=full&clients=20&trials=4&sweep=off"
	for _, frag := range []string{"#%", "#key=%ZZ", "#tour=%E0%A4%A", "#%ZZ=1&tour=jitter/1", "#key=%"} {
		t.Run(frag, func(t *testing.T) {
			page := MustOpenTab(t)
			hookTab(t, page)
			openLab(t, page, srv.URL+scenario+frag)
			waitDrawn(t, page) // its charts are drawn (a frame after the run's last message)
		})
	}

	resp, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "`+scenario+`"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var c struct{ Code string }
	if err := json.Unmarshal(b, &c); err != nil || c.Code == "" {
		t.Fatalf("creating a room: %s %v", b, err)
	}
	page := MustOpenTab(t)
	hookTab(t, page)
	if err := chromedp.Do(page, chromedp.Navigate(srv.URL+"/join/"+c.Code+"#key=%ZZ")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, page, `!!window.__playground?.room?.room && window.__playground.state.view.following && !window.__playground.room.presenting`)
	waitDrawn(t, page)
}

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// TestRoomLostByItsStore: a follower's page in a room that Redis loses (restarted empty) says
// the room has ended and lets its viewer explore alone, instead of sitting in a dead room.
func TestRoomLostByItsStore(t *testing.T) {
	raceToo(t)
	browser(t)
	rd := roomtest.MustStartRedisServer(t)
	store, err := room.NewRedis(context.Background(), rd.URL, room.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	srv := mustOpenServerConfig(t, serverConfig{api: func(c *api.Config) { c.Rooms, c.RoomCheck = store, 200*time.Millisecond }})

	resp, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/backoff?strategies=full&clients=20&trials=4&sweep=off"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var c struct{ Code string }
	if err := json.Unmarshal(b, &c); err != nil || c.Code == "" {
		t.Fatalf("creating a room: %s %v", b, err)
	}
	// The page's reconnect attempts to a room that is gone fail; the browser logs each.
	ExpectConsole(t, "WebSocket connection to")
	ExpectConsole(t, "status of 404")
	page := MustOpenTab(t)
	hookTab(t, page)
	if err := chromedp.Do(page, chromedp.Navigate(srv.URL+"/join/"+c.Code)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, page, `!!window.__playground?.room?.room && window.__playground.state.view.following`)
	waitDrawn(t, page)

	rd.Restart() // empty
	waitFor(t, page, `document.querySelector(".room")?.textContent.includes("This room has ended")`)
	if eval[bool](t, page, `window.__playground.state.view.following`) {
		t.Errorf("the page still follows the room that has ended")
	}
}

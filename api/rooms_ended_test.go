package api_test

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// getNoRedirect fetches path without following a redirect.
func (s *Server) getNoRedirect(tb testing.TB, path string) *http.Response {
	tb.Helper()
	c := *s.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		tb.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", path, err)
	}
	resp.Body.Close()
	return resp
}

// TestRoomEndedRedirects: the join link of a room its presenter has ended — a follower's
// reload, a link someone kept — answers 303 See Other to the scenario the room showed last, on
// the lab's own page, with its tour step and ended=CODE in the fragment (the page says the room
// has ended), however often it is asked (an ended room's code is no guess); the API's 404 of
// the ended room names that scenario; a code that never named a room still gets the 404 page
// (issue 30, item 13).
func TestRoomEndedRedirects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c, follower, presenter := srv.mustOpenRoom(t, "/free?n=2")
		presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=5&steps=4", "step": "intro/2"})
		follower.Until("the presenter's change", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 1 })
		presenter.Send(map[string]any{"type": "end"})
		for _, rs := range []*RoomStream{follower, presenter} {
			if code, reason := (&Stream{tb: t, C: rs.C}).MustClosed(); code != api.StatusRoomEnded {
				t.Fatalf("stream closed with %v %q, want the room ended", code, reason)
			}
		}

		const scenario = "/free?n=5&steps=4" // the lab's canonical URL of what the room showed last
		want := scenario + "#tour=intro/2&ended=" + c.Code
		// More often than the unknown codes a client may try: an ended room is no guess.
		for i := range 25 {
			resp := srv.getNoRedirect(t, "/join/"+c.Code)
			if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != want {
				t.Fatalf("GET /join/%s (%d): %d, Location %q; want 303 to %q", c.Code, i+1, resp.StatusCode, resp.Header.Get("Location"), want)
			}
		}
		// Its address is the scenario's canonical URL: the page a shared link to it opens.
		resp, page := srv.Get(t, scenario)
		_, shared := srv.Get(t, "/free?steps=4&n=5")
		if resp.StatusCode != http.StatusOK || !bytes.Equal(page, shared) {
			t.Errorf("GET %s: %d; the same page as another spelling of the scenario: %v", scenario, resp.StatusCode, bytes.Equal(page, shared))
		}
		resp, body := srv.Get(t, "/api/v1/rooms/"+c.Code)
		if e := MustDecodeError(t, resp, body); resp.StatusCode != http.StatusNotFound || !strings.Contains(e.Error, "has ended") || e.URL != scenario {
			t.Errorf("GET /api/v1/rooms/%s after its end: %d %s; want 404 naming its scenario", c.Code, resp.StatusCode, body)
		}

		// A code that never named a room: the 404 page.
		resp, body = srv.Get(t, "/join/ZZZZZZ")
		if resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte("no room with that code")) {
			t.Errorf("GET /join/ZZZZZZ: %d %.200s; want the 404 page", resp.StatusCode, body)
		}
	})
}

// TestRoomExpiredRedirects: a room that expires (nobody joined it within room.JoinTTL) sends
// its join link to its scenario too, until room.EndedTTL after; then the code is unknown.
func TestRoomExpiredRedirects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := room.NewMemory(room.Limits{})
		defer store.Close()
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms = store }))
		c := srv.MustCreateRoom(t, "/free?n=3")
		time.Sleep(room.JoinTTL + time.Second)
		if resp := srv.getNoRedirect(t, "/join/"+c.Code); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/free?n=3#ended="+c.Code {
			t.Errorf("GET /join/%s after its expiry: %d, Location %q; want 303 to its scenario", c.Code, resp.StatusCode, resp.Header.Get("Location"))
		}
		time.Sleep(room.EndedTTL)
		if resp, body := srv.Get(t, "/join/"+c.Code); resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte("no room with that code")) {
			t.Errorf("GET /join/%s past EndedTTL: %d %.200s; want the 404 page", c.Code, resp.StatusCode, body)
		}
	})
}

// TestRoomEndedAcrossReplicas: a room ended on one server sends its join link to its scenario
// on the other, which shares its rooms through the same Redis.
func TestRoomEndedAcrossReplicas(t *testing.T) {
	rd := roomtest.MustStartRedisServer(t)
	a, b := mustOpenRedisServer(t, rd), mustOpenRedisServer(t, rd)
	c, follower, presenter := a.mustOpenRoom(t, "/free?n=4")
	presenter.Send(map[string]any{"type": "end"})
	if code, reason := (&Stream{tb: t, C: follower.C}).MustClosed(); code != api.StatusRoomEnded {
		t.Fatalf("follower's stream closed with %v %q, want the room ended", code, reason)
	}
	if resp := b.getNoRedirect(t, "/join/"+c.Code); resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/free?n=4#ended="+c.Code {
		t.Errorf("GET /join/%s on the other server: %d, Location %q; want 303 to its scenario", c.Code, resp.StatusCode, resp.Header.Get("Location"))
	}
}

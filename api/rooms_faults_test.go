package api_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// These tests run a real redis-server, stopped, restarted empty and paused inside the test,
// on real time: what they assert is what the server answers, not how fast.

// mustOpenRedisServer opens a server whose rooms live in r, checking its rooms every 100 ms.
func mustOpenRedisServer(t *testing.T, r *roomtest.Redis, opts ...Option) *Server {
	t.Helper()
	// A client timeout shorter than the stalls of TestPresenterSurvivesStoreStall: the store
	// must not let a change time out and be applied later.
	store, err := room.NewRedis(context.Background(), r.URL+"?read_timeout=1s", room.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	opts = append(opts, WithConfig(func(c *api.Config) { c.Rooms, c.RoomCheck = store, 100*time.Millisecond }))
	return MustOpenServer(t, opts...)
}

// mustOpenRoom creates a room for url with a follower, which has seen the room's first run,
// and a presenter.
func (s *Server) mustOpenRoom(tb testing.TB, url string) (c Created, follower, presenter *RoomStream) {
	tb.Helper()
	c = s.MustCreateRoom(tb, url)
	follower = s.MustJoin(tb, c.Code)
	follower.RunOf(0)
	return c, follower, s.mustPresent(tb, c)
}

// mustPresent joins a room as its presenter.
func (s *Server) mustPresent(tb testing.TB, c Created) *RoomStream {
	tb.Helper()
	p := s.MustJoin(tb, c.Code)
	p.Send(map[string]any{"type": "present", "key": strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")})
	p.Until("the presenter's room", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenter })
	return p
}

// TestRoomsWhileStoreDown: while Redis is down every room endpoint answers 503 with
// Retry-After (not 500), a presenter's change is reported not made, and the room's streams
// stay; when Redis comes back empty, having lost the room, every participant is told the room
// has ended (4004), and the room is 404 from then on.
func TestRoomsWhileStoreDown(t *testing.T) {
	rd := roomtest.MustStartRedisServer(t)
	srv := mustOpenRedisServer(t, rd)
	c, follower, presenter := srv.mustOpenRoom(t, "/free?n=2")

	rd.Stop()
	for _, tc := range []struct{ method, path string }{
		{http.MethodPost, "/api/v1/rooms"},
		{http.MethodGet, "/api/v1/rooms/" + c.Code},
		{http.MethodGet, "/api/v1/rooms/" + c.Code + "/stream"},
		{http.MethodGet, "/join/" + c.Code + "/qr.svg"},
		{http.MethodGet, "/join/" + c.Code},
	} {
		var (
			resp *http.Response
			body []byte
		)
		if tc.method == http.MethodPost {
			resp, body = srv.Post(t, tc.path, "application/json", `{"url": "/backoff"}`)
		} else {
			resp, body = srv.Get(t, tc.path)
		}
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
			t.Errorf("%s %s with the store down: %d, Retry-After %q: %.200s; want 503 with Retry-After", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Retry-After"), body)
			continue
		}
		if strings.HasPrefix(tc.path, "/join/"+c.Code) && !strings.HasSuffix(tc.path, ".svg") {
			if !strings.Contains(string(body), "Rooms are not available right now") {
				t.Errorf("join page with the store down: %.300s", body)
			}
		} else if e := MustDecodeError(t, resp, body); e.RetryAfter <= 0 || !strings.Contains(e.Error, "not available") {
			t.Errorf("%s %s: body %+v", tc.method, tc.path, e)
		}
	}

	presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=7"})
	r := presenter.Until("the change's outcome", func(r RoomReply) bool { return r.Type == "error" && r.ID == 1 })
	if !strings.Contains(r.Error, "was not made") {
		t.Errorf("presenter told %q, want that the change was not made", r.Error)
	}

	rd.Restart() // empty: the room is lost
	for name, rs := range map[string]*RoomStream{"follower": follower, "presenter": presenter} {
		if code, reason := (&Stream{tb: t, C: rs.C}).MustClosed(); code != api.StatusRoomEnded {
			t.Errorf("%s's stream closed with %v %q, want 4004: the room has ended", name, code, reason)
		}
	}
	if resp, body := srv.Get(t, "/api/v1/rooms/"+c.Code); resp.StatusCode != http.StatusNotFound {
		t.Errorf("the lost room: %d %s, want 404 (the page then says the room has ended)", resp.StatusCode, body)
	}
	// The store is back: new rooms work.
	srv.MustCreateRoom(t, "/free?n=3")
}

// TestPresenterSurvivesStoreStall: Redis paused for 30 pings' time while a presenter changes
// the room: the presenter stays connected (its reader never waits for the store, so pongs are
// read), and the change — stored once Redis resumes — is reported as what happened: applied,
// with no error.
func TestPresenterSurvivesStoreStall(t *testing.T) {
	rd := roomtest.MustStartRedisServer(t)
	const ping = 200 * time.Millisecond
	srv := mustOpenRedisServer(t, rd, WithConfig(func(c *api.Config) { c.PingInterval = ping }))
	c, follower, presenter := srv.mustOpenRoom(t, "/free?n=2")
	// Read both streams from now on, as a browser does (it answers pings as it reads).
	replies := map[string]<-chan RoomReply{"presenter": readAll(t, presenter), "follower": readAll(t, follower)}

	rd.Pause()
	presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=7"})
	// Longer than 30 pings, and than the client's read timeout and its retries (see
	// mustOpenRedisServer), after which a command given up on would be applied when Redis
	// resumes.
	time.Sleep(max(30*ping, 6*time.Second))
	rd.Resume()

	for name, ch := range replies {
		timeout := time.After(readTimeout)
	wait:
		for {
			select {
			case r, ok := <-ch:
				switch {
				case !ok:
					t.Errorf("%s: the connection ended before the change arrived", name)
					break wait
				case r.Type == "error":
					t.Errorf("%s told %+v", name, r)
				case r.Type == "room" && r.Room.Version >= 1:
					if r.Room.URL != "/free?n=7" {
						t.Errorf("%s: room %+v", name, *r.Room)
					}
					break wait
				}
			case <-timeout:
				t.Errorf("%s: no change of the room %v after the stall", name, readTimeout)
				break wait
			}
		}
	}
	if info := srv.MustRoomInfo(t, c.Code); info.Version != 1 || info.URL != "/free?n=7" {
		t.Errorf("room %+v after the stall, want the change applied once", info)
	}
}

// readAll reads a room stream until it ends, on its own goroutine.
func readAll(t *testing.T, rs *RoomStream) <-chan RoomReply {
	out := make(chan RoomReply, 1000)
	go func() {
		defer close(out)
		for {
			_, b, err := rs.C.Read(t.Context())
			if err != nil {
				return
			}
			var r RoomReply
			if json.Unmarshal(b, &r) == nil {
				out <- r
			}
		}
	}()
	return out
}

package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// RoomReply is a reply of a room stream: the lab stream's, or a room message.
type RoomReply struct {
	Reply
	Room *struct {
		Code      string `json:"code"`
		Lab       string `json:"lab"`
		URL       string `json:"url"`
		Step      string `json:"step"`
		Version   int64  `json:"version"`
		Followers int    `json:"followers"`
		Presenter bool   `json:"presenter"`

		Revealed   bool     `json:"revealed"`
		RevealOpen bool     `json:"reveal_open"`
		Presenters int      `json:"presenters"`
		Answers    *Answers `json:"answers"`
	} `json:"room"`
}

// Created is the answer to POST /api/v1/rooms.
type Created struct {
	Code         string `json:"code"`
	URL          string `json:"url"`
	JoinURL      string `json:"join_url"`
	PresenterURL string `json:"presenter_url"`
}

// MustCreateRoom creates a room for scenario url.
func (s *Server) MustCreateRoom(tb testing.TB, url string) Created {
	tb.Helper()
	resp, body := s.Post(tb, "/api/v1/rooms", "application/json", `{"url": "`+url+`"}`)
	if resp.StatusCode != http.StatusCreated {
		tb.Fatalf("POST /api/v1/rooms: %d %s", resp.StatusCode, body)
	}
	var c Created
	if err := json.Unmarshal(body, &c); err != nil {
		tb.Fatal(err)
	}
	return c
}

// Post sends a POST request.
func (s *Server) Post(tb testing.TB, path, contentType, body string) (*http.Response, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+path, strings.NewReader(body))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	resp, err := s.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, b
}

// RoomStream is a websocket client of a room.
type RoomStream struct {
	tb testing.TB
	C  *websocket.Conn
}

// MustJoin opens a room's stream.
func (s *Server) MustJoin(tb testing.TB, code string) *RoomStream {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://localhost/api/v1/rooms/"+code+"/stream", &websocket.DialOptions{HTTPClient: s.client})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		tb.Fatalf("join %s: %v", code, err)
	}
	c.SetReadLimit(-1)
	tb.Cleanup(func() { c.CloseNow() })
	return &RoomStream{tb: tb, C: c}
}

// Send sends a message.
func (rs *RoomStream) Send(m map[string]any) {
	rs.tb.Helper()
	b, _ := json.Marshal(m)
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	if err := rs.C.Write(ctx, websocket.MessageText, b); err != nil {
		rs.tb.Fatalf("write: %v", err)
	}
}

// Next reads one reply.
func (rs *RoomStream) Next() RoomReply {
	rs.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	_, b, err := rs.C.Read(ctx)
	if err != nil {
		rs.tb.Fatalf("read: %v", err)
	}
	var r RoomReply
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		rs.tb.Fatalf("reply %s: %v", b, err)
	}
	return r
}

// Until reads replies until one satisfies ok, and returns it.
func (rs *RoomStream) Until(what string, ok func(RoomReply) bool) RoomReply {
	rs.tb.Helper()
	for range 1000 {
		if r := rs.Next(); ok(r) {
			return r
		}
	}
	rs.tb.Fatalf("no reply %s in 1000", what)
	return RoomReply{}
}

// RunOf reads until the done of the run of the room's version id and returns its start and
// the fold of its frames.
func (rs *RoomStream) RunOf(id int64) (RoomReply, Fold) {
	rs.tb.Helper()
	start := rs.Until("start", func(r RoomReply) bool { return r.Type == "start" && r.ID == id })
	var f Fold
	for {
		r := rs.Next()
		switch {
		case r.Type == "frame" && r.ID == id:
			f.Apply(r.Reply)
		case r.Type == "done" && r.ID == id:
			return start, f
		case r.Type == "room":
		default:
			rs.tb.Fatalf("reply %+v during run %d", r, id)
		}
	}
}

// TestRoom: a presenter's changes reach every follower — the room's URL, then the run of the
// new scenario, which is the same result the JSON API gives — and only the presenter drives.
func TestRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/free?n=2&steps=2")
		if len(c.Code) != room.CodeLen || c.JoinURL != "/join/"+c.Code || !strings.HasPrefix(c.PresenterURL, c.JoinURL+"#key=") || c.URL != "/free?n=2&steps=2" {
			t.Fatalf("created %+v", c)
		}
		key := strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")

		followers := make([]*RoomStream, 3)
		for i := range followers {
			followers[i] = srv.MustJoin(t, c.Code)
			if r := followers[i].Next(); r.Type != "room" || r.Room.URL != c.URL || r.Room.Presenter {
				t.Fatalf("follower %d: first reply %+v, want the room", i, r)
			}
			if start, f := followers[i].RunOf(0); start.URL != c.URL || len(f.Series) == 0 {
				t.Fatalf("follower %d: run %+v", i, start)
			}
		}
		presenter := srv.MustJoin(t, c.Code)
		presenter.Send(map[string]any{"type": "present", "key": "not-the-key"})
		presenter.Until("an error for a wrong key", func(r RoomReply) bool { return r.Type == "error" && r.Param == "key" })
		presenter.Send(map[string]any{"type": "present", "key": key})
		presenter.Until("the presenter's room", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenter })
		synctest.Wait()

		info := srv.MustRoomInfo(t, c.Code)
		if info.Followers != 3 || info.URL != c.URL || info.Version != 0 {
			t.Errorf("room info %+v, want 3 followers at version 0", info)
		}

		// A step must be one of the lab's tours.
		presenter.Send(map[string]any{"type": "params", "id": 8, "query": "n=5&steps=4", "step": "intro/9"})
		if r := presenter.Until("an error", func(r RoomReply) bool { return r.Type == "error" }); r.Param != "step" || r.ID != 8 {
			t.Errorf("presenter's unknown step: %+v", r)
		}

		// A follower cannot drive.
		followers[0].Send(map[string]any{"type": "params", "id": 9, "query": "n=666"})
		if r := followers[0].Until("an error", func(r RoomReply) bool { return r.Type == "error" }); !strings.Contains(r.Error, "only the presenter") {
			t.Errorf("follower driving: %+v", r)
		}

		presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=5&steps=4", "step": "intro/2"})
		res, _ := srv.MustResult(t, "free", "n=5&steps=4")
		for i, f := range followers {
			r := f.Until("the new room", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 1 })
			if r.Room.URL != "/free?n=5&steps=4" || r.Room.Step != "intro/2" || r.Room.Followers != 3 {
				t.Errorf("follower %d: room %+v", i, *r.Room)
			}
			start, fold := f.RunOf(1)
			if start.URL != "/free?n=5&steps=4" {
				t.Errorf("follower %d: start %+v", i, start)
			}
			if canon(t, fold.Series) != canon(t, res.Series) || canon(t, fold.Summary) != canon(t, res.Summary) {
				t.Errorf("follower %d: the room's frames fold to a different result from the API's", i)
			}
		}
		if info := srv.MustRoomInfo(t, c.Code); info.URL != "/free?n=5&steps=4" || info.Version != 1 {
			t.Errorf("room info %+v after the change", info)
		}
		// A bad scenario from the presenter is refused, to the presenter only.
		presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=-1"})
		if r := presenter.Until("an error", func(r RoomReply) bool { return r.Type == "error" }); r.Param != "n" {
			t.Errorf("presenter's bad params: %+v", r)
		}
		// Followers leaving are counted.
		followers[2].C.Close(websocket.StatusNormalClosure, "")
		synctest.Wait()
		if info := srv.MustRoomInfo(t, c.Code); info.Followers != 2 {
			t.Errorf("%d followers after one left, want 2", info.Followers)
		}
		if srv.Free.Runs() != 2 {
			t.Errorf("%d runs for the room's two scenarios, want 2 (computed once, however many followers)", srv.Free.Runs())
		}
	})
}

// RoomInfo is GET /api/v1/rooms/{code}.
type RoomInfo struct {
	Code      string `json:"code"`
	Lab       string `json:"lab"`
	URL       string `json:"url"`
	Step      string `json:"step"`
	Version   int64  `json:"version"`
	Followers int    `json:"followers"`

	Revealed   bool `json:"revealed"`
	RevealOpen bool `json:"reveal_open"`
	Presenters int  `json:"presenters"`
}

// MustRoomInfo gets a room.
func (s *Server) MustRoomInfo(tb testing.TB, code string) RoomInfo {
	tb.Helper()
	resp, body := s.Get(tb, "/api/v1/rooms/"+code)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET room %s: %d %s", code, resp.StatusCode, body)
	}
	var info RoomInfo
	if err := json.Unmarshal(body, &info); err != nil {
		tb.Fatal(err)
	}
	return info
}

// TestRoomErrors: unknown codes get a clear 404 (JSON under /api, a page at /join), and bad
// room requests a 400 naming what is wrong.
func TestRoomErrors(t *testing.T) {
	srv := MustOpenServer(t)
	for _, path := range []string{"/api/v1/rooms/ZZZZZZ", "/api/v1/rooms/abc", "/api/v1/rooms/ZZZZZZ/stream"} {
		resp, body := srv.Get(t, path)
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(MustDecodeError(t, resp, body).Error, "no room") {
			t.Errorf("GET %s: %d %s", path, resp.StatusCode, body)
		}
	}
	resp, body := srv.Get(t, "/join/ZZZZZZ")
	if resp.StatusCode != http.StatusNotFound || !bytes.Contains(body, []byte("no room with that code")) {
		t.Errorf("GET /join/ZZZZZZ: %d %.200s", resp.StatusCode, body)
	}
	for _, tc := range []struct{ ct, body, param, want string }{
		{"text/plain", `{"url": "/backoff"}`, "url", "Content-Type application/json"},
		{"application/json", `{"url": "/backoff", "x": 1}`, "url", "unknown object member"},
		{"application/json", `not json`, "url", "the body must be"},
		{"application/json", `{"url": "/nosuchlab"}`, "url", "no lab at"},
		{"application/json", `{"url": "/backoff?clients=0"}`, "clients", "clients must be between 1 and 1000"},
		{"application/json", `{"url": "/backoff#x?y=1"}`, "url", "fragment"},
	} {
		resp, body := srv.Post(t, "/api/v1/rooms", tc.ct, tc.body)
		e := MustDecodeError(t, resp, body)
		if resp.StatusCode != http.StatusBadRequest || e.Param != tc.param || !strings.Contains(e.Error, tc.want) {
			t.Errorf("POST %s: %d %+v, want 400 naming %s: %q", tc.body, resp.StatusCode, e, tc.param, tc.want)
		}
	}
	c := srv.MustCreateRoom(t, "/backoff?clients=50")
	resp, body = srv.Get(t, "/join/"+strings.ToLower(c.Code))
	if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte(`"room":"`+c.Code+`"`)) {
		t.Errorf("join page: %d, room code in the spec: %v", resp.StatusCode, bytes.Contains(body, []byte(c.Code)))
	}
	resp, body = srv.Get(t, "/join/"+c.Code+"/qr.svg")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !bytes.Contains(body, []byte("/join/"+c.Code)) {
		t.Errorf("QR code: %d %s %.100s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}

// TestRoomAcrossReplicas: two servers share rooms through one real Redis: a follower on one
// follows a presenter on the other.
func TestRoomAcrossReplicas(t *testing.T) {
	url := roomtest.MustStartRedis(t)
	open := func(replica string) *Server {
		store, err := room.NewRedis(context.Background(), url, room.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		return MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms, c.Replica = store, replica }))
	}
	a, b := open("a"), open("b")
	c := a.MustCreateRoom(t, "/free?n=3")
	key := strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")

	follower := b.MustJoin(t, c.Code)
	follower.RunOf(0)
	presenter := a.MustJoin(t, c.Code)
	presenter.Send(map[string]any{"type": "present", "key": key})
	presenter.Until("presenter", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenter })
	presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=7&steps=2"})
	r := follower.Until("the presenter's change", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 1 })
	if r.Room.URL != "/free?n=7&steps=2" {
		t.Errorf("follower on b sees %+v", *r.Room)
	}
	start, fold := follower.RunOf(1)
	res, _ := b.MustResult(t, "free", "n=7&steps=2")
	if start.URL != "/free?n=7&steps=2" || canon(t, fold.Series) != canon(t, res.Series) {
		t.Errorf("follower on b: start %+v; series match the API: %v", start, canon(t, fold.Series) == canon(t, res.Series))
	}
	for _, s := range []*Server{a, b} {
		deadline := time.Now().Add(readTimeout)
		for s.MustRoomInfo(t, c.Code).Followers != 1 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := s.MustRoomInfo(t, c.Code).Followers; n != 1 {
			t.Errorf("room info on one server: %d followers, want 1 (the one on b)", n)
		}
	}
}

// TestRoomManyFollowers: twenty followers of a 200-update run each get the whole result from
// one run.
func TestRoomManyFollowers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/free?n=2&steps=200")
		followers := make([]*RoomStream, 20)
		for i := range followers {
			followers[i] = srv.MustJoin(t, c.Code)
		}
		for i, f := range followers {
			start, fold := f.RunOf(0)
			if start.URL != c.URL || len(fold.Series) != 1 || len(fold.Series[0].X) != 200 {
				t.Errorf("follower %d: %+v, %d series", i, start, len(fold.Series))
			}
		}
		if srv.Free.Runs() != 1 {
			t.Errorf("%d runs for 20 followers, want 1", srv.Free.Runs())
		}
	})
}

package api_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
)

// TestRoomCreationRefusesWhatItCannotRun: a room is made only from one JSON object with one
// "url" member naming a scenario the server will run: a member given twice, data after the
// object and a scenario over the work budget are refused with 400 naming what is wrong. The
// reply carrying the presenter's key is not to be stored by any cache.
func TestRoomCreationRefusesWhatItCannotRun(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct{ body, param, want string }{
		{`{"url": "/backoff", "url": "/ratelimit"}`, "url", "duplicate"},
		{`{"url": "/backoff"} {"url": "/ratelimit"}`, "url", "after top-level value"},
		{`{"url": "/backoff"}x`, "url", "after top-level value"},
		{`{"url": "/backoff", "x": 1}`, "url", "unknown object member"},
		{`{"URL": "/backoff"}`, "url", "unknown object member"},
		{`[{"url": "/backoff"}]`, "url", "the body must be one JSON object"},
		{`{"url": "/backoff?clients=1000&trials=1000"}`, "trials", "lower trials"},
		{`{"url": "` + strings.Repeat("a", 5000) + `"}`, "url", "at most 4096 bytes"},
	} {
		resp, body := srv.Post(t, "/api/v1/rooms", "application/json", tc.body)
		e := MustDecodeError(t, resp, body)
		if resp.StatusCode != http.StatusBadRequest || e.Param != tc.param || !strings.Contains(e.Error, tc.want) {
			t.Errorf("POST %.60s: %d %+v, want 400 naming %s: %q", tc.body, resp.StatusCode, e, tc.param, tc.want)
		}
	}
	resp, body := srv.Post(t, "/api/v1/rooms", "application/json", ` {"url": "/backoff"} `+"\n")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("a good room: %d %s", resp.StatusCode, body)
	}
	if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
		t.Errorf("the reply with the presenter key has Cache-Control %q, want no-store", cc)
	}
}

// TestPresenterOverBudget: a presenter's change to a scenario over the work budget is refused
// to the presenter, naming the parameter; the room does not move.
func TestPresenterOverBudget(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/backoff?clients=20&trials=2&sweep=off")
		p := srv.mustPresent(t, c)
		p.Send(map[string]any{"type": "params", "id": 1, "query": "clients=1000&trials=1000"})
		if r := p.Until("an error", func(r RoomReply) bool { return r.Type == "error" }); r.ID != 1 || r.Param != "trials" || r.Fit == "" {
			t.Errorf("presenter's change over budget: %+v, want an error naming trials and a value that fits", r)
		}
		synctest.Wait()
		if info := srv.MustRoomInfo(t, c.Code); info.Version != 0 {
			t.Errorf("the room moved to %s", info.URL)
		}
	})
}

// TestQRHost: the QR code encodes the join link on the Host the request names, written as a
// browser writes it (an empty port left out) — but a Host whose port is no port, or whose name
// is longer than DNS allows, is refused with 400, not encoded (issue 18: a very long port made
// it 500).
func TestQRHost(t *testing.T) {
	srv := MustOpenServer(t)
	c := srv.MustCreateRoom(t, "/backoff")
	get := func(host string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "/join/"+c.Code+"/qr.svg", nil)
		req.Host = host
		req.RemoteAddr = "192.0.2.1:1000"
		rec := httptest.NewRecorder()
		srv.API.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	for _, host := range []string{"localhost:" + strings.Repeat("9", 5000), "localhost:99999", "localhost:0", "localhost:http", "127.0.0.1:-1"} {
		code, body := get(host)
		var e ErrorBody
		if code != http.StatusBadRequest || json.Unmarshal([]byte(body), &e) != nil || e.Param != "Host" || !strings.Contains(e.Error, "not a port number") {
			t.Errorf("Host %.30s…: %d %.200s, want 400 naming Host", host, code, body)
		}
	}
	for host, want := range map[string]string{
		"localhost:8080": "http://localhost:8080/join/" + c.Code,
		"[::1]:8080":     "http://[::1]:8080/join/" + c.Code,
		"127.0.0.1":      "http://127.0.0.1/join/" + c.Code,
		"[::1]":          "http://[::1]/join/" + c.Code,
		// An empty port is no port (issue 33: "127.0.0.1:" went into the code as it came).
		"127.0.0.1:": "http://127.0.0.1/join/" + c.Code,
		"[::1]:":     "http://[::1]/join/" + c.Code,
		"localhost:": "http://localhost/join/" + c.Code,
	} {
		if code, body := get(host); code != http.StatusOK || !strings.Contains(body, "<title>"+want+"</title>") {
			t.Errorf("Host %s: %d %.200s, want a QR code of %s", host, code, body, want)
		}
	}
}

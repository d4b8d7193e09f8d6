package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"
)

// serveFrom serves one request from a remote address straight through the server's handler,
// and returns the recorded response. A body is sent as JSON.
func (s *Server) serveFrom(ctx context.Context, remote, method, path string, body ...string) *httptest.ResponseRecorder {
	var rd io.Reader
	if len(body) > 0 {
		rd = strings.NewReader(body[0])
	}
	req := httptest.NewRequestWithContext(ctx, method, path, rd)
	req.Host = "localhost"
	req.RemoteAddr = remote
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	s.API.ServeHTTP(rec, req)
	return rec
}

// TestEightHeavyRequestsFromOneAddress: eight heavy JSON requests at once from one address
// (issue 18: eight connections took every slot, and a default viewer waited 57 s) hold six of
// the eight slots; a request from another address runs at once, before any of them ends.
func TestEightHeavyRequestsFromOneAddress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(8))
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		codes := make(chan int, 8)
		var wg sync.WaitGroup
		for i := range 8 { // gated runs never stepped: they hold their slots until cancelled
			wg.Go(func() {
				rec := srv.serveFrom(ctx, fmt.Sprintf("198.51.100.7:%d", 40000+i), http.MethodGet, fmt.Sprintf("/api/v1/gated?n=%d&steps=1000", 1000+i))
				codes <- rec.Code
			})
		}
		synctest.Wait()
		if n := srv.Gated.Running(); n != 6 {
			t.Fatalf("one address holds %d runs of 8 slots, want 6", n)
		}
		for range 2 {
			if code := <-codes; code != http.StatusServiceUnavailable {
				t.Errorf("a request beyond the address's share got %d, want 503 busy", code)
			}
		}
		rec := srv.serveFrom(ctx, "203.0.113.9:5000", http.MethodGet, "/api/v1/free?n=1")
		if rec.Code != http.StatusOK {
			t.Fatalf("another address's request: %d %s, want 200 while the heavy runs hold their slots", rec.Code, rec.Body)
		}
		rec = srv.serveFrom(ctx, "[2001:db8:1:2::7]:5000", http.MethodGet, "/api/v1/free?n=2")
		if rec.Code != http.StatusOK {
			t.Fatalf("an IPv6 client's request: %d %s, want 200", rec.Code, rec.Body)
		}
		if n := srv.Gated.Running(); n != 6 {
			t.Errorf("%d heavy runs in flight, want all 6 still held", n)
		}
		cancel()
		wg.Wait()
	})
}

// TestStreamsShareByAddress: streams are counted by their remote address too. Eight streams
// from 127.0.0.1 asking for heavy scenarios get six runs and two busy replies; a stream from
// 127.0.0.2 gets its run at once. Over real loopback TCP.
func TestStreamsShareByAddress(t *testing.T) {
	srv := MustOpenServer(t, WithMaxRuns(8))
	ts := httptest.NewServer(srv.API)
	defer ts.Close()
	dial := func(local string) *Stream {
		t.Helper()
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(local)}}
		hc := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
		ctx, cancel := context.WithTimeout(t.Context(), readTimeout)
		defer cancel()
		c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ts.URL, "http")+"/api/v1/gated/stream", &websocket.DialOptions{HTTPClient: hc})
		if err != nil {
			t.Skipf("SKIPPING — cannot dial from %s (a loopback address other than 127.0.0.1 is needed): %v", local, err)
		}
		c.SetReadLimit(-1)
		t.Cleanup(func() { c.CloseNow() })
		return &Stream{tb: t, C: c}
	}
	types := map[string]int{}
	for i := range 8 {
		st := dial("127.0.0.1")
		st.Send(1, fmt.Sprintf("n=%d&steps=1000", 1000+i))
		types[st.MustNext().Type]++
	}
	if types["start"] != 6 || types["busy"] != 2 {
		t.Errorf("eight streams from one address: %v, want 6 start and 2 busy", types)
	}
	other := dial("127.0.0.2")
	other.Send(1, "n=1&steps=1000")
	if r := other.MustNext(); r.Type != "start" {
		t.Errorf("a stream from another address: %+v, want its run to start at once", r)
	}
}

// drain reads c until it ends, so that the server's writes to it never wait (the test network
// has no buffers); it returns the types of the messages read, closed when c ends.
func drain(c *websocket.Conn) <-chan string {
	types := make(chan string, 1<<16)
	go func() {
		defer close(types)
		for {
			_, b, err := c.Read(context.Background())
			if err != nil {
				return
			}
			var m struct{ Type string }
			_ = json.Unmarshal(b, &m)
			select {
			case types <- m.Type:
			default:
			}
		}
	}()
	return types
}

// roomFrom creates a room of url from remote and returns its code.
func (s *Server) roomFrom(tb testing.TB, remote, url string) string {
	tb.Helper()
	rec := s.createFrom(tb, remote, url)
	var c Created
	if rec.Code != http.StatusCreated || json.Unmarshal(rec.Body.Bytes(), &c) != nil {
		tb.Fatalf("POST /api/v1/rooms from %s: %d %s", remote, rec.Code, rec.Body)
	}
	return c.Code
}

// streamFrom opens a lab stream from remote.
func (s *Server) streamFrom(tb testing.TB, remote, labName string) *Stream {
	tb.Helper()
	c, _, err := s.DialFrom(tb, remote, "/api/v1/"+labName+"/stream")
	if err != nil {
		tb.Fatalf("stream from %s: %v", remote, err)
	}
	return &Stream{tb: tb, C: c}
}

// TestRoomsChargedToTheirCreator: a room's runs are charged to the address that created it
// (issue 33: each room counted as a client of its own, so one address with a few rooms and
// two streams kept a viewer of another address waiting 58 s). One address with eight rooms of
// heavy scenarios, each followed, and four heavy streams of its own holds six of eight slots;
// a stream from a new address starts its run at once.
func TestRoomsChargedToTheirCreator(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(8))
		const attacker = "198.51.100.7"
		for i := range 8 {
			if i == 5 {
				time.Sleep(30 * time.Second) // five rooms at once, then one every ten seconds
			}
			code := srv.roomFrom(t, attacker+":1000", fmt.Sprintf("/gated?n=%d&steps=1000", 100+i))
			c, _, err := srv.DialFrom(t, fmt.Sprintf("192.0.2.%d:2000", i+1), "/api/v1/rooms/"+code+"/stream")
			if err != nil {
				t.Fatal(err)
			}
			drain(c)
		}
		for i := range 4 {
			st := srv.streamFrom(t, fmt.Sprintf("%s:%d", attacker, 3000+i), "gated")
			st.Send(1, fmt.Sprintf("n=%d&steps=1000", 200+i))
			drain(st.C)
		}
		synctest.Wait()
		if n := srv.Gated.Running(); n != 6 {
			t.Fatalf("one address's rooms and streams hold %d runs of 8 slots, want 6: two stay free", n)
		}
		viewer := srv.streamFrom(t, "203.0.113.9:4000", "gated")
		viewer.Send(1, "n=1&steps=1000")
		if r := viewer.MustNext(); r.Type != "start" {
			t.Errorf("a new address's stream: %+v, want its run to start at once", r)
		}
	})
}

// TestNewAddressGetsTheNextSlot: with every slot held by another address (eight, one run
// each, each asking again at once when its run ends), a stream from a new address told busy
// gets the next slot freed, ahead of the address whose run freed it.
func TestNewAddressGetsTheNextSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(8))
		var attackers []*Stream
		for i := range 8 {
			st := srv.streamFrom(t, fmt.Sprintf("198.51.100.%d:1000", i+1), "gated")
			st.Send(1, fmt.Sprintf("n=%d&steps=2", 100+i))
			if r := st.MustNext(); r.Type != "start" {
				t.Fatalf("address %d: %+v, want start", i, r)
			}
			attackers = append(attackers, st)
		}
		viewer := srv.streamFrom(t, "203.0.113.9:4000", "gated")
		viewer.Send(1, "n=1&steps=1000")
		if r := viewer.MustNext(); r.Type != "busy" {
			t.Fatalf("a ninth run on eight slots: %+v, want busy", r)
		}
		// Address 0's run ends; it asks again at once.
		go srv.Gated.Step(t.Context(), "n=100&steps=2", 2)
		for r := attackers[0].MustNext(); r.Type != "done"; r = attackers[0].MustNext() {
			if r.Type != "frame" {
				t.Fatalf("address 0's run: %+v, want frames and done", r)
			}
		}
		attackers[0].Send(2, "n=300&steps=2")
		if r := attackers[0].Await(2); r.Type != "busy" {
			t.Errorf("the address whose run ended: %+v, want busy: the slot is the waiting viewer's", r)
		}
		for {
			r := viewer.MustNext()
			if r.Type == "start" {
				break
			}
			if r.Type != "busy" {
				t.Fatalf("the new address's stream: %+v, want busy until its run starts", r)
			}
		}
		synctest.Wait()
		if n := srv.Gated.Running(); n != 8 {
			t.Errorf("%d runs in flight, want 8", n)
		}
	})
}

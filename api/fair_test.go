package api_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

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

package api_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"testing"
	"testing/synctest"

	"github.com/resilience-playground/playground/api"
)

// mustRefuseDial checks that a dial was refused before the upgrade with status code, a JSON
// error and Retry-After, and returns the message.
func mustRefuseDial(tb testing.TB, what string, resp *http.Response, err error, code int) string {
	tb.Helper()
	if err == nil || resp == nil || resp.StatusCode != code {
		status := 0
		if resp != nil {
			status = resp.StatusCode
		}
		tb.Fatalf("%s: status %d, %v; want %d before the upgrade", what, status, err, code)
	}
	b, _ := io.ReadAll(resp.Body)
	var e ErrorBody
	if json.Unmarshal(b, &e) != nil || e.Error == "" {
		tb.Errorf("%s: body %q, want a JSON error", what, b)
	}
	if ra, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || ra < 1 || e.RetryAfter != ra {
		tb.Errorf("%s: Retry-After %q, retry_after %d", what, resp.Header.Get("Retry-After"), e.RetryAfter)
	}
	return e.Error
}

// TestStreamCaps: an address may hold Config.MaxClientStreams streams, labs' and rooms'
// together, and the server Config.MaxStreams (issue 33: 8,000 idle streams from one address
// held 362 MB; 20,000 exhausted the descriptors). Beyond, the stream is refused before the
// upgrade: 429 for the address's cap, 503 for the server's, with Retry-After. A stream closed
// frees its place.
func TestStreamCaps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.MaxStreams, c.MaxClientStreams = 5, 3 }))
		code := srv.roomFrom(t, "192.0.2.1:1000", "/free?n=3")
		const one = "198.51.100.7"
		var held []*Stream
		for i, path := range []string{"/api/v1/free/stream", "/api/v1/rooms/" + code + "/stream", "/api/v1/free/stream"} {
			c, _, err := srv.DialFrom(t, fmt.Sprintf("%s:%d", one, 1000+i), path)
			if err != nil {
				t.Fatalf("stream %d: %v", i, err)
			}
			drain(c)
			held = append(held, &Stream{tb: t, C: c})
		}
		for _, path := range []string{"/api/v1/free/stream", "/api/v1/rooms/" + code + "/stream"} {
			_, resp, err := srv.DialFrom(t, one+":2000", path)
			mustRefuseDial(t, "the address's fourth stream, "+path, resp, err, http.StatusTooManyRequests)
		}
		if _, _, err := srv.DialFrom(t, "[2001:db8::1]:1000", "/api/v1/free/stream"); err != nil {
			t.Fatalf("another address: %v", err)
		}
		if _, _, err := srv.DialFrom(t, "[2001:db8::2]:1000", "/api/v1/free/stream"); err != nil { // the same /64: one client
			t.Fatalf("another address: %v", err)
		}
		_, resp, err := srv.DialFrom(t, "203.0.113.9:1000", "/api/v1/rooms/"+code+"/stream")
		mustRefuseDial(t, "a sixth stream of five", resp, err, http.StatusServiceUnavailable)

		held[0].C.CloseNow()
		synctest.Wait()
		if _, _, err := srv.DialFrom(t, "203.0.113.9:1000", "/api/v1/free/stream"); err != nil {
			t.Errorf("after a stream closed: %v", err)
		}
		_, resp, err = srv.DialFrom(t, one+":3000", "/api/v1/free/stream")
		mustRefuseDial(t, "a stream over the server's cap", resp, err, http.StatusServiceUnavailable)
	})
}

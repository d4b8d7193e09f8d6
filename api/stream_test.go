package api_test

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
)

// TestStreamProtocol: start with the canonical URL, frames, done; the frames fold to the JSON
// API's result.
func TestStreamProtocol(t *testing.T) {
	// Frames as often as updates come, so that appends reach the client as appends.
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.FrameInterval = time.Microsecond }))
	const seed = "seed=77" // the server's lab has an empty memo: a live run
	query := "trials=40&sweep=10:100:10&clients=20&" + seed

	// The stream first, so that it sees a live run rather than the cache.
	st := srv.MustDial(t, "backoff", nil)
	st.Send(7, query)
	start, frames, _ := st.Run(7)
	res, _ := srv.MustResult(t, "backoff", query)

	if want := "/backoff?clients=20&trials=40&" + seed + "&sweep=10:100:10"; start.URL != res.URL || start.URL != want {
		t.Errorf("start url %q, API url %q, want %q", start.URL, res.URL, want)
	}
	if got, want := canon(t, start.Params), canon(t, res.Params); got != want {
		t.Errorf("start params\n%s\nwant\n%s", got, want)
	}
	if len(frames) == 0 {
		t.Fatal("no frames")
	}
	var f Fold
	appends := 0
	for _, fr := range frames {
		f.Apply(fr)
		for _, s := range fr.Series {
			if s.Append {
				appends++
			}
		}
	}
	t.Logf("%d frames, %d series appends", len(frames), appends)
	if got, want := canon(t, f.Summary), canon(t, res.Summary); got != want {
		t.Errorf("folded summary differs from the API's:\n%.400s\n%.400s", got, want)
	}
	if got, want := canon(t, f.Series), canon(t, res.Series); got != want {
		t.Errorf("folded series differ from the API's:\n%.400s\n%.400s", got, want)
	}
	if p := f.Progress; p == nil || p.Done != p.Total {
		t.Errorf("final progress %+v, want done == total", p)
	}

	// A bad request gets an error reply and the connection stays usable; the same scenario
	// again comes from the cache, still start, frames, done.
	st.Send(8, "clients=0")
	if r := st.MustNext(); r.Type != "error" || r.ID != 8 || r.Param != "clients" {
		t.Errorf("reply %+v, want an error for clients", r)
	}
	st.Send(9, query)
	_, frames, _ = st.Run(9)
	var g Fold
	for _, fr := range frames {
		g.Apply(fr)
	}
	if canon(t, g.Summary) != canon(t, f.Summary) || canon(t, g.Series) != canon(t, f.Series) {
		t.Errorf("the cached run folds to a different result")
	}
}

// TestStreamMalformed: a message that is not a params object closes the connection with 1007
// (1003 for binary) and a reason; an oversized one with 1009.
func TestStreamMalformed(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct {
		name string
		typ  websocket.MessageType
		msg  string
		code websocket.StatusCode
	}{
		{"not JSON", websocket.MessageText, "clients=100", websocket.StatusInvalidFramePayloadData},
		{"empty", websocket.MessageText, "", websocket.StatusInvalidFramePayloadData},
		{"array", websocket.MessageText, `[{"type":"params","id":1,"query":""}]`, websocket.StatusInvalidFramePayloadData},
		{"null", websocket.MessageText, `null`, websocket.StatusInvalidFramePayloadData},
		{"wrong type", websocket.MessageText, `{"type":"start","id":1,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"non-ASCII type", websocket.MessageText, `{"type":"aaaé","id":1,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"no type", websocket.MessageText, `{"id":1,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"unknown field", websocket.MessageText, `{"type":"params","id":1,"query":"","extra":true}`, websocket.StatusInvalidFramePayloadData},
		{"negative id", websocket.MessageText, `{"type":"params","id":-1,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"fractional id", websocket.MessageText, `{"type":"params","id":1.5,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"string id", websocket.MessageText, `{"type":"params","id":"1","query":""}`, websocket.StatusInvalidFramePayloadData},
		{"query not a string", websocket.MessageText, `{"type":"params","id":1,"query":{}}`, websocket.StatusInvalidFramePayloadData},
		{"two objects", websocket.MessageText, `{"type":"params","id":1,"query":""}{"type":"params","id":2,"query":""}`, websocket.StatusInvalidFramePayloadData},
		{"trailing brace", websocket.MessageText, `{"type":"params","id":1,"query":""}}`, websocket.StatusInvalidFramePayloadData},
		{"trailing bracket", websocket.MessageText, `{"type":"params","id":1,"query":""}]`, websocket.StatusInvalidFramePayloadData},
		{"truncated", websocket.MessageText, `{"type":"params","id":1,"query":"`, websocket.StatusInvalidFramePayloadData},
		{"overlong query", websocket.MessageText, `{"type":"params","id":1,"query":"` + strings.Repeat("a", 2049) + `"}`, websocket.StatusInvalidFramePayloadData},
		{"binary", websocket.MessageBinary, `{"type":"params","id":1,"query":""}`, websocket.StatusUnsupportedData},
		{"invalid UTF-8", websocket.MessageText, "{\"type\":\"params\",\"id\":1,\"query\":\"clients=\xff\"}", websocket.StatusInvalidFramePayloadData},
		{"invalid UTF-8 outside strings", websocket.MessageText, "{\"type\":\"params\",\"id\":1,\"query\":\"\"}\xc3", websocket.StatusInvalidFramePayloadData},
		{"oversized", websocket.MessageText, `{"type":"params","id":1,"query":"` + strings.Repeat("a", 4096) + `"}`, websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := srv.MustDial(t, "backoff", nil)
			if tc.code == websocket.StatusMessageTooBig {
				// Refused at its frame's header, the message is read only as the close
				// handshake goes on: sent from its own goroutine, as a browser's socket
				// sends while it reads (the test's pipes buffer nothing).
				go st.C.Write(context.Background(), tc.typ, []byte(tc.msg))
			} else {
				st.SendRaw(tc.typ, []byte(tc.msg))
			}
			code, reason := st.MustClosed()
			if code != tc.code {
				t.Errorf("closed with %v (%q), want %v", code, reason, tc.code)
			}
			if reason == "" || !utf8.ValidString(reason) {
				t.Errorf("closed with %v and reason %q, want a valid UTF-8 reason", code, reason)
			}
		})
	}
	// Nothing ran.
	if n := srv.Hub.Running(); n != 0 {
		t.Errorf("%d runs in flight", n)
	}
}

// TestStreamOrigin: only same-origin and allow-listed pages may open streams.
func TestStreamOrigin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.AllowedOrigins = []string{"slides.example.com", "*.talks.example.org"} }))
		for _, tc := range []struct {
			origin string
			ok     bool
		}{
			{"", true}, // not a browser
			{srv.URL, true},
			{"https://slides.example.com", true},
			{"https://kyoto.talks.example.org", true},
			{"https://evil.example", false},
			{"https://slides.example.com.evil.example", false},
			{"http://127.0.0.1", false}, // the server is http://localhost
			{"null", false},
		} {
			h := http.Header{}
			if tc.origin != "" {
				h.Set("Origin", tc.origin)
			}
			c, resp, err := srv.Dial("backoff", &websocket.DialOptions{HTTPHeader: h})
			switch {
			case tc.ok && err != nil:
				t.Errorf("origin %q refused: %v", tc.origin, err)
			case tc.ok:
				st := &Stream{tb: t, C: c}
				st.Send(1, "clients=0")
				if r := st.MustNext(); r.Type != "error" {
					t.Errorf("origin %q: reply %+v, want an error reply", tc.origin, r)
				}
				c.Close(websocket.StatusNormalClosure, "")
			case err == nil:
				c.CloseNow()
				t.Errorf("a stream from %q was accepted", tc.origin)
			case resp == nil || resp.StatusCode != http.StatusForbidden:
				t.Errorf("origin %q: refusal %v with response %v, want 403", tc.origin, err, resp)
			}
		}
		synctest.Wait()
		if n, _ := srv.Metric(t, "playground_stream_connections"); n != 0 {
			t.Errorf("%v connections counted open, want 0", n)
		}
	})
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStreamUnknownLab: a stream of no lab is a 404, not an upgrade.
func TestStreamUnknownLab(t *testing.T) {
	srv := MustOpenServer(t)
	c, resp, err := srv.Dial("nosuchlab", nil)
	if err == nil {
		c.CloseNow()
		t.Fatal("upgraded a stream of no lab")
	}
	if resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("refusal %v, %v; want 404", err, resp)
	}
}

// TestStreamNewerParamsCancel: a newer params message cancels the run in flight; every reply
// after the first for the new id carries the new id.
func TestStreamNewerParamsCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		st := srv.MustDial(t, "gated", nil)
		st.Send(1, "n=1&steps=3")
		if r := st.MustNext(); r.Type != "start" || r.ID != 1 {
			t.Fatalf("reply %+v, want start 1", r)
		}
		st.Send(2, "n=2&steps=1")
		go srv.Gated.Step(t.Context(), "n=2&steps=1", 1)
		start, frames, _ := st.Run(2) // fails on any reply for id 1 after the start of 2
		if start.URL != "/gated?n=2&steps=1" || len(frames) == 0 {
			t.Errorf("run 2: start %+v, %d frames", start, len(frames))
		}
		synctest.Wait()
		if srv.Hub.Running() != 0 || srv.Gated.Running() != 0 {
			t.Errorf("hub has %d runs, lab %d; want the first run cancelled", srv.Hub.Running(), srv.Gated.Running())
		}
		if n, _ := srv.Metric(t, `playground_runs_total{lab="gated",outcome="cancelled"}`); n != 1 {
			t.Errorf("%v cancelled runs counted, want 1", n)
		}
	})
}

// TestStreamSlowReader: a client that stops reading gets merged frames, not a queue: the
// server's heap stays small, other clients are served meanwhile, and when the slow client
// reads at last its frames still fold to the whole result. (The test network's connections
// have no buffers: the server's first write to the slow client blocks.)
func TestStreamSlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) {
			c.FrameInterval = 50 * time.Microsecond
			c.WriteTimeout = 5 * time.Minute // the slow client is slow, not gone
		}))
		const query = "n=7&steps=1000"
		before := heapAlloc()
		framesBefore, _ := srv.Metric(t, "playground_stream_frames_total")

		slowClient := srv.MustDial(t, "free", nil)
		slowClient.Send(1, query)
		synctest.Wait() // the run has finished; the stream is blocked writing "start"

		// Meanwhile a normal client is served in full.
		normal := srv.MustDial(t, "free", nil)
		normal.Send(1, "n=8")
		normal.Run(1)

		after := heapAlloc()
		const bound = 16 << 20
		if after > before && after-before > bound {
			t.Errorf("heap grew by %d MiB with a slow reader, want under %d MiB", (after-before)>>20, bound>>20)
		}
		t.Logf("heap %d KiB before, %d KiB with the slow reader blocked", before>>10, after>>10)

		// Now the slow client reads: newest state merged into few frames, folding to the result.
		_, frames, _ := slowClient.Run(1)
		res, _ := srv.MustResult(t, "free", query)
		var f Fold
		for _, fr := range frames {
			f.Apply(fr)
		}
		if canon(t, f.Summary) != canon(t, res.Summary) || canon(t, f.Series) != canon(t, res.Series) {
			t.Errorf("the slow client's frames fold to a different result")
		}
		framesAfter, _ := srv.Metric(t, "playground_stream_frames_total")
		t.Logf("slow client got %d frames for 1000 updates; %v frames written in all", len(frames), framesAfter-framesBefore)
		if len(frames) > 2 {
			t.Errorf("the slow client got %d frames: updates were queued, not merged", len(frames))
		}
	})
}

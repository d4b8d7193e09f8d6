package api_test

import (
	"context"
	"net"
	"net/http"
	"runtime"
	"strings"
	"testing"
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
	seed := fresh("") // not memoised: a live run
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

// TestStreamNewerParamsCancel: a newer params message cancels the run in flight; every reply
// after the first for the new id carries the new id.
func TestStreamNewerParamsCancel(t *testing.T) {
	srv := MustOpenServer(t)
	st := srv.MustDial(t, "backoff", nil)
	st.Send(1, slow())
	if r := st.MustNext(); r.Type != "start" || r.ID != 1 {
		t.Fatalf("reply %+v, want start 1", r)
	}
	st.Send(2, small)
	seen2 := false
	for {
		r := st.MustNext()
		switch {
		case r.ID == 1 && seen2:
			t.Fatalf("reply %+v for id 1 after replies for id 2", r)
		case r.ID == 1 && r.Type == "done":
			t.Fatalf("the old run finished instead of being cancelled")
		case r.ID == 1:
			continue
		case r.ID != 2:
			t.Fatalf("reply %+v: unknown id", r)
		}
		if !seen2 && r.Type != "start" {
			t.Fatalf("first reply for id 2 is %+v, want start", r)
		}
		seen2 = true
		if r.Type == "done" {
			break
		}
	}
	waitFor(t, 10*time.Second, "the old run to end", func() bool { return srv.Hub.Running() == 0 })
	waitFor(t, 10*time.Second, "the cancelled run to be counted", func() bool {
		n, _ := srv.Metric(t, `playground_runs_total{lab="backoff",outcome="cancelled"}`)
		return n == 1
	})
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
		{"oversized", websocket.MessageText, `{"type":"params","id":1,"query":"` + strings.Repeat("a", 4096) + `"}`, websocket.StatusMessageTooBig},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := srv.MustDial(t, "backoff", nil)
			st.SendRaw(tc.typ, []byte(tc.msg))
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
		{"http://localhost", false},
		{"null", false},
	} {
		t.Run(tc.origin, func(t *testing.T) {
			h := http.Header{}
			if tc.origin != "" {
				h.Set("Origin", tc.origin)
			}
			c, resp, err := srv.Dial("backoff", &websocket.DialOptions{HTTPHeader: h})
			if tc.ok {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				st := &Stream{tb: t, C: c}
				defer c.CloseNow()
				st.Send(1, "clients=0")
				if r := st.MustNext(); r.Type != "error" {
					t.Errorf("reply %+v, want an error reply", r)
				}
				return
			}
			if err == nil {
				c.CloseNow()
				t.Fatalf("a stream from %s was accepted", tc.origin)
			}
			if resp == nil || resp.StatusCode != http.StatusForbidden {
				t.Errorf("refusal %v with response %v, want 403", err, resp)
			}
		})
	}
	waitFor(t, 5*time.Second, "connections to be counted closed", func() bool {
		n, _ := srv.Metric(t, "playground_stream_connections")
		return n == 0
	})
}

// smallBuffers makes the server's sockets' send buffers small, so that a client that does not
// read blocks the server's writes at once instead of after megabytes of kernel buffers.
func smallBuffers(l net.Listener) net.Listener { return smallBufListener{l} }

type smallBufListener struct{ net.Listener }

func (l smallBufListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// smallReadBuffer dials with a small receive buffer.
func smallReadBuffer() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}}
}

func heapAlloc() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestStreamSlowReader: a client that stops reading gets merged frames, not a queue: the
// server's heap stays small, other clients are served meanwhile, and when the slow client
// reads at last its frames still fold to the whole result.
func TestStreamSlowReader(t *testing.T) {
	srv := MustOpenServer(t, WithListener(smallBuffers), WithConfig(func(c *api.Config) {
		c.FrameInterval = 50 * time.Microsecond
		c.WriteTimeout = 5 * time.Minute // the slow client is slow, not gone
	}))
	// Every strategy, a sweep of 100 points: about 100 updates, each with the whole sweep so far.
	query := fresh("strategies=none,constant,linear,exponential,full,equal,decorrelated&clients=50&trials=1&sweep=1:100:1")

	before := heapAlloc()
	framesBefore, _ := srv.Metric(t, "playground_stream_frames_total")

	slowClient := srv.MustDial(t, "backoff", &websocket.DialOptions{HTTPClient: smallReadBuffer()})
	slowClient.Send(1, query)
	// The slow client reads nothing until the run is over.
	waitFor(t, readTimeout, "the slow client's run to start", func() bool {
		n, _ := srv.Metric(t, `playground_runs_total{lab="backoff",outcome="ok"}`)
		return srv.Hub.Running() == 1 || n == 1
	})

	// Meanwhile a normal client is served in full.
	normal := srv.MustDial(t, "backoff", nil)
	normal.Send(1, small)
	normal.Run(1)

	waitFor(t, readTimeout, "the slow client's run to finish", func() bool {
		n, _ := srv.Metric(t, `playground_runs_total{lab="backoff",outcome="ok"}`)
		return n == 2
	})
	after := heapAlloc()
	const bound = 16 << 20
	if after > before && after-before > bound {
		t.Errorf("heap grew by %d MiB with a slow reader, want under %d MiB", (after-before)>>20, bound>>20)
	}
	t.Logf("heap %d KiB before, %d KiB with the slow reader blocked", before>>10, after>>10)

	// Now the slow client reads: newest state merged into few frames, folding to the result.
	_, frames, _ := slowClient.Run(1)
	res, _ := srv.MustResult(t, "backoff", query)
	var f Fold
	for _, fr := range frames {
		f.Apply(fr)
	}
	if canon(t, f.Summary) != canon(t, res.Summary) || canon(t, f.Series) != canon(t, res.Series) {
		t.Errorf("the slow client's frames fold to a different result")
	}
	framesAfter, _ := srv.Metric(t, "playground_stream_frames_total")
	t.Logf("slow client got %d frames for about 103 updates; %v frames written in all", len(frames), framesAfter-framesBefore)
	if len(frames) >= 100 {
		t.Errorf("the slow client got %d frames: updates were queued, not merged", len(frames))
	}
}

// TestStreamDisconnectCancels: a run whose only viewer goes away is cancelled.
func TestStreamDisconnectCancels(t *testing.T) {
	srv := MustOpenServer(t)
	for _, how := range []string{"close", "drop"} {
		t.Run(how, func(t *testing.T) {
			st := srv.MustDial(t, "backoff", nil)
			st.Send(1, slow())
			if r := st.MustNext(); r.Type != "start" {
				t.Fatalf("reply %+v, want start", r)
			}
			if n := srv.Hub.Running(); n != 1 {
				t.Fatalf("%d runs in flight, want 1", n)
			}
			if how == "close" {
				st.C.Close(websocket.StatusNormalClosure, "bye")
			} else {
				st.C.CloseNow()
			}
			waitFor(t, 10*time.Second, "the run to be cancelled", func() bool { return srv.Hub.Running() == 0 })
		})
	}
	waitFor(t, 10*time.Second, "both cancellations to be counted", func() bool {
		n, _ := srv.Metric(t, `playground_runs_total{lab="backoff",outcome="cancelled"}`)
		return n == 2
	})
	waitFor(t, 10*time.Second, "connections to be counted closed", func() bool {
		n, _ := srv.Metric(t, "playground_stream_connections")
		return n == 0
	})
}

// TestBusy: with every slot taken, the JSON API answers 503 with Retry-After, and a stream
// says busy, retries by itself, and completes once the slot frees.
func TestBusy(t *testing.T) {
	srv := MustOpenServer(t, WithMaxRuns(1))
	holder := srv.MustDial(t, "backoff", nil)
	holder.Send(1, slow())
	if r := holder.MustNext(); r.Type != "start" {
		t.Fatalf("holder: %+v, want start", r)
	}

	resp, body := srv.Get(t, "/api/v1/backoff?"+small)
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("status %d, want 503: %s", resp.StatusCode, body)
	}
	if ra := resp.Header.Get("Retry-After"); ra == "" {
		t.Errorf("no Retry-After header")
	}
	if e := MustDecodeError(t, resp, body); e.RetryAfter <= 0 || e.Param != "" {
		t.Errorf("error body %+v, want retry_after and no param", e)
	}

	waiter := srv.MustDial(t, "backoff", nil)
	waiter.Send(5, small)
	r := waiter.MustNext()
	if r.Type != "busy" || r.ID != 5 || r.RetryMS <= 0 {
		t.Fatalf("reply %+v, want busy 5 with retry_ms", r)
	}
	holder.C.Close(websocket.StatusNormalClosure, "") // frees the slot: its run is cancelled
	start, frames, _ := waiter.Run(5)
	if start.URL != "/backoff?"+small || len(frames) == 0 {
		t.Errorf("after busy: start %+v with %d frames", start, len(frames))
	}
	if n, _ := srv.Metric(t, `playground_runs_rejected_total{reason="busy"}`); n < 2 {
		t.Errorf("busy rejections = %v, want at least 2", n)
	}
}

// TestDrain: draining reports not ready, refuses new streams, and closes each open stream with
// 1001 once its run in flight has finished.
func TestDrain(t *testing.T) {
	srv := MustOpenServer(t)
	idle := srv.MustDial(t, "backoff", nil)
	finished := srv.MustDial(t, "backoff", nil)
	finished.Send(1, small)
	finished.Run(1)
	busy := srv.MustDial(t, "backoff", nil)
	busy.Send(2, fresh("clients=300&trials=50&sweep=off"))
	if r := busy.MustNext(); r.Type != "start" {
		t.Fatalf("reply %+v, want start", r)
	}
	if srv.Hub.Running() != 1 {
		t.Logf("the run finished before Drain; the test still checks the order of done and close")
	}

	srv.API.Drain()

	for path, want := range map[string]int{"/readyz": http.StatusServiceUnavailable, "/healthz": http.StatusOK} {
		if resp, body := srv.Get(t, path); resp.StatusCode != want {
			t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
		}
	}
	if c, resp, err := srv.Dial("backoff", nil); err == nil {
		c.CloseNow()
		t.Errorf("a new stream was accepted while draining")
	} else if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("new stream refused with %v, %v; want 503", err, resp)
	} else if resp.Header.Get("Retry-After") == "" {
		t.Errorf("503 without Retry-After")
	}

	for name, st := range map[string]*Stream{"idle": idle, "finished": finished} {
		if code, reason := st.MustClosed(); code != websocket.StatusGoingAway {
			t.Errorf("%s stream closed with %v %q, want 1001", name, code, reason)
		}
	}
	// The run in flight finishes first: frames, done, then 1001.
	for {
		r, err := busy.Next()
		if err != nil {
			t.Fatalf("stream in flight ended before done: %v", err)
		}
		if r.Type == "done" {
			break
		}
		if r.Type != "frame" || r.ID != 2 {
			t.Fatalf("reply %+v, want frames of 2", r)
		}
	}
	if code, reason := busy.MustClosed(); code != websocket.StatusGoingAway || reason == "" {
		t.Errorf("stream in flight closed with %v %q, want 1001 and a reason", code, reason)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.API.WaitStreams(ctx); err != nil {
		t.Errorf("WaitStreams: %v", err)
	}
	if n, _ := srv.Metric(t, "playground_stream_connections"); n != 0 {
		t.Errorf("%v connections counted open after drain", n)
	}
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

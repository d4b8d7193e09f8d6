package api_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
)

// The tests of a stream's life — cancellation, busy servers, draining, idleness, panics — run
// on the gated test lab in synctest bubbles: runs last exactly as long as the test says, time
// is the bubble's fake clock, and synctest.Wait waits for the server to settle.

// TestStreamDisconnectCancels: a run whose only viewer goes away is cancelled.
func TestStreamDisconnectCancels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		for i, how := range []string{"close", "drop"} {
			st := srv.MustDial(t, "gated", nil)
			st.Send(1, fmt.Sprintf("n=%d", i))
			if r := st.MustNext(); r.Type != "start" {
				t.Fatalf("%s: reply %+v, want start", how, r)
			}
			synctest.Wait()
			if n := srv.Gated.Running(); n != 1 {
				t.Fatalf("%s: %d runs in flight, want 1", how, n)
			}
			if how == "close" {
				st.C.Close(websocket.StatusNormalClosure, "bye")
			} else {
				st.C.CloseNow()
			}
			synctest.Wait()
			if srv.Hub.Running() != 0 || srv.Gated.Running() != 0 {
				t.Errorf("%s: the run was not cancelled", how)
			}
		}
		if n, _ := srv.Metric(t, `playground_runs_total{lab="gated",outcome="cancelled"}`); n != 2 {
			t.Errorf("%v cancellations counted, want 2", n)
		}
		if n, _ := srv.Metric(t, "playground_stream_connections"); n != 0 {
			t.Errorf("%v connections counted open, want 0", n)
		}
	})
}

// TestBusy: with every slot taken, the JSON API answers 503 with Retry-After, and a stream
// says busy, retries by itself, and completes once the slot frees.
func TestBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(1))
		holder := srv.MustDial(t, "gated", nil)
		holder.Send(1, "n=1")
		if r := holder.MustNext(); r.Type != "start" {
			t.Fatalf("holder: %+v, want start", r)
		}

		resp, body := srv.Get(t, "/api/v1/free?n=5")
		if resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("status %d, want 503: %s", resp.StatusCode, body)
		}
		if ra := resp.Header.Get("Retry-After"); ra == "" {
			t.Errorf("no Retry-After header")
		}
		if e := MustDecodeError(t, resp, body); e.RetryAfter <= 0 || e.Param != "" {
			t.Errorf("error body %+v, want retry_after and no param", e)
		}

		waiter := srv.MustDial(t, "free", nil)
		waiter.Send(5, "n=5")
		r := waiter.MustNext()
		if r.Type != "busy" || r.ID != 5 || r.RetryMS <= 0 {
			t.Fatalf("reply %+v, want busy 5 with retry_ms", r)
		}
		holder.C.Close(websocket.StatusNormalClosure, "") // frees the slot: its run is cancelled
		start, frames, _ := waiter.Run(5)
		if start.URL != "/free?n=5" || len(frames) == 0 {
			t.Errorf("after busy: start %+v with %d frames", start, len(frames))
		}
		if n, _ := srv.Metric(t, `playground_runs_rejected_total{reason="busy"}`); n < 2 {
			t.Errorf("busy rejections = %v, want at least 2", n)
		}
	})
}

// TestDrain: draining reports not ready, refuses new streams, and closes each open stream with
// 1001 once its run in flight has finished.
func TestDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		idle := srv.MustDial(t, "gated", nil)
		finished := srv.MustDial(t, "free", nil)
		finished.Send(1, "n=1")
		finished.Run(1)
		busy := srv.MustDial(t, "gated", nil)
		busy.Send(2, "n=2&steps=2")
		if r := busy.MustNext(); r.Type != "start" {
			t.Fatalf("reply %+v, want start", r)
		}

		srv.API.Drain()

		for path, want := range map[string]int{"/readyz": http.StatusServiceUnavailable, "/healthz": http.StatusOK} {
			if resp, body := srv.Get(t, path); resp.StatusCode != want {
				t.Errorf("GET %s: %d %s, want %d", path, resp.StatusCode, body, want)
			}
		}
		if c, resp, err := srv.Dial("gated", nil); err == nil {
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
		go srv.Gated.Step(t.Context(), "n=2&steps=2", 2)
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
		if err := srv.API.WaitStreams(t.Context()); err != nil {
			t.Errorf("WaitStreams: %v", err)
		}
		if n, _ := srv.Metric(t, "playground_stream_connections"); n != 0 {
			t.Errorf("%v connections counted open after drain", n)
		}
	})
}

// TestDrainDeliversFinishedRun: a run that finishes during the drain reaches its viewer —
// its last frame, then done, then 1001 — even when the server closes the streams (the end of
// the shutdown's drain: Drain, hub.Drain, CloseStreams) before the stream has sent them. The
// stream here waits out its frame interval when the run ends, so CloseStreams comes first.
func TestDrainDeliversFinishedRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		st := srv.MustDial(t, "gated", nil)
		const q = "n=3&steps=2"
		st.Send(1, q)
		if r := st.MustNext(); r.Type != "start" {
			t.Fatalf("reply %+v, want start", r)
		}
		if err := srv.Gated.Step(t.Context(), q, 1); err != nil {
			t.Fatal(err)
		}
		if r := st.MustNext(); r.Type != "frame" {
			t.Fatalf("reply %+v, want the first frame", r)
		}
		srv.API.Drain()
		if err := srv.Gated.Step(t.Context(), q, 1); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the run has ended; the stream waits out its frame interval
		if srv.Hub.Running() != 0 {
			t.Fatalf("%d runs in flight after the last step", srv.Hub.Running())
		}
		srv.Hub.Drain(t.Context())
		srv.API.CloseStreams()

		var got []string
		for {
			r, err := st.Next()
			if err != nil {
				var ce websocket.CloseError
				if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway {
					t.Errorf("stream ended with %v, want 1001", err)
				}
				break
			}
			got = append(got, r.Type)
		}
		if want := []string{"frame", "done"}; !slices.Equal(got, want) {
			t.Errorf("after CloseStreams the stream sent %q, want %q: a finished run is delivered before its stream closes", got, want)
		}
	})
}

// TestDrainDeadlineClosesEveryStream: runs that outlast the drain deadline are cancelled and
// every stream — watching a run, waiting on a busy server, idle — still gets its 1001 close
// frame, in the order the server's shutdown uses: Drain, hub.Drain until the deadline,
// CloseStreams.
func TestDrainDeadlineClosesEveryStream(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithMaxRuns(20))
		var streams []*Stream
		for i := range 30 { // 20 runs that never finish, and 10 streams told busy
			st := srv.MustDial(t, "free", nil)
			st.Send(1, fmt.Sprintf("n=%d&hold=true", i))
			want := "start"
			if i >= 20 {
				want = "busy"
			}
			if r := st.MustNext(); r.Type != want {
				t.Fatalf("stream %d: reply %+v, want %s", i, r, want)
			}
			streams = append(streams, st)
		}
		for range 5 {
			streams = append(streams, srv.MustDial(t, "free", nil)) // idle
		}
		// Read every stream from now on: the test network has no buffers, and a close frame
		// nobody reads would time out on the fake clock while the hub drains.
		var wg sync.WaitGroup
		for i, st := range streams {
			wg.Go(func() {
				if code, reason := st.MustClosed(); code != websocket.StatusGoingAway {
					t.Errorf("stream %d closed with %v %q, want 1001", i, code, reason)
				}
			})
		}
		start := time.Now()
		srv.API.Drain()
		ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
		defer cancel()
		srv.Hub.Drain(ctx)
		srv.API.CloseStreams()
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("the hub drained for %v, want the deadline, 5s", d)
		}
		wg.Wait()
		synctest.Wait()
		if srv.Hub.Running() != 0 {
			t.Errorf("%d runs in flight after the deadline", srv.Hub.Running())
		}
	})
}

// TestIdleStreamCloses checks a stream that sends no request for the idle timeout is closed
// with 4000, while one that keeps sending stays open.
func TestIdleStreamCloses(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.IdleTimeout = 300 * time.Millisecond }))
		idle := srv.MustDial(t, "free", nil)
		busy := srv.MustDial(t, "free", nil)
		for i := range int64(10) { // a request every 60ms: well past the idle timeout
			busy.Send(i+1, fmt.Sprintf("n=%d", i))
			busy.Run(i + 1)
			time.Sleep(60 * time.Millisecond)
		}
		code, reason := idle.MustClosed()
		if code != api.StatusIdle || reason != "idle" {
			t.Errorf("idle stream closed with %d %q, want %d \"idle\"", code, reason, api.StatusIdle)
		}
		busy.Send(99, "n=99")
		if r := busy.Await(99); r.Type != "start" {
			t.Errorf("active stream: %s reply, want start", r.Type)
		}
	})
}

// TestPanics: a panic in a lab's code ends its run or its request, never the server: before
// the upgrade as a JSON 500, after it (a hijacked connection, where no HTTP status can be
// written) as a 1011 close, and in a run as an error reply on a stream that stays usable.
func TestPanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Log = newTestLogger(&log) }))

		resp, body := srv.Get(t, "/api/v1/free?panic=cost")
		if resp.StatusCode != http.StatusInternalServerError {
			t.Errorf("GET with a panic: %d %s, want 500", resp.StatusCode, body)
		}
		if e := MustDecodeError(t, resp, body); e.Error != "internal error" {
			t.Errorf("error body %+v, want no details", e)
		}

		st := srv.MustDial(t, "free", nil)
		st.Send(1, "panic=cost")
		if code, reason := st.MustClosed(); code != websocket.StatusInternalError || reason != "internal error" {
			t.Errorf("stream closed with %v %q after a panic, want 1011 \"internal error\"", code, reason)
		}

		st = srv.MustDial(t, "free", nil)
		st.Send(1, "panic=run")
		for r := st.Await(1); r.Type != "error"; r = st.Await(1) {
			if r.Type != "start" {
				t.Fatalf("reply %+v, want start then error", r)
			}
		}
		st.Send(2, "n=2")
		if _, frames, _ := st.Run(2); len(frames) == 0 {
			t.Errorf("no frames after the panic")
		}
		synctest.Wait()
		if got := log.String(); strings.Contains(got, "hijacked") || !strings.Contains(got, "panic") {
			t.Errorf("server log:\n%s\nwant the panics and no write to a hijacked connection", got)
		}
	})
}

// TestSupersededUntilPicture: a newer request supersedes a progressive run at once, before
// its picture (a move starts at once) — unless it is a step of a drag, or the viewer has been
// waiting for a picture for the server's patience already (values sent faster than pictures
// come): then the run in flight goes on until it has shown a complete picture (its first
// refinement), and the newest request is served next. A run that has shown its picture is
// superseded at once, drag or not.
func TestSupersededUntilPicture(t *testing.T) {
	for _, c := range []struct {
		name string
		wait time.Duration // before the newer values
		drag bool
	}{
		{"drag", 0, true},
		{"patience", api.DefaultPatience, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := MustOpenServer(t)
				st := srv.MustDial(t, "prog", nil)
				step := func(q string, k int) { go srv.Prog.Step(t.Context(), q, k) }
				unpictured := func(id int64, q string) {
					t.Helper()
					if r := st.MustNext(); r.Type != "start" || r.ID != id {
						t.Fatalf("reply %+v, want start %d", r, id)
					}
					step(q, 1)
					if r := st.MustNext(); r.Type != "frame" || r.ID != id || r.Refine != nil {
						t.Fatalf("reply %+v, want a frame of %d without a picture", r, id)
					}
				}
				const first, second = "n=1&steps=5&picture=3", "n=2&steps=5&picture=3"
				st.Send(1, first)
				unpictured(1, first)
				st.Send(2, second) // a move: the first run is abandoned before its picture
				unpictured(2, second)
				synctest.Wait()
				if srv.Prog.Running() != 1 || srv.Prog.Runs() != 2 {
					t.Fatalf("%d running, %d runs; want the second only running", srv.Prog.Running(), srv.Prog.Runs())
				}
				time.Sleep(c.wait)
				send := st.Send
				if c.drag {
					send = st.SendDrag
				}
				send(3, "n=3&steps=2&picture=1") // superseded by the next: never served
				send(4, "n=4&steps=2&picture=1")
				synctest.Wait()
				if srv.Prog.Running() != 1 || srv.Prog.Runs() != 2 {
					t.Fatalf("%d running, %d runs; want the second, kept until its picture", srv.Prog.Running(), srv.Prog.Runs())
				}
				step(second, 2) // the second and third updates: the picture
				var pictured bool
				for !pictured {
					r := st.MustNext()
					if r.ID != 2 || r.Type != "frame" {
						t.Fatalf("reply %+v before the second run's picture, want its frames", r)
					}
					pictured = r.Refine != nil
				}
				step("n=4&steps=2&picture=1", 1)
				if r := st.MustNext(); r.Type != "start" || r.ID != 4 {
					t.Fatalf("reply %+v after the picture, want start 4 (the newest request)", r)
				}
				if r := st.MustNext(); r.Type != "frame" || r.ID != 4 || r.Refine == nil {
					t.Fatalf("reply %+v, want the picture of 4", r)
				}
				send(5, "n=5&steps=1&picture=1") // 4 has shown its picture: superseded at once
				step("n=5&steps=1&picture=1", 1)
				if _, frames, _ := st.Run(5); len(frames) == 0 {
					t.Errorf("no frames for 5")
				}
				synctest.Wait()
				if srv.Prog.Running() != 0 || srv.Prog.Runs() != 4 {
					t.Errorf("%d running, %d runs; want 0 running, and runs of 1, 2, 4 and 5 only", srv.Prog.Running(), srv.Prog.Runs())
				}
			})
		})
	}
}

package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
)

// TestRefusalsEstimatedOnce: a scenario over the work budget is estimated once, however often it
// is asked for — on a stream, over the JSON API, for a room — and from whichever address: the
// verdict is kept by canonical URL (issue 33: a stream sending an expensive refusal 20 times a
// second burned 28 CPU-s in 25 s).
func TestRefusalsEstimatedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		var estimates atomic.Int64
		cost := srv.Free.Lab.Cost
		srv.Free.Lab.Cost = func(v param.Values) int64 { estimates.Add(1); return cost(v) }
		const over = "n=900000000"
		st := srv.streamFrom(t, "198.51.100.7:1000", "free")
		st.Send(1, over)
		if r := st.Await(1); r.Type != "error" || r.Param != "n" {
			t.Fatalf("over budget: %+v, want an error naming n", r)
		}
		first := estimates.Load() // the refusal's estimate, and those finding a value that fits
		for i := range 50 {
			st.Send(int64(i+2), over)
			if r := st.Await(int64(i + 2)); r.Type != "error" {
				t.Fatalf("over budget again: %+v", r)
			}
			time.Sleep(100 * time.Millisecond) // within the stream's pace
		}
		for i := range 10 {
			rec := srv.serveFrom(t.Context(), fmt.Sprintf("203.0.113.%d:1000", i+1), http.MethodGet, "/api/v1/free?"+over)
			if rec.Code != http.StatusBadRequest {
				t.Fatalf("JSON API: %d %s", rec.Code, rec.Body)
			}
		}
		if rec := srv.createFrom(t, "192.0.2.1:1000", "/free?"+over); rec.Code != http.StatusBadRequest {
			t.Fatalf("a room over budget: %d %s", rec.Code, rec.Body)
		}
		if n := estimates.Load(); n != first {
			t.Errorf("62 requests of one refused scenario computed %d estimates, want %d: those of the first", n, first)
		}
	})
}

// TestPresenterPacedBeforeParsing: a presenter's changes are paced before they are parsed and
// estimated (issue 33: each was estimated as it was read, before the room's pacing): 200
// changes of distinct scenarios sent at once are estimated at most burst + 1 times, and the
// room ends at the newest.
func TestPresenterPacedBeforeParsing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c, follower, presenter := srv.mustOpenRoom(t, "/free?n=1")
		readAll(t, presenter)
		readAll(t, follower)
		var estimates atomic.Int64
		cost := srv.Free.Lab.Cost
		srv.Free.Lab.Cost = func(v param.Values) int64 { estimates.Add(1); return cost(v) }
		for i := range 200 {
			presenter.Send(map[string]any{"type": "params", "id": i + 1, "query": fmt.Sprintf("n=%d", 100+i)})
		}
		synctest.Wait()
		if n := estimates.Load(); n > 21 {
			t.Errorf("200 changes sent at once were estimated %d times before any time passed, want at most 21 (a burst of 20, then the newest)", n)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if info := srv.MustRoomInfo(t, c.Code); info.URL != "/free?n=299" {
			t.Errorf("room at %s, want the newest change, /free?n=299", info.URL)
		}
		t.Logf("200 changes at once: %d estimates", estimates.Load())
	})
}

// stallingStore is a room store whose End waits until released, counting the calls in flight.
type stallingStore struct {
	room.Store
	release  chan struct{}
	inFlight atomic.Int64
	most     atomic.Int64
	mu       sync.Mutex
}

func (s *stallingStore) End(ctx context.Context, code string) error {
	n := s.inFlight.Add(1)
	defer s.inFlight.Add(-1)
	s.mu.Lock()
	s.most.Store(max(s.most.Load(), n))
	s.mu.Unlock()
	select {
	case <-s.release:
	case <-ctx.Done():
		return ctx.Err()
	}
	return s.Store.End(ctx, code)
}

// TestEndsOneAtATime: a presenter's end messages start one store call at a time per
// connection, however many it sends while the store stalls (issue 33: one goroutine per end
// message, 200,000 of them during a Redis stall); once the store answers, the room ends.
func TestEndsOneAtATime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &stallingStore{Store: room.NewMemory(room.Limits{}), release: make(chan struct{})}
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms = store }))
		_, follower, presenter := srv.mustOpenRoom(t, "/free?n=1")
		for i := range 500 {
			presenter.Send(map[string]any{"type": "end", "id": i + 1})
		}
		synctest.Wait()
		if n := store.inFlight.Load(); n != 1 {
			t.Errorf("%d ends in flight after 500 end messages, want 1", n)
		}
		close(store.release)
		for {
			_, _, err := follower.C.Read(context.Background())
			if err != nil {
				if code := websocket.CloseStatus(err); code != api.StatusRoomEnded {
					t.Errorf("follower closed with %v, want %d (the room ended)", err, api.StatusRoomEnded)
				}
				break
			}
		}
		if n := store.most.Load(); n != 1 {
			t.Errorf("at most %d ends were in flight at once, want 1", n)
		}
	})
}

// TestPresenterChangePanics: a lab's code that panics estimating a presenter's change ends
// that change, refused as an internal error, not the server; the room goes on.
func TestPresenterChangePanics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log strings.Builder
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Log = newTestLogger(&log) }))
		c, follower, presenter := srv.mustOpenRoom(t, "/free?n=1")
		readAll(t, follower)
		presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=2&panic=cost"})
		if r := presenter.Until("an error", func(r RoomReply) bool { return r.Type == "error" }); r.ID != 1 || r.Error != "internal error" {
			t.Errorf("a change whose estimate panics: %+v, want an internal error", r)
		}
		presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=3"})
		time.Sleep(time.Second)
		synctest.Wait()
		if info := srv.MustRoomInfo(t, c.Code); info.URL != "/free?n=3" {
			t.Errorf("room at %s after the panic, want /free?n=3", info.URL)
		}
		if !strings.Contains(log.String(), "panic in a presenter's change") {
			t.Errorf("log:\n%s\nwant the panic", log.String())
		}
	})
}

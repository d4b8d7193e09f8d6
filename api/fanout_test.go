package api_test

import (
	"context"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
)

// heldCounts is a memory store whose follower counts, once held, do not answer until released.
type heldCounts struct {
	*room.Memory
	hold    atomic.Bool
	held    atomic.Int32 // Followers calls waiting
	release chan struct{}
}

func (s *heldCounts) Followers(ctx context.Context, code string) (int, error) {
	if s.hold.Load() {
		s.held.Add(1)
		<-s.release
	}
	return s.Memory.Followers(ctx, code)
}

// TestRoomChangeBeforeFollowerCount: a presenter's change reaches the followers — the room
// message of the new version, then its run — without waiting for the store to count the
// room's followers (a round trip to Redis before every follower's first frame).
func TestRoomChangeBeforeFollowerCount(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := &heldCounts{Memory: room.NewMemory(room.Limits{}), release: make(chan struct{})}
		defer store.Close()
		srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms = store }))
		_, follower, presenter := srv.mustOpenRoom(t, "/free?n=2")
		synctest.Wait()
		store.hold.Store(true)
		defer close(store.release)

		presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=3"})
		r := follower.Until("the room's new version", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 1 })
		if r.Room.URL != "/free?n=3" {
			t.Errorf("the room message of version 1 shows %s, want /free?n=3", r.Room.URL)
		}
		if _, f := follower.RunOf(1); len(f.Series) == 0 {
			t.Error("the new version's run drew nothing")
		}
		synctest.Wait() // the room's loops have done what they can: asked, and wait for the count
		if store.held.Load() == 0 {
			t.Error("the store was not asked for the follower count: the test shows nothing")
		}
	})
}

// TestRoomStreamDeflates: a room's follower offering permessage-deflate, as browsers do, is
// sent its frames deflated — every follower the same prepared frames — and one not offering
// it is sent them plain; both fold to the same picture.
func TestRoomStreamDeflates(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/backoff?clients=20&trials=2&sweep=off")
		keep := srv.MustJoin(t, c.Code) // keeps the room's run
		keep.RunOf(0)
		synctest.Wait()
		moved := map[websocket.CompressionMode]int64{}
		folds := map[websocket.CompressionMode]string{}
		for _, mode := range []websocket.CompressionMode{websocket.CompressionDisabled, websocket.CompressionNoContextTakeover} {
			var n atomic.Int64
			client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				conn, err := srv.net.DialContext(ctx, network, addr)
				return countingConn{conn, &n}, err
			}}}
			ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
			conn, resp, err := websocket.Dial(ctx, "ws://localhost/api/v1/rooms/"+c.Code+"/stream", &websocket.DialOptions{HTTPClient: client, CompressionMode: mode})
			cancel()
			if resp != nil && resp.Body != nil {
				resp.Body.Close()
			}
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			conn.SetReadLimit(-1)
			before := n.Load()
			rs := &RoomStream{tb: t, C: conn}
			_, f := rs.RunOf(0)
			moved[mode], folds[mode] = n.Load()-before, canon(t, f.Series)
			conn.Close(websocket.StatusNormalClosure, "")
			synctest.Wait()
		}
		plain, deflated := moved[websocket.CompressionDisabled], moved[websocket.CompressionNoContextTakeover]
		t.Logf("the room's run: %d bytes plain, %d deflated", plain, deflated)
		if deflated*2 > plain {
			t.Errorf("a follower offering deflate read %d bytes of the run, one not offering it %d: want less than half", deflated, plain)
		}
		if folds[websocket.CompressionDisabled] != folds[websocket.CompressionNoContextTakeover] {
			t.Error("the deflated run folds to another picture than the plain one")
		}
	})
}

package api_test

import (
	"sync"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"
)

// TestRoomStreamsGoingAwayOnDrain: when the server drains (SIGTERM), a room's followers and
// its presenter get a 1001 close frame, as lab streams do, so that their pages reconnect
// elsewhere — not a connection cut without a frame (1006 in a browser).
func TestRoomStreamsGoingAwayOnDrain(t *testing.T) {
	for _, how := range []string{"drain", "close streams"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := MustOpenServer(t)
				_, follower, presenter := srv.mustOpenRoom(t, "/free?n=2&steps=2")
				synctest.Wait()

				var wg sync.WaitGroup
				for name, rs := range map[string]*RoomStream{"follower": follower, "presenter": presenter} {
					wg.Go(func() {
						code, reason := (&Stream{tb: t, C: rs.C}).MustClosed()
						if code != websocket.StatusGoingAway || reason == "" {
							t.Errorf("%s closed with %v %q, want 1001 and a reason", name, code, reason)
						}
					})
				}
				if how == "drain" {
					srv.API.Drain()
				} else {
					srv.API.CloseStreams()
				}
				wg.Wait()
				if err := srv.API.WaitStreams(t.Context()); err != nil {
					t.Errorf("WaitStreams: %v", err)
				}
			})
		})
	}
}

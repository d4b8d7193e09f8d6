package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// TestPresenterOfALostServer: two servers share rooms on one real Redis; the presenter is on
// server a, a follower on server b. Server a then loses Redis for good without clearing its
// counts (as when it is killed) and the presenter's page goes: the follower on b is told the
// presenter has gone once a's counts lapse (room.CountLease, a second here), where before it
// was told the presenter was there until the room expired.
func TestPresenterOfALostServer(t *testing.T) {
	rd := roomtest.MustStartRedisServer(t)
	open := func() (*Server, *room.Redis) {
		store, err := room.NewRedis(context.Background(), rd.URL, room.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		store.SetCountLease(time.Second)
		return MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms, c.RoomCheck = store, 100*time.Millisecond })), store
	}
	a, storeA := open()
	b, _ := open()
	c := a.MustCreateRoom(t, "/free?n=2")
	follower := b.MustJoin(t, c.Code)
	follower.RunOf(0)
	presenter := a.mustPresent(t, c)
	follower.Until("with the presenter there", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 1 })

	storeA.Close() // server a can no longer clear (or renew) its counts
	presenter.C.CloseNow()
	lost := time.Now()
	follower.Until("with the presenter gone", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 0 })
	t.Logf("the follower on server b was told the presenter had gone %v after server a lost Redis (lease 1s, checks every 100ms)", time.Since(lost).Round(time.Millisecond))
}

package api_test

import (
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// TestRoomAnnouncesBeforeRun: on every participant's stream, the room message of version N
// comes before the run of version N: a participant is told the room has moved before it is
// shown the new scenario's run. (A client waiting for the room's new version and then for its
// run, as TestRoom does, found the run already gone by when the driver published it first.)
func TestRoomAnnouncesBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/free?n=2&steps=2")
		key := strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")
		followers := make([]*announced, 3)
		for i := range followers {
			followers[i] = &announced{rs: srv.MustJoin(t, c.Code)}
			followers[i].runOf(t, 0)
		}
		presenter := &announced{rs: srv.MustJoin(t, c.Code)}
		presenter.rs.Send(map[string]any{"type": "present", "key": key})
		for r := presenter.next(t); r.Type != "room" || !r.Room.Presenter; r = presenter.next(t) {
		}
		// The presenter is a participant too: it is sent the room's messages and runs.
		participants := append(followers, presenter)
		for version := int64(1); version <= 20; version++ {
			presenter.rs.Send(map[string]any{"type": "params", "id": version, "query": "n=" + strconv.FormatInt(version+2, 10) + "&steps=2"})
			for _, p := range participants {
				p.runOf(t, version)
			}
		}
	})
}

// announced reads a room stream, checking that each run's start comes after a room message
// of its version or a newer one.
type announced struct {
	rs   *RoomStream
	room int64 // the newest version a room message has announced
	seen bool  // whether a room message has come
}

// next reads one reply, failing if it is the start of a run whose version no room message
// has announced yet.
func (a *announced) next(t *testing.T) RoomReply {
	t.Helper()
	r := a.rs.Next()
	switch r.Type {
	case "room":
		a.room, a.seen = r.Room.Version, true
	case "start":
		if !a.seen || r.ID > a.room {
			t.Fatalf("run %d started before the room message announcing its version (newest announced: %d)", r.ID, a.room)
		}
	}
	return r
}

// runOf reads until the done of the run of version id.
func (a *announced) runOf(t *testing.T, id int64) {
	t.Helper()
	for r := a.next(t); r.Type != "done" || r.ID != id; r = a.next(t) {
	}
}

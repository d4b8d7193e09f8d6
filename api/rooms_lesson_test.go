package api_test

import (
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
)

// TestRoomLesson: what a lesson needs of a room's stream. The presenter's reveal is room state
// that reaches every follower (with whether followers may reveal for themselves); followers
// are told when the presenter has gone and when it is back; only the presenter ends the room,
// and then every participant's stream closes with 4004 and the room is gone.
func TestRoomLesson(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c, follower, presenter := srv.mustOpenRoom(t, "/free?n=2")
		follower.Until("the presenter's arrival", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 1 })

		presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=2", "step": "intro/2", "revealed": true, "reveal_open": true})
		r := follower.Until("the reveal", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 1 })
		if !r.Room.Revealed || !r.Room.RevealOpen || r.Room.Step != "intro/2" {
			t.Errorf("follower's room after the reveal: %+v", *r.Room)
		}
		synctest.Wait()
		if info := srv.MustRoomInfo(t, c.Code); !info.Revealed || !info.RevealOpen {
			t.Errorf("room info %+v, want revealed and open", info)
		}
		// A new step without the reveal hides the answer again, for everyone.
		presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=2", "step": "intro/1"})
		if r := follower.Until("the next step", func(r RoomReply) bool { return r.Type == "room" && r.Room.Version == 2 }); r.Room.Revealed || r.Room.RevealOpen {
			t.Errorf("follower's room at the next step: %+v, want hidden", *r.Room)
		}

		// A follower can neither end the room nor reveal it for the others.
		follower.Send(map[string]any{"type": "end", "id": 5})
		if r := follower.Until("an error", func(r RoomReply) bool { return r.Type == "error" }); !strings.Contains(r.Error, "only the presenter") {
			t.Errorf("follower ending the room: %+v", r)
		}

		presenter.C.Close(websocket.StatusNormalClosure, "")
		follower.Until("the presenter gone", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 0 })
		presenter = srv.mustPresent(t, c)
		follower.Until("the presenter back", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 1 })
		second := srv.mustPresent(t, c) // a second presenter window
		follower.Until("two presenter windows", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenters == 2 })

		presenter.Send(map[string]any{"type": "end"})
		for name, rs := range map[string]*RoomStream{"follower": follower, "presenter": presenter, "second presenter": second} {
			if code, reason := (&Stream{tb: t, C: rs.C}).MustClosed(); code != api.StatusRoomEnded {
				t.Errorf("%s's stream closed with %v %q, want 4004: the room has ended", name, code, reason)
			}
		}
		if resp, body := srv.Get(t, "/api/v1/rooms/"+c.Code); resp.StatusCode != http.StatusNotFound {
			t.Errorf("the ended room: %d %s, want 404", resp.StatusCode, body)
		}
	})
}

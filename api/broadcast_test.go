package api

import (
	"context"
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/resilience-playground/playground/lab"
)

// TestBroadcast: every follower is written the very same encoded bytes; a follower that lags
// more than maxBehind frames gets the run's state so far in one frame (a late joiner too),
// never a queue; a new run restarts every follower's view.
func TestBroadcast(t *testing.T) {
	b := newBroadcast()
	b.setRoom(reply{Type: "room", Room: &roomState{Code: "ABCDEF", URL: "/x"}})
	b.publish(reply{Type: "start", ID: 1, URL: "/x"})
	var fast [3]cursor
	for i := range fast {
		if msgs, _ := b.next(&fast[i]); len(msgs) != 2 {
			t.Fatalf("follower %d: %d messages, want room and start", i, len(msgs))
		}
	}
	frame := func(k int) reply {
		return reply{Type: "frame", ID: 1, Series: []lab.Series{{Name: "s", Chart: "c", X: []float64{float64(k)}, Y: []float64{float64(k)}, Append: k > 0}}}
	}
	b.publish(frame(0))
	var first []*wire
	for i := range fast {
		msgs, _ := b.next(&fast[i])
		if len(msgs) != 1 {
			t.Fatalf("follower %d: %d messages, want the frame", i, len(msgs))
		}
		if i == 0 {
			first = msgs
		} else if msgs[0] != first[0] {
			t.Errorf("follower %d was written a different copy of the frame", i)
		}
	}
	var slow cursor
	b.next(&slow)
	for k := 1; k <= maxBehind+5; k++ {
		b.publish(frame(k))
		if msgs, _ := b.next(&fast[0]); len(msgs) != 1 {
			t.Fatalf("a follower keeping up got %d messages for frame %d, want 1", len(msgs), k)
		}
	}
	msgs, _ := b.next(&slow)
	if len(msgs) != 1 {
		t.Fatalf("a lagging follower got %d messages, want one snapshot", len(msgs))
	}
	var snap struct {
		Type   string       `json:"type"`
		Series []lab.Series `json:"series"`
	}
	if err := json.Unmarshal(msgs[0].b, &snap); err != nil || snap.Type != "frame" || len(snap.Series) != 1 || len(snap.Series[0].X) != maxBehind+6 {
		t.Errorf("snapshot %s: want one frame with every point", msgs[0].b)
	}
	var late cursor
	if msgs, _ := b.next(&late); len(msgs) != 3 {
		t.Errorf("a late joiner got %d messages, want room, start and one snapshot", len(msgs))
	}
	b.publish(reply{Type: "done", ID: 1})
	if msgs, _ := b.next(&fast[0]); len(msgs) != 1 || !json.Valid(msgs[0].b) || string(msgs[0].b) != `{"type":"done","id":1}` {
		t.Errorf("after done: %d messages", len(msgs))
	}
	// A new run: a follower still in the old one skips to it.
	b.publish(reply{Type: "start", ID: 2, URL: "/y"})
	if msgs, _ := b.next(&fast[1]); len(msgs) != 1 || string(msgs[0].b) != `{"type":"start","id":2,"url":"/y"}` {
		t.Errorf("a follower behind in the old run got %d messages, want the new start only", len(msgs))
	}
}

// TestFollowFlushesOnEnd: a follower whose stream ends (the room closing, the server draining)
// just as a run's done is published is written the done first, in whichever order it sees
// the two: here both come while it is writing the run's start.
func TestFollowFlushesOnEnd(t *testing.T) {
	for i := range 20 { // the two events race in a select: try many times
		synctest.Test(t, func(t *testing.T) {
			b := newBroadcast()
			b.publish(reply{Type: "start", ID: 1, URL: "/x"})
			ctx, cancel := context.WithCancel(t.Context())
			var got []string
			writing, release, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
			go func() {
				defer close(ended)
				_ = b.follow(ctx, func(msgs []*wire) error {
					if len(got) == 0 {
						close(writing)
						<-release
					}
					for _, m := range msgs {
						var r reply
						if err := json.Unmarshal(m.b, &r); err != nil {
							t.Error(err)
						}
						got = append(got, r.Type)
					}
					return nil
				}, nil)
			}()
			<-writing
			b.publish(reply{Type: "done", ID: 1})
			cancel()
			close(release)
			<-ended
			if len(got) != 2 || got[1] != "done" {
				t.Fatalf("try %d: follower wrote %q, want start then done", i, got)
			}
		})
	}
}

// TestBroadcastRoomNeverMovesBack: a room message of an older version than the one on show,
// set late, is dropped — a follower or a presenter joining is never shown the room as it was
// some changes ago (TestRoomLessonOnRedis's presenter, rejoining, was shown clients=60 after
// clients=70); one of the same version (a new follower count) replaces it.
func TestBroadcastRoomNeverMovesBack(t *testing.T) {
	b := newBroadcast()
	room := func(version int64, url string, followers int) reply {
		return reply{Type: "room", Room: &roomState{Code: "ABCDEF", URL: url, Version: version, Followers: followers}}
	}
	shown := func() roomState {
		t.Helper()
		var c cursor
		msgs, _ := b.next(&c)
		if len(msgs) != 1 {
			t.Fatalf("%d messages, want the room", len(msgs))
		}
		var m reply
		if err := json.Unmarshal(msgs[0].b, &m); err != nil || m.Room == nil {
			t.Fatalf("%s: %v", msgs[0].b, err)
		}
		return *m.Room
	}
	b.setRoom(room(9, "/backoff?clients=70", 2))
	b.setRoom(room(6, "/backoff?clients=60", 2))
	if r := shown(); r.Version != 9 || r.URL != "/backoff?clients=70" {
		t.Errorf("after version 9 then 6 (set late): version %d %s, want version 9", r.Version, r.URL)
	}
	b.setRoom(room(9, "/backoff?clients=70", 3))
	if r := shown(); r.Followers != 3 {
		t.Errorf("a new count at the same version: %d followers shown, want 3", r.Followers)
	}
}

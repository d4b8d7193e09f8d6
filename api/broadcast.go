package api

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/resilience-playground/playground/lab"
)

// broadcast fans one producer's replies out to many connections. Each reply is encoded once
// and the same bytes go to every follower; the producer appends under a lock held for an
// append, never while merging into anyone's mailbox. A follower that falls more than
// maxBehind frames behind is sent the run's state so far in one frame instead (as a late
// joiner is), never a queue.
type broadcast struct {
	mu      sync.Mutex
	room    []byte // the newest room message
	roomVer int64  // grows with each room message
	run     int64  // grows with each run
	start   []byte // the current run's start reply, nil before the first
	frames  [][]byte
	state   lab.Update // the fold of the current run's frames
	id      int64      // the current run's request id
	end     []byte     // its done or error reply, nil while it runs
	extra   []byte     // a passing message (busy), replaced by the next
	extraV  int64
	snap    []byte // state encoded as one frame, at snapN frames
	snapN   int
	changed chan struct{} // closed at each change, then replaced
}

// maxBehind is how many frames a follower may lag before it is sent a snapshot instead.
const maxBehind = 32

func newBroadcast() *broadcast { return &broadcast{changed: make(chan struct{})} }

// notify wakes every follower; b.mu is held.
func (b *broadcast) notify() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// setRoom replaces the room message.
func (b *broadcast) setRoom(m reply) {
	enc, _ := json.Marshal(m)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.room = enc
	b.roomVer++
	b.notify()
}

// publish is the producer's output (a driver's out): it records and fans out one reply.
func (b *broadcast) publish(m reply) error {
	enc, err := json.Marshal(m)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch m.Type {
	case "start":
		b.run++
		b.start, b.frames, b.state, b.end, b.id = enc, nil, lab.Update{}, nil, m.ID
		b.snap, b.snapN = nil, 0
	case "frame":
		b.frames = append(b.frames, enc)
		b.state.Merge(lab.Update{Progress: m.Progress, Refine: m.Refine, Summary: m.Summary, Series: m.Series})
	case "done", "error":
		if m.ID == b.id && b.start != nil {
			b.end = enc
		} else { // a request refused before it started: passes like busy
			b.extra = enc
			b.extraV++
		}
	default:
		b.extra = enc
		b.extraV++
	}
	b.notify()
	return nil
}

// cursor is how far one follower has got.
type cursor struct {
	roomVer, run, extraV int64
	frames               int
	ended                bool
}

// next returns the messages a follower at c has not been sent, and advances c; it returns the
// channel to wait on for more.
func (b *broadcast) next(c *cursor) ([][]byte, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out [][]byte
	if c.roomVer != b.roomVer && b.room != nil {
		out = append(out, b.room)
		c.roomVer = b.roomVer
	}
	if c.extraV != b.extraV && b.extra != nil {
		out = append(out, b.extra)
		c.extraV = b.extraV
	}
	if b.start != nil {
		if c.run != b.run {
			out = append(out, b.start)
			c.run, c.frames, c.ended = b.run, 0, false
		}
		if behind := len(b.frames) - c.frames; behind > maxBehind || (behind > 1 && c.frames == 0) {
			out = append(out, b.snapshot())
			c.frames = len(b.frames)
		}
		out = append(out, b.frames[c.frames:]...)
		c.frames = len(b.frames)
		if b.end != nil && !c.ended {
			out = append(out, b.end)
			c.ended = true
		}
	}
	return out, b.changed
}

// snapshot is the current run's state as one frame, encoded once per length of the run;
// b.mu is held.
func (b *broadcast) snapshot() []byte {
	if b.snap == nil || b.snapN != len(b.frames) {
		s := b.state
		b.snap, _ = json.Marshal(reply{Type: "frame", ID: b.id, Progress: s.Progress, Refine: s.Refine, Summary: s.Summary, Series: s.Series})
		b.snapN = len(b.frames)
	}
	return b.snap
}

// follow writes everything b publishes to write, from the current state on, until ctx ends or
// a write fails.
func (b *broadcast) follow(ctx context.Context, write func([]byte) error) error {
	var c cursor
	for {
		msgs, changed := b.next(&c)
		for _, m := range msgs {
			if err := write(m); err != nil {
				return err
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

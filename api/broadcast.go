package api

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/resilience-playground/playground/lab"
)

// broadcast fans one producer's replies out to many connections. Each reply is encoded once,
// and its websocket frame prepared (compressed) once, for every follower. Followers never take a lock: what they read is a
// view of the broadcast, replaced whole at each change (the frames of a run are appended,
// never rewritten), so a follower descheduled while reading delays no one, and the producer
// never waits for a follower. A follower that falls more than maxBehind frames behind is sent
// the run's state so far in one frame instead (as a late joiner is), never a queue; that
// frame is encoded once per length of the run, by the first follower that needs it.
type broadcast struct {
	mu          sync.Mutex            // serialises the producer's changes of view
	view        atomic.Pointer[bview] // what followers read
	roomVersion int64                 // the room version of the room message on show (mu)

	fold    sync.Mutex // guards the fold of the current run's frames and its encoding
	state   lab.Update
	foldRun int64 // the run state folds
	foldID  int64 // its request id
	foldN   int   // how many of its frames
	snap    *wire
	snapN   int // frames in snap
}

// bview is a broadcast's content at one moment. It is never modified once published.
type bview struct {
	room    *wire // the newest room message
	roomVer int64 // grows with each room message
	extra   *wire // a passing message (busy), replaced by the next
	extraV  int64
	run     int64   // grows with each run
	id      int64   // the current run's request id
	start   *wire   // the current run's start reply, nil before the first
	frames  []*wire // its frames; later views of the run share the array and append to it
	end     *wire   // its done or error reply, nil while it runs
	changed chan struct{}
}

// maxBehind is how many frames a follower may lag before it is sent a snapshot instead.
const maxBehind = 32

func newBroadcast() *broadcast {
	b := &broadcast{}
	b.view.Store(&bview{changed: make(chan struct{})})
	return b
}

// change publishes the view edit makes of a copy of the current one, and wakes every
// follower; b.mu is held.
func (b *broadcast) change(edit func(v *bview)) {
	old := b.view.Load()
	v := *old
	v.changed = make(chan struct{})
	edit(&v)
	b.view.Store(&v)
	close(old.changed)
}

// setRoom replaces the room message. A message of an older room version than the one on show
// is dropped: the room never moves back for its participants, whatever order its changes
// were shown in (see roomServer.showRoom).
func (b *broadcast) setRoom(m reply) {
	b2, _ := json.Marshal(m)
	enc := newWire(b2)
	b.mu.Lock()
	defer b.mu.Unlock()
	if m.Room != nil {
		if m.Room.Version < b.roomVersion {
			return
		}
		b.roomVersion = m.Room.Version
	}
	b.change(func(v *bview) { v.room, v.roomVer = enc, v.roomVer+1 })
}

// publish is the producer's output (a driver's out): it records and fans out one reply.
func (b *broadcast) publish(m reply) error {
	b2, err := json.Marshal(m)
	if err != nil {
		return err
	}
	enc := newWire(b2)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.change(func(v *bview) {
		switch m.Type {
		case "start":
			v.run++
			v.start, v.frames, v.end, v.id = enc, nil, nil, m.ID
			b.fold.Lock()
			b.state, b.foldRun, b.foldID, b.foldN, b.snap, b.snapN = lab.Update{}, v.run, m.ID, 0, nil, 0
			b.fold.Unlock()
		case "frame":
			v.frames = append(v.frames, enc)
			b.fold.Lock()
			b.state.Merge(lab.Update{Progress: m.Progress, Refine: m.Refine, Summary: m.Summary, Series: m.Series})
			b.foldN++
			b.fold.Unlock()
		case "done", "error":
			if m.ID == v.id && v.start != nil {
				v.end = enc
			} else { // a request refused before it started: passes like busy
				v.extra, v.extraV = enc, v.extraV+1
			}
		default:
			v.extra, v.extraV = enc, v.extraV+1
		}
	})
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
func (b *broadcast) next(c *cursor) ([]*wire, <-chan struct{}) {
	v := b.view.Load()
	var out []*wire
	if c.roomVer != v.roomVer && v.room != nil {
		out = append(out, v.room)
		c.roomVer = v.roomVer
	}
	if c.extraV != v.extraV && v.extra != nil {
		out = append(out, v.extra)
		c.extraV = v.extraV
	}
	if v.start == nil {
		return out, v.changed
	}
	if c.run != v.run {
		out = append(out, v.start)
		c.run, c.frames, c.ended = v.run, 0, false
	}
	if behind := len(v.frames) - c.frames; behind > maxBehind || (behind > 1 && c.frames == 0) {
		if snap, n, ok := b.snapshot(v.run); ok {
			out = append(out, snap)
			c.frames = n // the fold may be ahead of v: the frames it holds are not sent again
		}
	}
	if c.frames < len(v.frames) {
		out = append(out, v.frames[c.frames:]...)
		c.frames = len(v.frames)
	}
	if v.end != nil && !c.ended {
		out = append(out, v.end)
		c.ended = true
	}
	return out, v.changed
}

// snapshot returns run's state so far as one frame, and how many frames it folds; false if a
// newer run has started (the follower will be sent that one next).
func (b *broadcast) snapshot(run int64) (*wire, int, bool) {
	b.fold.Lock()
	defer b.fold.Unlock()
	if b.foldRun != run {
		return nil, 0, false
	}
	if b.snap == nil || b.snapN != b.foldN {
		s := b.state
		enc, _ := json.Marshal(reply{Type: "frame", ID: b.foldID, Progress: s.Progress, Refine: s.Refine, Summary: s.Summary, Series: s.Series})
		b.snap = newWire(enc)
		b.snapN = b.foldN
	}
	return b.snap, b.snapN, true
}

// follow writes everything b publishes to write, from the current state on, until ctx ends or
// a write fails. What was published before ctx ended is written before it returns: a run's
// done published as the room closes (a drain) is not lost to the order in which the two are
// seen.
//
// Each follower writes from its own goroutine, so a slow one delays no other, and is handed
// every message it has not been sent at once (write may send them in one write to the
// network). After each write it yields: with more followers than CPUs, those still missing a
// run's start or first frame write theirs before a follower ahead of them writes the next
// frame, so the last follower's first frame waits for everyone's first frame, not for
// everyone's run.
//
// side, if not nil, is a message of this follower's own beside the broadcast (a presenter's
// tally of answers): its newest message (nil for none) and a channel closed when it changes.
// It is written by the same loop, so a connection has one writer of what it follows.
func (b *broadcast) follow(ctx context.Context, write func([]*wire) error, side func() (*wire, <-chan struct{})) error {
	var (
		c        cursor
		sideSent *wire
	)
	for {
		msgs, changed := b.next(&c)
		var sideChanged <-chan struct{}
		if side != nil {
			m, ch := side()
			if sideChanged = ch; m != nil && m != sideSent {
				msgs, sideSent = append(msgs, m), m
			}
		}
		if len(msgs) > 0 {
			if err := write(msgs); err != nil {
				return err
			}
			runtime.Gosched()
		}
		select {
		case <-ctx.Done():
			if msgs, _ := b.next(&c); len(msgs) > 0 {
				_ = write(msgs) // the stream is closing: a failed write ends it as well
			}
			return ctx.Err()
		case <-changed:
		case <-sideChanged:
		}
	}
}

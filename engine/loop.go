package engine

import (
	"errors"
	"time"
)

// Event is one scheduled occurrence. Actor and Kind are the world's own: typically the index
// of the simulated client and what happens to it. The kernel only orders events.
type Event struct {
	At    time.Duration // virtual time since the start of the run
	Actor int32
	Kind  int32
	seq   uint64
}

// ErrBudget is what a world reports (wrapped) when [Loop.Exhausted] says its run delivered as
// many events as its budget allows with events still pending: a runaway simulation.
var ErrBudget = errors.New("engine: event budget exhausted")

// Loop is a discrete-event loop: a min-heap of events ordered by time, then by the order in
// which they were scheduled. The zero value is an empty loop at time 0 with no event budget.
//
// A world drives the loop itself:
//
//	for ev, ok := l.Step(); ok; ev, ok = l.Step() {
//		switch ev.Kind { ... l.After(d, ev.Actor, next) ... }
//	}
type Loop struct {
	now    time.Duration
	q      []Event
	seq    uint64
	steps  int64
	budget int64
	// delivered is true while q[0] is the event Step last returned. It is removed lazily: the
	// next At overwrites it and sifts once, rather than a pop and a push sifting twice, which
	// is the common case of a handler scheduling its actor's next event.
	delivered bool
}

// Reset empties the loop, rewinds the clock to 0 and sets the maximum number of events
// [Loop.Step] will deliver (0 means no limit). The queue's memory is kept for reuse.
func (l *Loop) Reset(budget int64) {
	l.now, l.q, l.seq, l.steps, l.budget, l.delivered = 0, l.q[:0], 0, 0, budget, false
}

// Now returns the virtual time of the event being handled.
func (l *Loop) Now() time.Duration { return l.now }

// Len returns the number of pending events.
func (l *Loop) Len() int {
	if l.delivered {
		return len(l.q) - 1
	}
	return len(l.q)
}

// Steps returns the number of events delivered since the last [Loop.Reset].
func (l *Loop) Steps() int64 { return l.steps }

// Exhausted reports whether the loop stopped because it hit its event budget.
func (l *Loop) Exhausted() bool { return l.budget > 0 && l.steps >= l.budget && l.Len() > 0 }

// At schedules an event for actor at virtual time t. A time in the past is moved to Now, so
// time never runs backwards.
func (l *Loop) At(t time.Duration, actor, kind int32) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	ev := Event{At: t, Actor: actor, Kind: kind, seq: l.seq}
	if l.delivered {
		l.delivered = false
		l.down(ev)
		return
	}
	l.q = append(l.q, ev)
	l.up(len(l.q) - 1)
}

// After schedules an event for actor d after Now.
func (l *Loop) After(d time.Duration, actor, kind int32) { l.At(l.now+d, actor, kind) }

// Step removes the earliest event, advances the clock to it and returns it. It returns false
// when no event is pending or the budget is spent.
func (l *Loop) Step() (Event, bool) {
	if l.delivered {
		l.delivered = false
		n := len(l.q) - 1
		last := l.q[n]
		l.q = l.q[:n]
		if n > 0 {
			l.down(last)
		}
	}
	if len(l.q) == 0 || (l.budget > 0 && l.steps >= l.budget) {
		return Event{}, false
	}
	ev := l.q[0]
	l.delivered = true
	l.now = ev.At
	l.steps++
	return ev, true
}

// arity is the heap's branching factor: a 4-ary heap is shallower than a binary one and its
// children share cache lines.
const arity = 4

func less(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}

func (l *Loop) up(i int) {
	q := l.q
	for i > 0 {
		p := (i - 1) / arity
		if !less(&q[i], &q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

// down places x, which replaces the element at the root, by moving the hole at the root
// down along the smallest children to a leaf and then sifting x up from there (Floyd's
// bottom-up heuristic). A rescheduled event is usually later than most pending ones, so it
// belongs near the bottom and this saves most of the comparisons against x.
func (l *Loop) down(x Event) {
	q := l.q
	n := len(q)
	i := 0
	for {
		first := arity*i + 1
		var c int
		switch {
		case first+3 < n:
			// A tournament of the four children, written so that the compiler can use
			// conditional moves: the comparisons here are unpredictable by nature.
			a := first + int(before(&q[first+1], &q[first]))
			b := first + 2 + int(before(&q[first+3], &q[first+2]))
			c = a
			if before(&q[b], &q[a]) == 1 {
				c = b
			}
		case first < n:
			c = first
			for k := first + 1; k < n; k++ {
				if less(&q[k], &q[c]) {
					c = k
				}
			}
		default:
			for i > 0 {
				p := (i - 1) / arity
				if !less(&x, &q[p]) {
					break
				}
				q[i] = q[p]
				i = p
			}
			q[i] = x
			return
		}
		q[i] = q[c]
		i = c
	}
}

// before is less as 0 or 1, computed without branches.
func before(a, b *Event) uint {
	return b2u(a.At < b.At) | b2u(a.At == b.At)&b2u(a.seq < b.seq)
}

func b2u(b bool) uint {
	var x uint
	if b {
		x = 1
	}
	return x
}

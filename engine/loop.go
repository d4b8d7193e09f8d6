package engine

import (
	"errors"
	"math/bits"
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

// Wheel geometry: wheelSize buckets of Resolution each.
const (
	wheelBits = 12
	wheelSize = 1 << wheelBits
	wheelMask = wheelSize - 1
)

// DefaultResolution is a Loop's bucket width until [Loop.SetResolution] says otherwise.
const DefaultResolution = time.Millisecond

// Loop is a discrete-event loop: events come out in order of time, then of the order in which
// they were scheduled. The zero value is an empty loop at time 0 with no event budget.
//
// A world drives the loop itself:
//
//	for ev, ok := l.Step(); ok; ev, ok = l.Step() {
//		switch ev.Kind { ... l.After(d, ev.Actor, next) ... }
//	}
//
// The queue is a calendar queue (R. Brown, "Calendar queues", CACM 31(10), 1988) in the form of
// a timing wheel: 4096 buckets of Resolution each cover the near future; each bucket keeps its
// few events sorted, a bitmap of non-empty buckets skips idle stretches in a few word
// operations, and events beyond the wheel's horizon wait in a 4-ary heap until the wheel
// reaches them. Scheduling and delivering are O(1) when the resolution suits the world's
// delays — a fraction of them, so that a bucket holds a handful of events; a resolution as
// coarse as the delays themselves puts hundreds of events in a bucket and costs about four
// times as much (BenchmarkLoop). Results never depend on the resolution, only speed does.
// The loop does not allocate once the buckets have grown to their working size.
type Loop struct {
	now    time.Duration
	seq    uint64
	steps  int64
	budget int64

	res     time.Duration
	cur     int64 // absolute index of the bucket being delivered
	head    int   // delivered prefix of the current bucket
	inWheel int
	buckets [wheelSize][]Event
	full    [wheelSize / 64]uint64 // bit i: bucket i is not empty
	far     []Event                // events at or beyond cur+wheelSize, a 4-ary min-heap
}

// SetResolution sets the width of the wheel's buckets (at least 1ns). Choose a fraction of the
// world's typical delay. It must be called while the loop is empty, after [Loop.Reset].
func (l *Loop) SetResolution(d time.Duration) {
	if d < 1 {
		d = 1
	}
	l.res = d
}

// Reset empties the loop, rewinds the clock to 0 and sets the maximum number of events
// [Loop.Step] will deliver (0 means no limit). The queue's memory and resolution are kept.
func (l *Loop) Reset(budget int64) {
	for w, word := range l.full {
		for word != 0 {
			b := w*64 + bits.TrailingZeros64(word)
			l.buckets[b] = l.buckets[b][:0]
			word &= word - 1
		}
		l.full[w] = 0
	}
	l.buckets[l.cur&wheelMask] = l.buckets[l.cur&wheelMask][:0]
	l.far = l.far[:0]
	l.now, l.seq, l.steps, l.budget = 0, 0, 0, budget
	l.cur, l.head, l.inWheel = 0, 0, 0
}

// Now returns the virtual time of the event being handled.
func (l *Loop) Now() time.Duration { return l.now }

// Len returns the number of pending events.
func (l *Loop) Len() int { return l.inWheel + len(l.far) }

// Steps returns the number of events delivered since the last [Loop.Reset].
func (l *Loop) Steps() int64 { return l.steps }

// Exhausted reports whether the loop stopped because it hit its event budget.
func (l *Loop) Exhausted() bool { return l.budget > 0 && l.steps >= l.budget && l.Len() > 0 }

func (l *Loop) bucketOf(t time.Duration) int64 {
	if l.res == 0 {
		l.res = DefaultResolution
	}
	return int64(t / l.res)
}

// At schedules an event for actor at virtual time t. A time in the past is moved to Now, so
// time never runs backwards.
func (l *Loop) At(t time.Duration, actor, kind int32) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	l.place(Event{At: t, Actor: actor, Kind: kind, seq: l.seq})
}

// place puts ev in its bucket, or in the far heap beyond the wheel's horizon.
func (l *Loop) place(ev Event) {
	b := l.bucketOf(ev.At)
	if b >= l.cur+wheelSize {
		l.far = append(l.far, ev)
		l.up(len(l.far) - 1)
		return
	}
	i := int(b & wheelMask)
	q := append(l.buckets[i], ev)
	// Keep the bucket sorted; ev is never earlier than an event already delivered from it.
	k := len(q) - 1
	for k > 0 && less(&ev, &q[k-1]) {
		q[k] = q[k-1]
		k--
	}
	q[k] = ev
	l.buckets[i] = q
	l.full[i>>6] |= 1 << (i & 63)
	l.inWheel++
}

// After schedules an event for actor d after Now.
func (l *Loop) After(d time.Duration, actor, kind int32) { l.At(l.now+d, actor, kind) }

// Step removes the earliest event, advances the clock to it and returns it. It returns false
// when no event is pending or the budget is spent.
func (l *Loop) Step() (Event, bool) {
	if l.Len() == 0 || (l.budget > 0 && l.steps >= l.budget) {
		return Event{}, false
	}
	for {
		i := int(l.cur & wheelMask)
		if q := l.buckets[i]; l.head < len(q) {
			ev := q[l.head]
			l.head++
			l.inWheel--
			l.now = ev.At
			l.steps++
			return ev, true
		}
		l.buckets[i], l.head = l.buckets[i][:0], 0
		l.full[i>>6] &^= 1 << (i & 63)
		if l.inWheel > 0 {
			l.cur = l.nextFull()
		} else {
			l.cur = l.bucketOf(l.far[0].At)
		}
		for len(l.far) > 0 && l.bucketOf(l.far[0].At) < l.cur+wheelSize {
			l.place(l.pop())
		}
	}
}

// nextFull returns the absolute index of the first non-empty bucket after cur; one exists.
func (l *Loop) nextFull() int64 {
	start := int((l.cur + 1) & wheelMask)
	w := start >> 6
	word := l.full[w] &^ (1<<(start&63) - 1)
	for n := 0; word == 0; n++ {
		w = (w + 1) & (wheelSize/64 - 1)
		word = l.full[w]
		if n > wheelSize/64 { // wrapped to the start word's low bits
			break
		}
	}
	pos := w*64 + bits.TrailingZeros64(word)
	return l.cur + 1 + int64((pos-start)&wheelMask)
}

func less(a, b *Event) bool {
	if a.At != b.At {
		return a.At < b.At
	}
	return a.seq < b.seq
}

// The far heap: a 4-ary min-heap by (At, seq).

func (l *Loop) up(i int) {
	q := l.far
	for i > 0 {
		p := (i - 1) / 4
		if !less(&q[i], &q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
}

func (l *Loop) pop() Event {
	q := l.far
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	l.far = q[:n]
	q = l.far
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		for k := c + 1; k < c+4 && k < n; k++ {
			if less(&q[k], &q[c]) {
				c = k
			}
		}
		if !less(&q[c], &q[i]) {
			break
		}
		q[i], q[c] = q[c], q[i]
		i = c
	}
	return top
}

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

// Wheel geometry: wheelSize buckets of the loop's resolution each.
const (
	wheelBits = 14
	wheelSize = 1 << wheelBits
	wheelMask = wheelSize - 1
)

// DefaultResolution is a Loop's bucket width until [Loop.SetResolution] says otherwise
// (rounded down to a power of two, as every resolution is).
const DefaultResolution = time.Millisecond

// defaultShift is log2 of DefaultResolution rounded down to a power of two.
const defaultShift = 19 // 2^19 ns = 524,288 ns

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
// a timing wheel: 16,384 buckets of a power-of-two resolution each cover the near future (so an
// event's bucket is a shift of its time, not a division); each bucket keeps its few events in
// a sorted list, a bitmap of non-empty buckets skips idle stretches in a few word operations,
// and events beyond the wheel's horizon wait in a 4-ary heap until the wheel reaches them.
// The lists' nodes live in one array with a free list, and a bucket is the 4-byte index of its
// first node: the queue's working set is under a hundred kilobytes whatever the spread of the
// events, and it stays in the CPU's caches. Scheduling and delivering are O(1) when the
// resolution suits the world's delays — a fraction of them, so that a bucket holds a handful of
// events; a resolution as coarse as the delays themselves puts hundreds of events in a bucket
// and costs several times as much (BenchmarkLoop). Results never depend on the resolution,
// only speed does. The loop does not allocate once its node array has grown to the most
// events pending at once, and [Loop.Reset] keeps it.
type Loop struct {
	now    time.Duration
	seq    uint64
	steps  int64
	budget int64

	shift   uint  // log2 of the bucket width in ns, xor defaultShift: the zero value is the default
	cur     int64 // absolute index of the bucket being delivered
	inWheel int
	heads   [wheelSize]int32       // first node of each bucket's list; 0: empty
	full    [wheelSize / 64]uint64 // bit i: bucket i is not empty
	nodes   []node                 // the lists' nodes; nodes[0] is unused, so that 0 means none
	free    int32                  // first node of the free list; 0: none
	far     []Event                // events at or beyond the wheel's horizon, a 4-ary min-heap
}

// node is an event in a bucket's list, or a free node.
type node struct {
	ev   Event
	next int32
}

// SetResolution sets the width of the wheel's buckets to the largest power of two of
// nanoseconds not above d (at least 1ns). Choose a fraction of the world's typical delay. It
// must be called while the loop is empty, after [Loop.Reset].
func (l *Loop) SetResolution(d time.Duration) {
	shift := 0
	if d > 1 {
		shift = bits.Len64(uint64(d)) - 1
	}
	l.shift = uint(shift) ^ defaultShift
}

// Resolution returns the width of the wheel's buckets.
func (l *Loop) Resolution() time.Duration { return 1 << (l.shift ^ defaultShift) }

// Reset empties the loop, rewinds the clock to 0 and sets the maximum number of events
// [Loop.Step] will deliver (0 means no limit). The queue's memory and resolution are kept.
func (l *Loop) Reset(budget int64) {
	for w, word := range l.full {
		for word != 0 {
			l.heads[w*64+bits.TrailingZeros64(word)] = 0
			word &= word - 1
		}
		l.full[w] = 0
	}
	l.nodes = l.nodes[:min(len(l.nodes), 1)]
	l.free = 0
	l.far = l.far[:0]
	l.now, l.seq, l.steps, l.budget = 0, 0, 0, budget
	l.cur, l.inWheel = 0, 0
}

// Now returns the virtual time of the event being handled.
func (l *Loop) Now() time.Duration { return l.now }

// Len returns the number of pending events.
func (l *Loop) Len() int { return l.inWheel + len(l.far) }

// Steps returns the number of events delivered since the last [Loop.Reset].
func (l *Loop) Steps() int64 { return l.steps }

// Exhausted reports whether the loop stopped because it hit its event budget.
func (l *Loop) Exhausted() bool { return l.budget > 0 && l.steps >= l.budget && l.Len() > 0 }

// bucketOf returns the absolute index of the bucket of time t (t ≥ 0).
func (l *Loop) bucketOf(t time.Duration) int64 { return int64(t) >> (l.shift ^ defaultShift) }

// At schedules an event for actor at virtual time t. A time in the past is moved to Now, so
// time never runs backwards.
func (l *Loop) At(t time.Duration, actor, kind int32) {
	if t < l.now {
		t = l.now
	}
	l.seq++
	l.place(Event{At: t, Actor: actor, Kind: kind, seq: l.seq})
}

// place puts ev in its bucket's list, or in the far heap beyond the wheel's horizon.
func (l *Loop) place(ev Event) {
	b := l.bucketOf(ev.At)
	if b >= l.cur+wheelSize {
		l.far = append(l.far, ev)
		l.up(len(l.far) - 1)
		return
	}
	n := l.free
	if n != 0 {
		l.free = l.nodes[n].next
	} else {
		if len(l.nodes) == 0 {
			l.nodes = append(l.nodes, node{}) // the unused node 0
		}
		n = int32(len(l.nodes))
		l.nodes = append(l.nodes, node{})
	}
	i := int(b & wheelMask)
	// Keep the list sorted: ev goes after every event not later than it.
	nodes := l.nodes
	p := &l.heads[i]
	for *p != 0 && !less(&ev, &nodes[*p].ev) {
		p = &nodes[*p].next
	}
	nodes[n] = node{ev: ev, next: *p}
	*p = n
	l.full[i>>6] |= 1 << (i & 63)
	l.inWheel++
}

// After schedules an event for actor d after Now.
func (l *Loop) After(d time.Duration, actor, kind int32) { l.At(l.now+d, actor, kind) }

// Step removes the earliest event, advances the clock to it and returns it. It returns false
// when no event is pending or the budget is spent.
func (l *Loop) Step() (Event, bool) {
	if l.inWheel+len(l.far) == 0 || (l.budget > 0 && l.steps >= l.budget) {
		return Event{}, false
	}
	for {
		i := int(l.cur & wheelMask)
		if n := l.heads[i]; n != 0 {
			nd := &l.nodes[n]
			ev := nd.ev
			l.heads[i] = nd.next
			nd.next = l.free
			l.free = n
			l.inWheel--
			l.now = ev.At
			l.steps++
			return ev, true
		}
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

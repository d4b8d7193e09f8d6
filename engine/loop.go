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

// Wheel geometry: wheelSize buckets of the loop's resolution each; beyond them, levels of
// spans slots each, a slot of level j covering wheelSize·spans^j buckets.
const (
	wheelBits = 14
	wheelSize = 1 << wheelBits
	wheelMask = wheelSize - 1
	spanBits  = 12
	spans     = 1 << spanBits
	spanMask  = spans - 1
	levels    = 2
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
// a hierarchical timing wheel (G. Varghese and T. Lauck, "Hashed and hierarchical timing
// wheels", SOSP 1987). 16,384 buckets of a power-of-two resolution each cover the near future
// (so an event's bucket is a shift of its time, not a division), and each bucket keeps its few
// events in a sorted list. Beyond the wheel's horizon, two levels of 4,096 slots — each slot of
// the first covering as much time as the whole wheel, each of the second as much as the whole
// first level — keep their events in unsorted lists, which move down a level when the wheel
// reaches them: an event is moved at most twice. Beyond those (some 2^38 buckets, years at
// the resolutions the labs use), events wait in a 4-ary heap. Bitmaps of non-empty buckets
// and slots skip idle stretches in a few word operations. The lists' nodes live in one array
// with a free list, and a bucket is the 4-byte indices of its first and last nodes: the
// queue's working set is a few hundred kilobytes whatever the spread of the events, and it
// stays in the CPU's caches. An event at or after its bucket's last one (events at the same
// instant, in particular, however many) is appended in O(1); others are inserted in order,
// which is O(1) when the resolution suits the world's delays — a fraction of them, so that a
// bucket holds a handful of events.
//
// The resolution adapts, as Brown's calendar queue resizes its days: when insertions walk more
// than a few nodes on average (clients in lockstep bunching their events in one bucket), the
// loop narrows its buckets by the power of two that shortens the walks enough, and when most
// events skip the wheel while its buckets stay nearly empty, it widens them by two; each
// change moves the pending events once, and the loop looks at most once per [adaptEvery]
// nodes walked or events that skipped the wheel. So scheduling and delivering an event costs
// a bounded amount of work whatever the spread of the events' times and whatever resolution
// the world chose ([Loop.SetResolution] sets the first): a world's events are a measure of
// its work. Results never depend on the resolution, only speed does. The loop does not
// allocate once its node array has grown to the most events pending at once, and
// [Loop.Reset] keeps it.
type Loop struct {
	now    time.Duration
	seq    uint64
	steps  int64
	budget int64

	shift   uint  // log2 of the bucket width in ns, xor defaultShift: the zero value is the default
	cur     int64 // absolute index of the bucket being delivered
	inWheel int
	pending int                    // events pending: in the wheel, the levels and the far heap
	heads   [wheelSize]int32       // first node of each bucket's list; 0: empty
	tails   [wheelSize]int32       // last node of each non-empty bucket's list
	full    [wheelSize / 64]uint64 // bit i: bucket i is not empty
	level   [levels]level
	nodes   []node  // the lists' nodes; nodes[0] is unused, so that 0 means none
	free    int32   // first node of the free list; 0: none
	far     []Event // events beyond the levels' horizon, a 4-ary min-heap

	// Adaptation (see adapt), counted since the last look at seq mark.
	walked  int64   // nodes sorted insertions walked past
	scanned int64   // bitmap words scanned for the wheel's next non-empty bucket
	mark    uint64  // seq at the last look
	rebuilt uint64  // seq at the last change of resolution
	calm    int     // looks to come without widening (after a narrowing)
	moving  []Event // scratch for moving the pending events to new buckets
	frozen  bool    // moving them: no look

	// The queue's own work since the last Reset (see Work): nodes walked by sorted
	// insertions, events moved beyond the wheel or to new buckets, bitmap words scanned.
	nWalked, nMoved, nScanned int64
}

// Work returns the work of the loop since the last [Loop.Reset], in events: each event
// delivered counts one, and the queue's own work beyond the common case counts what it costs
// beside that of a typical world's event (BenchmarkWork): a node walked by a sorted insertion
// an eighth, an event moved to a level beyond the wheel or to a new bucket a quarter, a bitmap
// word scanned for the next non-empty bucket a thirty-second. A world that counts its work in
// events counts Work instead of [Loop.Steps], so that its count follows its computing however
// its events are spread in time.
func (l *Loop) Work() int64 { return l.steps + l.nWalked/8 + l.nMoved/4 + l.nScanned/32 }

// level is one level of slots beyond the wheel: slot s of level j holds, unsorted, the events
// whose bucket b has b>>levelShift(j) == s.
type level struct {
	n     int
	next  int64 // the first non-empty slot, when known; -1 when not
	heads [spans]int32
	full  [spans / 64]uint64
}

// levelShift is log2 of the buckets a slot of level j covers.
func levelShift(j int) uint { return wheelBits + spanBits*uint(j) }

// node is an event in a bucket's or slot's list, or a free node.
type node struct {
	ev   Event
	next int32
}

// adaptEvery is how many nodes walked, or bitmap words scanned, make the loop look at its
// resolution again (see Loop).
const adaptEvery = 1 << 12

// Adaptation thresholds: nodes walked per scheduled event above which buckets are narrowed,
// and below which they may be widened, when finding the next event scans more than scanHigh
// bitmap words per event; looks without widening after a narrowing.
const (
	walkHigh  = 4
	walkLow   = 1
	scanHigh  = 2
	calmLooks = 16
)

// SetResolution sets the width of the wheel's buckets to the largest power of two of
// nanoseconds not above d (at least 1ns). Choose a fraction of the world's typical delay. It
// must be called while the loop is empty, after [Loop.Reset].
func (l *Loop) SetResolution(d time.Duration) {
	shift := 0
	if d > 1 {
		shift = bits.Len64(uint64(d)) - 1
	}
	l.shift = uint(shift) ^ defaultShift
	l.walked, l.scanned, l.mark, l.rebuilt, l.calm = 0, 0, l.seq, l.seq, 0
}

// Resolution returns the width of the wheel's buckets.
func (l *Loop) Resolution() time.Duration { return 1 << (l.shift ^ defaultShift) }

// Reset empties the loop, rewinds the clock to 0 and sets the maximum number of events
// [Loop.Step] will deliver (0 means no limit). The queue's memory and resolution are kept.
func (l *Loop) Reset(budget int64) {
	l.clear()
	l.far = l.far[:0]
	l.pending = 0
	l.now, l.seq, l.steps, l.budget = 0, 0, 0, budget
	l.cur = 0
	l.walked, l.scanned, l.mark, l.rebuilt, l.calm = 0, 0, 0, 0, 0
	l.nWalked, l.nMoved, l.nScanned = 0, 0, 0
}

// clear empties the wheel and the levels and frees every node.
func (l *Loop) clear() {
	for w, word := range l.full {
		for word != 0 {
			l.heads[w*64+bits.TrailingZeros64(word)] = 0
			word &= word - 1
		}
		l.full[w] = 0
	}
	for j := range l.level {
		lv := &l.level[j]
		for w, word := range lv.full {
			for word != 0 {
				lv.heads[w*64+bits.TrailingZeros64(word)] = 0
				word &= word - 1
			}
			lv.full[w] = 0
		}
		lv.n, lv.next = 0, -1
	}
	l.nodes = l.nodes[:min(len(l.nodes), 1)]
	l.free = 0
	l.inWheel = 0
}

// Now returns the virtual time of the event being handled.
func (l *Loop) Now() time.Duration { return l.now }

// Len returns the number of pending events.
func (l *Loop) Len() int { return l.pending }

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
	l.pending++
	ev := Event{At: t, Actor: actor, Kind: kind, seq: l.seq}
	if b := l.bucketOf(t); b < l.cur+wheelSize {
		l.link(l.alloc(ev), b)
		return
	}
	l.put(l.alloc(ev))
}

// After schedules an event for actor d after Now.
func (l *Loop) After(d time.Duration, actor, kind int32) { l.At(l.now+d, actor, kind) }

// alloc returns a node for ev.
func (l *Loop) alloc(ev Event) int32 {
	n := l.free
	if n != 0 {
		l.free = l.nodes[n].next
		l.nodes[n] = node{ev: ev}
		return n
	}
	if len(l.nodes) == 0 {
		l.nodes = append(l.nodes, node{}) // the unused node 0
	}
	l.nodes = append(l.nodes, node{ev: ev})
	return int32(len(l.nodes) - 1)
}

// put puts node n, whose next is 0, in its bucket's list, its slot's list in the first level
// whose horizon reaches it, or (freeing the node) the far heap.
func (l *Loop) put(n int32) {
	b := l.bucketOf(l.nodes[n].ev.At)
	if b < l.cur+wheelSize {
		l.link(n, b)
		return
	}
	for j := range l.level {
		sh := levelShift(j)
		if s := b >> sh; s < l.cur>>sh+spans {
			lv := &l.level[j]
			i := int(s & spanMask)
			l.nodes[n].next = lv.heads[i]
			lv.heads[i] = n
			lv.full[i>>6] |= 1 << (i & 63)
			if lv.n == 0 || lv.next >= 0 && s < lv.next {
				lv.next = s
			}
			lv.n++
			l.nMoved++
			return
		}
	}
	l.far = append(l.far, l.nodes[n].ev)
	l.up(len(l.far) - 1)
	l.nodes[n].next = l.free
	l.free = n
	l.nMoved++
}

// link puts node n, whose next is 0, in the list of bucket b, within the wheel's horizon.
func (l *Loop) link(n int32, b int64) {
	i := int(b & wheelMask)
	nodes := l.nodes
	l.inWheel++
	switch h := l.heads[i]; {
	case h == 0:
		l.heads[i], l.tails[i] = n, n
		l.full[i>>6] |= 1 << (i & 63)
	case !less(&nodes[n].ev, &nodes[l.tails[i]].ev): // at or after the last event: append
		nodes[l.tails[i]].next = n
		l.tails[i] = n
	default:
		// Keep the list sorted: the event goes after every event not later than it, and
		// before the last one.
		ev := &nodes[n].ev
		p := &l.heads[i]
		walked := int64(0)
		for !less(ev, &nodes[*p].ev) {
			p = &nodes[*p].next
			walked++
		}
		nodes[n].next = *p
		*p = n
		l.nWalked += walked
		if l.walked += walked; l.walked > adaptEvery && !l.frozen {
			l.adapt()
		}
	}
}

// Step removes the earliest event, advances the clock to it and returns it. It returns false
// when no event is pending or the budget is spent.
func (l *Loop) Step() (Event, bool) {
	// The common case, inlined: the current bucket holds the next event.
	if i := l.cur & wheelMask; l.heads[i] != 0 && l.budgetLeft() {
		return l.take(int(i)), true
	}
	return l.step()
}

// budgetLeft reports whether the budget lets the loop deliver another event: steps below a positive
// budget, or no budget (0 or less), in one comparison.
func (l *Loop) budgetLeft() bool { return uint64(l.steps) <= uint64(l.budget-1) }

// step is Step beyond its common case.
func (l *Loop) step() (Event, bool) {
	if l.Len() == 0 || !l.budgetLeft() {
		return Event{}, false
	}
	for {
		i := int(l.cur & wheelMask)
		if l.heads[i] != 0 {
			return l.take(i), true
		}
		l.full[i>>6] &^= 1 << (i & 63)
		l.advance()
	}
}

// take removes and returns the first event of bucket i, which has one, and advances the
// clock to it.
func (l *Loop) take(i int) Event {
	n := l.heads[i]
	nd := &l.nodes[n]
	ev := nd.ev
	l.heads[i] = nd.next
	nd.next = l.free
	l.free = n
	l.inWheel--
	l.pending--
	l.now = ev.At
	l.steps++
	return ev
}

// advance moves the wheel on from its empty current bucket to the next one that may hold the
// earliest event: the wheel's next non-empty bucket or, when one comes first (or the wheel is
// empty), the start of a level's next non-empty slot, whose events (and those of the lower
// levels' slots starting there) it moves down; or, everything else empty, the far heap's
// earliest event's. Events the levels' horizon reaches leave the far heap.
func (l *Loop) advance() {
	if (l.walked > adaptEvery || l.scanned > adaptEvery) && !l.frozen && l.adapt() {
		return // the current bucket is now that of Now, which may hold events
	}
	if l.level[0].n|l.level[1].n == 0 && l.inWheel > 0 { // the common case: the wheel's next bucket
		l.cur = l.nextFull()
		if len(l.far) > 0 {
			l.pull()
		}
		return
	}
	next, slot := int64(-1), false
	if l.inWheel > 0 {
		next = l.nextFull()
	}
	for j := range l.level {
		if l.level[j].n > 0 {
			if start := l.nextSlot(j) << levelShift(j); next < 0 || start <= next {
				next, slot = start, true // ties go to the higher level
			}
		}
	}
	if next < 0 {
		next = l.bucketOf(l.far[0].At)
	}
	l.cur = next
	if slot {
		frozen := l.frozen
		l.frozen = true // a list being moved is in no bucket or slot
		for j := len(l.level) - 1; j >= 0; j-- {
			if sh := levelShift(j); next&(1<<sh-1) == 0 {
				l.open(j, next>>sh)
			}
		}
		l.frozen = frozen
	}
	l.pull()
}

// pull moves the far heap's events that the levels' horizon reaches to a slot or the wheel.
func (l *Loop) pull() {
	sh := levelShift(len(l.level) - 1)
	for len(l.far) > 0 && l.bucketOf(l.far[0].At)>>sh < l.cur>>sh+spans {
		l.put(l.alloc(l.pop()))
	}
}

// open moves the events of slot s of level j, which starts at the current bucket, down.
func (l *Loop) open(j int, s int64) {
	lv := &l.level[j]
	i := int(s & spanMask)
	n := lv.heads[i]
	if n == 0 {
		return
	}
	lv.heads[i] = 0
	lv.full[i>>6] &^= 1 << (i & 63)
	if s == lv.next {
		lv.next = -1
	}
	for n != 0 {
		next := l.nodes[n].next
		l.nodes[n].next = 0
		lv.n--
		l.put(n)
		n = next
	}
}

// nextFull returns the absolute index of the first non-empty bucket after cur; one exists.
func (l *Loop) nextFull() int64 {
	start := int((l.cur + 1) & wheelMask)
	w := start >> 6
	word := l.full[w] &^ (1<<(start&63) - 1)
	for n := 0; word == 0; n++ {
		l.nScanned++
		l.scanned++
		w = (w + 1) & (wheelSize/64 - 1)
		word = l.full[w]
		if n > wheelSize/64 { // wrapped to the start word's low bits
			break
		}
	}
	pos := w*64 + bits.TrailingZeros64(word)
	return l.cur + 1 + int64((pos-start)&wheelMask)
}

// nextSlot returns the absolute index of level j's first non-empty slot after the one of the
// current bucket; one exists.
func (l *Loop) nextSlot(j int) int64 {
	lv := &l.level[j]
	if lv.next >= 0 {
		return lv.next
	}
	cur := l.cur >> levelShift(j)
	start := int((cur + 1) & spanMask)
	w := start >> 6
	word := lv.full[w] &^ (1<<(start&63) - 1)
	for n := 0; word == 0; n++ {
		l.nScanned++
		w = (w + 1) & (spans/64 - 1)
		word = lv.full[w]
		if n > spans/64 {
			break
		}
	}
	pos := w*64 + bits.TrailingZeros64(word)
	lv.next = cur + 1 + int64((pos-start)&spanMask)
	return lv.next
}

// adapt looks at the work since the last look and narrows or widens the buckets when it was
// more than events need (see Loop): by the power of two that brings the nodes walked per
// event back under walkHigh, or by two when the wheel's buckets are so sparse that finding
// the next event scans more than scanHigh bitmap words per event and insertions walked less
// than walkLow. It reports whether it changed the resolution. It changes it at most once per
// as many events scheduled as are pending, so that moving them costs at most one move per
// event.
func (l *Loop) adapt() bool {
	placed := float64(max(l.seq-l.mark, 1))
	walk, scan := float64(l.walked)/placed, float64(l.scanned)/placed
	l.walked, l.scanned, l.mark = 0, 0, l.seq
	if l.seq-l.rebuilt < uint64(l.Len()) {
		return false
	}
	shift := int(l.shift ^ defaultShift)
	switch {
	case walk > walkHigh && shift > 0:
		l.calm = calmLooks
		l.rebucket(max(shift-bits.Len64(uint64(walk*2/walkHigh))+1, 0))
		return true
	case l.calm > 0:
		l.calm--
	case scan > scanHigh && walk < walkLow && shift < 40:
		l.rebucket(shift + 1)
		return true
	}
	return false
}

// rebucket sets the buckets' width to 2^shift ns and moves the pending events to their new
// buckets and slots. Delivery order does not change.
func (l *Loop) rebucket(shift int) {
	moving := l.moving[:0]
	collect := func(heads []int32, full []uint64) {
		for w, word := range full {
			for word != 0 {
				for n := heads[w*64+bits.TrailingZeros64(word)]; n != 0; n = l.nodes[n].next {
					moving = append(moving, l.nodes[n].ev)
				}
				word &= word - 1
			}
		}
	}
	collect(l.heads[:], l.full[:])
	for j := range l.level {
		collect(l.level[j].heads[:], l.level[j].full[:])
	}
	l.clear()
	l.shift = uint(shift) ^ defaultShift
	l.cur = l.bucketOf(l.now)
	frozen := l.frozen
	l.frozen = true
	l.nMoved += int64(len(moving))
	for _, ev := range moving {
		l.put(l.alloc(ev))
	}
	l.pull()
	l.frozen = frozen
	l.walked, l.scanned, l.rebuilt = 0, 0, l.seq // moving is not scheduling
	clear(moving)
	l.moving = moving[:0]
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

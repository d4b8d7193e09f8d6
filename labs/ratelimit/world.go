package ratelimit

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/lab"
)

// copyUnits is the work of allocating a sliding log's copy, beside copying its entries (one
// unit per 8): a read that copies a short log costs about that much more than one that does
// not (BenchmarkWorkUnit).
const copyUnits = 4

// algorithmOptions are the algorithms the lab compares, in canonical order, each with its
// simulation in a scenario with a number of instances.
var algorithmOptions = lab.Options[func(s scenario, nInst int) world]{
	{Name: "fixed_window", Label: "Fixed window", New: func(s scenario, nInst int) world {
		r := ratelimit.NewFixedWindowRule(s.limitOf())
		return build(s, nInst, ratelimit.Rule[ratelimit.FixedWindowState](r), r, nil, 8)
	}},
	{Name: "sliding_log", Label: "Sliding log", New: func(s scenario, nInst int) world {
		r := ratelimit.NewSlidingLogRule(s.limitOf())
		return build(s, nInst, ratelimit.Rule[ratelimit.SlidingLogState](r), r,
			func(st ratelimit.SlidingLogState) int { return st.Len() }, 0)
	}},
	{Name: "sliding_window", Label: "Sliding window", New: func(s scenario, nInst int) world {
		r := ratelimit.NewSlidingWindowRule(s.limitOf(), 1)
		return build(s, nInst, ratelimit.Rule[ratelimit.SlidingWindowState](r), r, nil, 16)
	}},
	{Name: "subwindows", Label: "Sub-windows", New: func(s scenario, nInst int) world {
		r := ratelimit.NewSlidingWindowRule(s.limitOf(), s.subwindows)
		return build(s, nInst, ratelimit.Rule[ratelimit.SlidingWindowState](r), r, nil, 8*int64(r.SubWindows()+1))
	}},
	{Name: "token_bucket", Label: "Token bucket", New: func(s scenario, nInst int) world {
		r := ratelimit.NewTokenBucketRule(s.limitOf(), int(s.burst))
		return withBurst(build(s, nInst, ratelimit.Rule[ratelimit.TokenBucketState](r), nil, nil, 16), r.Burst())
	}},
	{Name: "leaky_queue", Label: "Leaky bucket (queue)", New: func(s scenario, nInst int) world {
		r := ratelimit.NewLeakyQueueRule(s.leakLimit(), int(s.burst))
		return withBurst(build(s, nInst, ratelimit.Rule[ratelimit.LeakyQueueState](r), nil, nil, 8), r.Capacity())
	}},
	{Name: "leaky_meter", Label: "Leaky bucket (meter)", New: func(s scenario, nInst int) world {
		r := ratelimit.NewLeakyMeterRule(s.leakLimit(), int(s.burst))
		return withBurst(build(s, nInst, ratelimit.Rule[ratelimit.LeakyMeterState](r), nil, nil, 16), r.Capacity())
	}},
	{Name: "gcra", Label: "GCRA", New: func(s scenario, nInst int) world {
		r := ratelimit.NewGCRARule(s.limitOf(), int(s.burst))
		return withBurst(build(s, nInst, ratelimit.Rule[ratelimit.GCRAState](r), nil, nil, 8), r.Burst())
	}},
}

// newWorld returns the simulation of the named algorithm in scenario s with nInst instances.
func newWorld(name string, s scenario, nInst int) world { return algorithmOptions.Make(name)(s, nInst) }

func withBurst(w world, burst int) world {
	w.base().sum.Burst = int64(burst)
	return w
}

// build returns the world of rule with the scenario's store semantics, falling back where
// the algorithm cannot run on the store: increments only need counters (else GET then SET),
// asynchronous propagation needs mergeable states (else local counters).
func build[S any](s scenario, nInst int, rule ratelimit.Rule[S], merger ratelimit.Merger[S], size func(S) int, bytes int64) *simWorld[S] {
	w := &simWorld[S]{
		core: core{limit: s.limit, w: int64(s.window), d: int64(s.duration), store: s.store,
			bins: make([]int64, nBins), bytes: bytes},
		rule: rule, merger: merger, size: size,
		lat: int64(s.latency), local: make([]S, nInst), skew: make([]int64, nInst),
	}
	if nInst > 1 {
		for i := range w.skew {
			w.skew[i] = int64(float64(s.skew) * float64(i) / float64(nInst-1))
		}
	}
	if q, ok := any(rule).(ratelimit.LeakyQueueRule); ok {
		w.queue = &q
	}
	var zero S
	w.stateUnits = int64(unsafe.Sizeof(zero)) / 64
	if size != nil {
		w.stateUnits += copyUnits // a sliding log's copy is allocated
	}
	switch s.store {
	case "incr":
		if c, err := rule.Counters(); err == nil {
			w.ctr, w.counts = c, map[int64]int64{}
		} else {
			w.core.store = "get_set"
		}
	case "async":
		if merger == nil {
			w.core.store = "local"
		}
	}
	return w
}

// simWorld is the world of one algorithm whose per-key state is S.
type simWorld[S any] struct {
	core
	rule   ratelimit.Rule[S]
	merger ratelimit.Merger[S] // nil when the state cannot be merged
	size   func(S) int         // entries a copy of the state holds (the sliding log), or nil
	lat    int64               // store round trip, ns
	skew   []int64             // each instance's clock offset, ns

	stateUnits int64                     // work units of copying a state (the 260-byte sliding window's, an allocated log's)
	queue      *ratelimit.LeakyQueueRule // the rule, when it is the leaky bucket queue
	waited     int64                     // queue: total wait of admitted requests, ns
	waits      int64                     // queue: admitted requests whose wait is counted

	store  S      // the shared state (atomic, racy, get_set, cas)
	ver    uint64 // its version (cas)
	local  []S    // each instance's state (local, async)
	last   int32  // instance of the latest request
	maxN   int    // longest sliding log seen
	ctr    ratelimit.Counters
	counts map[int64]int64 // incr: counter of each window index
	buf    []int64         // incr: the counters read
	pruned int64           // incr: the window of true time counters were last pruned in

	deliveries []delivery[S] // async, in order of arrival time
	dh         int

	events []event // delayed semantics: a heap by (at, seq)
	seq    uint64
	slab   []S     // states carried by write events
	free   []int32 // free slab slots
}

// delivery is one admission propagated to the other instances.
type delivery[S any] struct {
	at    int64
	from  int32
	delta S
}

// event kinds of the delayed semantics.
const (
	evWrite uint8 = iota // SET (racy, get_set) or compare-and-swap (cas) of slab[slot]
	evRead               // a compare-and-swap retry's GET
	evDecr               // DECR after a refusal (incr)
)

type event struct {
	at      int64
	seq     uint64
	g       int64 // request
	idx     int64 // incr: the counter; cas: the version expected
	slot    int32 // write: the state to write
	inst    int32
	kind    uint8
	attempt uint8
	wait    int64 // cas write of the leaky bucket queue: the request's wait in the queue
}

func (w *simWorld[S]) advance(b *batch, final bool) {
	// A chunk of the batch at a time, each accounted before the next, ending where the next
	// begins: the same decisions in the same order, but a world's queues (its pending
	// arrivals and decisions) hold a chunk's, not a slice's — a slice of a long run holds
	// hundreds of thousands of arrivals, and a run has eight worlds or hundreds.
	for lo := 0; ; lo += chunkArrivals {
		hi := min(lo+chunkArrivals, len(b.t))
		last := hi == len(b.t)
		c := b
		if lo > 0 || !last {
			c = &batch{t: b.t[lo:hi], inst: b.inst[lo:hi], first: b.first + int64(lo), end: b.end}
			if !last {
				c.end = b.t[hi]
			}
		}
		w.advanceChunk(c, final && last)
		if last {
			return
		}
	}
}

// chunkArrivals is how many arrivals of a batch a world decides before it accounts for them.
const chunkArrivals = 4096

func (w *simWorld[S]) advanceChunk(b *batch, final bool) {
	for _, t := range b.t {
		w.add(t)
	}
	switch w.core.store {
	case "atomic", "local", "async":
		w.direct(b, final)
	default:
		w.delayed(b, final)
	}
	end := b.end
	if final {
		end = math.MaxInt64
	}
	w.account(end, final)
}

func (w *simWorld[S]) initial() float64 { return w.estimate(0) }

func (w *simWorld[S]) summary() AlgorithmSummary {
	s := w.core.summary()
	if w.waits > 0 {
		s.MeanWaitMS = float64(w.waited) / float64(w.waits) / 1e6
	}
	return s
}

// update is the rule's Update of *s at now for one request. For the leaky bucket queue it
// also returns how long an admitted request waits before it leaves the queue for the
// service, and records the wait; for the other rules the wait is 0.
func (w *simWorld[S]) update(s *S, now int64) (bool, int64) {
	if w.queue == nil {
		return w.rule.Update(s, now, 1), 0
	}
	wait, ok := w.queue.Reserve(any(s).(*ratelimit.LeakyQueueState), now, 1)
	if ok {
		w.waited += int64(wait)
		w.waits++
	}
	return ok, int64(wait)
}

// decideState is the rule's Decide of s at now for one request, with the leaky bucket queue's
// wait before the request leaves (0 for the other rules).
func (w *simWorld[S]) decideState(s S, now int64) (S, int64, bool) {
	if w.queue == nil {
		next, ok := w.rule.Decide(s, now, 1)
		return next, 0, ok
	}
	wait, ok := w.queue.Reserve(any(&s).(*ratelimit.LeakyQueueState), now, 1)
	return s, int64(wait), ok
}

// direct decides each request as it arrives: one script at the store, or each instance's
// own state.
func (w *simWorld[S]) direct(b *batch, final bool) {
	for i, t := range b.t {
		w.samplesBefore(t)
		w.deliver(t)
		inst := w.instOf(b, i)
		now := t + w.skew[inst]
		var ok bool
		var wait int64 // the leaky bucket queue's: the request reaches the service at t + wait
		switch w.core.store {
		case "atomic":
			ok, wait = w.update(&w.store, now)
			w.ops++
			w.grew(w.store)
		case "local":
			ok, wait = w.update(&w.local[inst], now)
			w.grew(w.local[inst])
		case "async":
			ok = w.rule.Update(&w.local[inst], now, 1)
			w.grew(w.local[inst])
			if ok {
				w.ops++ // publish
				// The merges into the other instances, counted now so that a pilot run
				// sees the work its admissions cause later.
				w.work += int64(len(w.local)-1) * (2 + w.entries(w.local[inst])/4)
				w.deliveries = append(w.deliveries, delivery[S]{at: t + w.lat, from: inst, delta: w.merger.Delta(now, 1)})
			}
		}
		w.last = inst
		w.decideAt(b.first+int64(i), ok, t+wait)
		w.work += 2
	}
	if final {
		w.samplesBefore(math.MaxInt64)
	} else {
		w.samplesBefore(b.end)
	}
}

// deliver merges the propagated admissions due by t into the other instances' states.
func (w *simWorld[S]) deliver(t int64) {
	for w.dh < len(w.deliveries) && w.deliveries[w.dh].at <= t {
		d := w.deliveries[w.dh]
		w.deliveries[w.dh] = delivery[S]{}
		w.dh++
		for j := range w.local {
			if int32(j) != d.from {
				w.local[j] = w.merger.Merge(w.local[j], d.delta)
				w.ops++
			}
		}
	}
	if w.dh > compactAt && w.dh > len(w.deliveries)/2 {
		n := copy(w.deliveries, w.deliveries[w.dh:])
		clear(w.deliveries[n:])
		w.deliveries, w.dh = w.deliveries[:n], 0
	}
}

// entries returns the entries of a sliding log state, 0 for the fixed-size states.
func (w *simWorld[S]) entries(s S) int64 {
	if w.size == nil {
		return 0
	}
	return int64(w.size(s))
}

// grew records the sliding log's length.
func (w *simWorld[S]) grew(s S) {
	if w.size != nil {
		if n := w.size(s); n > w.maxN {
			w.maxN = n
			w.bytes = 8 * int64(n)
		}
	}
}

// samplesBefore takes the estimate at every sample and error sample before t, in order of
// time. Deliveries due by a sample are merged first.
func (w *simWorld[S]) samplesBefore(t int64) {
	for {
		s, isErr := w.nextSample(len(w.est), w.errEstN)
		if s >= t {
			return
		}
		v := w.estimate(s)
		if isErr {
			w.errEst = append(w.errEst, v)
			w.errEstN++
			w.pairErr()
		} else {
			w.est = append(w.est, v)
		}
	}
}

// estimate is the algorithm's own count at s: the shared state's, the counters', or the
// state of the instance that served the latest request.
func (w *simWorld[S]) estimate(s int64) float64 {
	switch w.core.store {
	case "local", "async":
		w.deliver(s)
		return w.rule.Estimate(w.local[w.last], s)
	case "incr":
		return w.ctr.Estimate(w.window(s), s)
	}
	return w.rule.Estimate(w.store, s)
}

// delayed runs the store semantics whose round trips take time: each request's first store
// operation reaches the store half a round trip after it arrives; events at the same time
// run in the order they were scheduled, earlier events before new arrivals.
func (w *simWorld[S]) delayed(b *batch, final bool) {
	half := w.lat / 2
	for i, t := range b.t {
		at := t + half
		w.runUntil(at)
		w.samplesBefore(at)
		w.first(b.first+int64(i), t, w.instOf(b, i))
	}
	if final {
		w.runUntil(math.MaxInt64)
		w.samplesBefore(math.MaxInt64)
	} else {
		w.runUntil(b.end + half)
		w.samplesBefore(b.end + half)
	}
}

// runUntil runs the scheduled events at or before at: at equal times, events scheduled
// earlier run before an arrival's first operation.
func (w *simWorld[S]) runUntil(at int64) {
	for len(w.events) > 0 && w.events[0].at <= at {
		ev := w.pop()
		w.samplesBefore(ev.at)
		w.run(ev)
	}
}

// first is request g's first store operation, at t + half a round trip.
func (w *simWorld[S]) first(g, t int64, inst int32) {
	at := t + w.lat/2
	now := t + w.skew[inst]
	w.work += 2
	switch w.core.store {
	case "incr":
		w.incr(g, at, now)
	default:
		w.read(g, at, now, inst, 1)
	}
}

// read is a GET at the store at time at, the decision on what it returned, and for an
// admission the write that follows a round trip later. The decision counts in the exact
// window when the attempt left the instance, half a round trip before at: the arrival for a
// first attempt, later for a compare-and-swap retry, which decides with its own clock.
func (w *simWorld[S]) read(g, at, now int64, inst int32, attempt uint8) {
	w.ops++
	w.work += 3 + w.entries(w.store)/8 + w.stateUnits
	next, wait, ok := w.decideState(w.store, now)
	if !ok {
		w.decideAt(g, false, at-w.lat/2)
		return
	}
	if w.core.store != "cas" {
		w.decideAt(g, true, at-w.lat/2+wait) // admitted now; the write may be lost
	}
	w.push(event{at: at + w.lat, g: g, kind: evWrite, slot: w.keep(next), idx: int64(w.ver), inst: inst, attempt: attempt, wait: wait})
}

// incr is INCR of the current counter and GET of the earlier ones, as one round trip, and
// the decision on the counts; a refusal is undone by a DECR a round trip later.
func (w *simWorld[S]) incr(g, at, now int64) {
	idx := w.ctr.Index(now)
	w.counts[idx]++
	counts := w.window(now)
	w.ops += int64(len(counts))
	w.work += 2 + int64(len(counts))
	ok := w.ctr.Admit(counts, now, 0)
	w.decide(g, ok)
	if !ok {
		w.push(event{at: at + w.lat, g: g, kind: evDecr, idx: idx})
	}
	w.prune(at - w.lat/2)
}

// window returns the counters Index(now)-Previous..Index(now), oldest first, in a buffer
// the next call reuses.
func (w *simWorld[S]) window(now int64) []int64 {
	idx := w.ctr.Index(now)
	if cap(w.buf) < w.ctr.Previous+1 {
		w.buf = make([]int64, w.ctr.Previous+1)
	}
	counts := w.buf[:w.ctr.Previous+1]
	for j := range counts {
		counts[j] = w.counts[idx-int64(w.ctr.Previous)+int64(j)]
	}
	return counts
}

// prune forgets, once per window of true time, the counters no request will read again:
// those more than Previous windows before true time's (clocks only run ahead of it here).
func (w *simWorld[S]) prune(trueNow int64) {
	idx := w.ctr.Index(trueNow)
	if idx <= w.pruned {
		return
	}
	w.pruned = idx
	cut := idx - int64(w.ctr.Previous) - 1
	for k := range w.counts {
		if k < cut {
			delete(w.counts, k)
		}
	}
}

// run runs one scheduled event (push counted its work).
func (w *simWorld[S]) run(ev event) {
	switch ev.kind {
	case evDecr:
		w.counts[ev.idx]--
		w.ops++
	case evRead:
		now := ev.at - w.lat/2 + w.skew[ev.inst]
		w.read(ev.g, ev.at, now, ev.inst, ev.attempt)
	case evWrite:
		next := w.slab[ev.slot]
		w.release(ev.slot)
		w.ops++
		if w.core.store != "cas" {
			w.store = next
			w.grew(next)
			return
		}
		// The attempt that read the state this swap writes left the instance a round trip
		// and a half before.
		attemptAt := ev.at - w.lat - w.lat/2
		if w.ver == uint64(ev.idx) {
			w.store, w.ver = next, w.ver+1
			w.grew(next)
			w.decideAt(ev.g, true, attemptAt+ev.wait)
			return
		}
		if ev.attempt >= maxAttempts {
			w.sum.GaveUp++
			w.decideAt(ev.g, false, attemptAt)
			return
		}
		// The failed swap's answer comes back half a round trip later; the next GET reaches
		// the store half a round trip after that.
		w.push(event{at: ev.at + w.lat, g: ev.g, kind: evRead, inst: ev.inst, attempt: ev.attempt + 1})
	}
}

// keep stores s in the slab and returns its slot.
func (w *simWorld[S]) keep(s S) int32 {
	if n := len(w.free); n > 0 {
		slot := w.free[n-1]
		w.free = w.free[:n-1]
		w.slab[slot] = s
		return slot
	}
	w.slab = append(w.slab, s)
	return int32(len(w.slab) - 1)
}

func (w *simWorld[S]) release(slot int32) {
	var zero S
	w.slab[slot] = zero
	w.free = append(w.free, slot)
}

// push schedules ev.
func (w *simWorld[S]) push(ev event) {
	ev.seq = w.seq
	w.seq++
	// The push, and the pop that will run it (a walk down the heap), counted now so that a
	// pilot run sees the work of the events its requests leave in flight.
	w.work += int64(bits.Len(uint(len(w.events))))/4 + 1 + int64(bits.Len(uint(len(w.events))))/2
	w.events = heapPush(w.events, ev)
}

// pop removes and returns the earliest event.
func (w *simWorld[S]) pop() event {
	ev, h := heapPop(w.events)
	w.events = h
	return ev
}

func (e *event) before(o *event) bool {
	return e.at < o.at || e.at == o.at && e.seq < o.seq
}

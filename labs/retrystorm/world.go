package retrystorm

import (
	"fmt"
	"math"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/algorithms/retry"
	"github.com/resilience-playground/playground/engine"
)

// The model (see the package doc): clients send requests as Poisson arrivals; each request is
// a sequence of attempts, each a call through zero or more middle tiers to the service, which
// queues it; an attempt fails when the service answers with an error or when no answer comes
// within the timeout; the client's retry policy decides whether a failed attempt is retried,
// after a backoff sleep. Every policy's world sees the same arrivals and, attempt by attempt,
// the same network delays, service times and failures (common random numbers): the draws of
// an attempt come from a stream of its own, keyed by its request and attempt number.

// world is one policy's simulation of a scenario: one event loop.
type world struct {
	env    *environment
	loop   engine.Loop
	pols   []retry.Policy  // by layer·clients + client
	rands  []engine.Source // their draws (throttling's)
	atSend bool            // the policy decides on a retry when it is due, after the sleep
	bo     backoff.Prepared

	reqs    []request
	free    ring // free request slots
	calls   []call
	freeC   []int32
	alive   int // requests not yet finished
	arrived int // client requests arrived

	// The service.
	busy     int  // workers busy (queue model) or calls in service (concurrency model)
	queue    fifo // calls waiting for a worker
	inFlight int  // calls at the service: waiting or in service

	// Clients' next arrival streams.
	arrivals []engine.Source
	draws    engine.Seeder // attempts' draws
	jitter   engine.Source

	// Totals over the run (the summary).
	tot totals
	// Samples: one per sampling interval, filled as the simulation passes their ends.
	samples []sample
	cur     sample
	sampled int // intervals closed
	latSum  float64
	latN    int64
	lat     latencies

	until time.Duration // the time the loop has been advanced to
	done  bool          // advanced to the end
}

// totals are a run's counts.
type totals struct {
	Requests   int64 // client requests arrived
	Succeeded  int64 // client requests that succeeded
	Failed     int64 // client requests that failed (their last attempt failed, or a retry was refused)
	Refused    int64 // client requests whose first try the policy refused (failed without a call)
	Attempts   int64 // calls that reached the service
	Retries    int64 // retries sent, at every layer
	Sent       int64 // calls sent by clients (the top layer)
	Served     int64 // calls the service completed (answered after working on them)
	Wasted     int64 // of them, calls whose caller had already given up on them
	Shed       int64 // calls the service refused at once (a full queue, or a deadline it could not meet)
	Timeouts   int64 // attempts that timed out, at every layer
	Errors     int64 // attempts answered with an error, at every layer
	LocalDeny  int64 // attempts (first tries or retries) the policies refused, at every layer
	MaxQueue   int   // most calls at the service at once
	WorkEvents int64
}

// sample is one sampling interval of a world: what happened in it, and the service's state at
// its end.
type sample struct {
	Requests  int64 // client requests arrived
	Attempts  int64 // calls that reached the service
	Served    int64 // calls the service completed
	Succeeded int64 // client requests that succeeded (goodput)
	Failed    int64 // client requests that failed
	InFlight  int   // calls at the service at the interval's end
	LatencyMS float64
}

// request is a request of a client, or of a middle tier serving a call.
type request struct {
	key     uint64        // the request's draws: attempt k's stream is keyed key·16+k
	start   time.Duration // when its first try was due
	prev    time.Duration // the backoff sleep before its current attempt (decorrelated jitter)
	parent  int32         // the request whose call this request serves, or -1 for a client's
	client  int32
	gen     uint32 // incarnation of the slot: events of an earlier one are ignored
	pGen    uint32 // the parent's incarnation
	cost    int32  // what the policy took to let the current attempt go
	pAtt    uint8  // the parent's attempt this request serves
	layer   uint8  // 0: a client's
	attempt uint8  // the current attempt, 0 for the first try
	waiting bool   // an attempt is in flight (not sleeping before the next)
	last    retry.Outcome
}

// call is an attempt at the service: 24 bytes, since a collapsed service may hold hundreds of
// thousands of them. Its draws (service time, failure, the answer's network delay) are drawn
// again from its key when needed.
type call struct {
	req      int32
	genAtt   uint32        // the caller's incarnation (genMask bits) and attempt (4 bits)
	deadline time.Duration // when its caller gives up on it
	key      uint64        // its request's key
}

func (c call) att() uint8  { return uint8(c.genAtt & 15) }
func (c call) gen() uint32 { return c.genAtt >> 4 }

// Event kinds.
const (
	evArrive  = iota // a client's next request arrives (actor: the client)
	evSend           // a request's attempt leaves its caller (actor: the request)
	evReach          // an attempt reaches its callee (actor: the request)
	evTimeout        // an attempt's timeout (actor: the request)
	evOK             // an attempt's answer, a success, reaches its caller (actor: the request)
	evErr            // an attempt's answer, an error, reaches its caller (actor: the request)
	evServed         // the service completes a call (actor: the call)
	evSample         // the end of a sampling interval
	evSlice          // the end of a slice of simulated time (advance)
)

// kind packs an event's kind with the attempt and incarnation (its low 23 bits) it is for.
func kind(k int, att uint8, gen uint32) int32 {
	return int32(k) | int32(att)<<4 | int32(gen&genMask)<<8
}

// genMask keeps the bits of an incarnation an event carries: a slot would have to be reused
// eight million times while an event for it waits to be mistaken for another (slots are
// reused in turn, the one freed longest ago first).
const genMask = 1<<23 - 1

func unpack(k int32) (int, uint8, uint32) { return int(k & 15), uint8(k >> 4 & 15), uint32(k) >> 8 }

// newWorld returns the world of policy p in environment e.
func newWorld(e *environment, p policyFor) *world {
	w := &world{env: e, bo: e.backoff, atSend: p.atSend}
	w.pols = make([]retry.Policy, e.Layers*e.Clients)
	w.rands = make([]engine.Source, len(w.pols))
	for i := range w.pols {
		engine.Seed(&w.rands[i], e.Seed, engine.Choices, uint64(i/e.Clients), uint64(i%e.Clients))
		w.pols[i] = p.new(&w.rands[i])
	}
	w.arrivals = make([]engine.Source, e.Clients)
	for c := range w.arrivals {
		engine.Seed(&w.arrivals[c], e.Seed, engine.Arrivals, uint64(c), 0)
	}
	w.draws = engine.NewSeeder(e.Seed, engine.Network, 0)
	w.loop.Reset(0)
	w.loop.SetResolution(time.Millisecond)
	for c := range e.Clients {
		if t, ok := w.nextArrival(c, 0); ok {
			w.loop.At(t, int32(c), evArrive)
		}
	}
	w.loop.At(e.SampleEnd(0), 0, evSample)
	w.samples = make([]sample, 0, e.Samples())
	return w
}

// nextArrival returns the time of client c's next request after t, or false when it would come
// at or after the end of the traffic. The gaps are exponential at the client's rate at the
// time (piecewise constant: a spike multiplies it over the trigger's window); a gap that
// crosses a change of rate is drawn again from the change, which the exponential's lack of
// memory allows.
func (w *world) nextArrival(c int, t time.Duration) (time.Duration, bool) {
	e := w.env
	src := &w.arrivals[c]
	for {
		rate, until := e.rateAt(t)
		gap := time.Duration(-math.Log(1-src.Float64()) / rate * 1e9)
		if t+gap < until || until >= e.Duration {
			t += gap
			return t, t < e.Duration
		}
		t = until
	}
}

// Work returns the work of the world so far, in the budget's units (one per event).
func (w *world) Work() int64 { return w.loop.Work() }

// advance runs the world until simulated time t. From the scenario's duration on no request
// arrives, and the world runs until every request has ended (so that no request is cut off
// in flight); the service's own work on calls nobody waits for is then left undone.
func (w *world) advance(t time.Duration) error {
	e := w.env
	final := t >= e.Duration
	if !final {
		w.loop.At(t, 0, evSlice)
	}
	for {
		ev, ok := w.loop.Step()
		if !ok {
			break
		}
		if ev.Kind == evSlice {
			break
		}
		w.handle(ev.Actor, ev.Kind, ev.At)
		if final && ev.At >= e.Duration && w.alive == 0 && w.sampled >= e.Samples() {
			break
		}
	}
	if w.loop.Exhausted() {
		return fmt.Errorf("retrystorm: %w", engine.ErrBudget)
	}
	w.until = t
	if final {
		w.done = true
	}
	return nil
}

func (w *world) handle(actor, k int32, now time.Duration) {
	switch kd, att, gen := unpack(k); kd {
	case evArrive:
		c := int(actor)
		if next, ok := w.nextArrival(c, now); ok {
			w.loop.At(next, actor, evArrive)
		}
		w.arrived++
		w.tot.Requests++
		w.cur.Requests++
		key := uint64(c)<<40 | uint64(w.arrived)
		r := w.newRequest(key, -1, 0, 0, int32(c), 0, now)
		w.firstTry(r, now)
	case evSend:
		r := &w.reqs[actor]
		if r.gen&genMask != gen || r.attempt != att {
			return
		}
		if w.atSend && !w.allowRetry(actor, now) {
			return
		}
		w.send(actor, now)
	case evReach:
		r := &w.reqs[actor]
		if r.gen&genMask != gen {
			// The caller's request has ended and its slot serves another: the call still
			// arrives; as the caller is gone, only the service's side of it matters.
			return
		}
		w.reach(actor, att, now)
	case evTimeout:
		r := &w.reqs[actor]
		if r.gen&genMask != gen || r.attempt != att || !r.waiting {
			return
		}
		w.tot.Timeouts++
		w.failed(actor, retry.Timeout, now)
	case evOK, evErr:
		r := &w.reqs[actor]
		if r.gen&genMask != gen || r.attempt != att || !r.waiting {
			return // answered after its timeout: ignored, as real clients do
		}
		if kd == evOK {
			w.succeeded(actor, now)
		} else {
			w.tot.Errors++
			w.failed(actor, retry.Failure, now)
		}
	case evServed:
		w.served(actor, now)
	case evSample:
		w.closeSample(now)
	}
}

// newRequest takes a free slot for a request — the one freed longest ago, so that events
// still due for its earlier incarnations are long gone — and returns it.
func (w *world) newRequest(key uint64, parent int32, pAtt uint8, pGen uint32, client int32, layer uint8, now time.Duration) int32 {
	var i int32
	if w.free.n > 0 {
		i = w.free.pop()
	} else {
		i = int32(len(w.reqs))
		w.reqs = append(w.reqs, request{})
	}
	r := &w.reqs[i]
	*r = request{key: key, start: now, parent: parent, pAtt: pAtt, pGen: pGen, client: client, layer: layer, gen: r.gen + 1}
	w.alive++
	return i
}

// ring is a FIFO of slot numbers.
type ring struct {
	buf     []int32
	head, n int
}

func (q *ring) push(i int32) {
	if q.n == len(q.buf) {
		grown := make([]int32, max(64, 2*len(q.buf)))
		for k := range q.n {
			grown[k] = q.buf[(q.head+k)%len(q.buf)]
		}
		q.buf, q.head = grown, 0
	}
	q.buf[(q.head+q.n)%len(q.buf)] = i
	q.n++
}

func (q *ring) pop() int32 {
	i := q.buf[q.head]
	q.head = (q.head + 1) % len(q.buf)
	q.n--
	return i
}

// release frees request i's slot.
func (w *world) release(i int32) {
	w.reqs[i].waiting = false
	w.reqs[i].gen++ // events still due for it find another incarnation
	w.free.push(i)
	w.alive--
}

// policy returns the policy of request r's caller: its client's, at its layer.
func (w *world) policy(r *request) retry.Policy {
	return w.pols[int(r.layer)*w.env.Clients+int(r.client)]
}

// firstTry sends request i's first try, unless its policy refuses it.
func (w *world) firstTry(i int32, now time.Duration) {
	r := &w.reqs[i]
	cost, ok := w.policy(r).Allow(int64(now), 0, retry.Success)
	if !ok {
		w.tot.LocalDeny++
		if r.parent < 0 {
			w.tot.Refused++
		}
		w.end(i, false, now)
		return
	}
	r.cost = int32(cost)
	w.send(i, now)
}

// send sends request i's current attempt: it reaches the callee after a network delay, and
// its caller gives up on it after the timeout.
func (w *world) send(i int32, now time.Duration) {
	r := &w.reqs[i]
	r.waiting = true
	if r.layer == 0 {
		w.tot.Sent++
	}
	if r.attempt > 0 {
		w.tot.Retries++
	}
	d := w.drawsOf(r.key, r.attempt)
	w.loop.At(now+d.out, i, kind(evReach, r.attempt, r.gen))
	w.loop.At(now+w.env.Timeout, i, kind(evTimeout, r.attempt, r.gen))
}

// attemptDraws are the random draws of one attempt.
type attemptDraws struct {
	out, back time.Duration // network delays there and back
	svc       time.Duration // service time (queue model)
	fail      float64       // compared with the outage's failure share
	jitter    float64       // the backoff's draw before the next attempt
}

// drawsOf returns the draws of attempt att of the request keyed key.
func (w *world) drawsOf(key uint64, att uint8) attemptDraws {
	var src engine.Source
	w.draws.Seed(&src, key<<4|uint64(att))
	e := w.env
	return attemptDraws{
		out:    expDraw(&src, e.Network),
		back:   expDraw(&src, e.Network),
		svc:    expDraw(&src, e.ServiceTime),
		fail:   src.Float64(),
		jitter: src.Float64(),
	}
}

// expDraw returns an exponential draw of mean m.
func expDraw(src *engine.Source, m time.Duration) time.Duration {
	u := src.Float64()
	if m <= 0 {
		return 0
	}
	return time.Duration(-math.Log(1-u) * float64(m))
}

// reach is attempt att of request i arriving at its callee: a middle tier starts a request of
// its own to serve it; the service takes it.
func (w *world) reach(i int32, att uint8, now time.Duration) {
	r := &w.reqs[i]
	e := w.env
	if int(r.layer) < e.Layers-1 {
		key := mixKey(r.key, att)
		child := w.newRequest(key, i, att, r.gen, r.client, r.layer+1, now)
		w.firstTry(child, now)
		return
	}
	d := w.drawsOf(r.key, att)
	w.tot.Attempts++
	w.cur.Attempts++
	c := call{req: i, genAtt: (r.gen&genMask)<<4 | uint32(att), deadline: now - d.out + e.Timeout, key: r.key}
	if e.Shed == "limit" && w.inFlight >= e.QueueLimit {
		w.shed(c, d, now)
		return
	}
	switch e.Service {
	case "concurrency":
		// Brooker's model: the call's latency is fixed as it arrives, growing with the calls
		// in flight, itself included.
		lat := e.ServiceTime + time.Duration(float64(w.busy+1)/e.capacityAt(now)*1e9)
		if e.Shed == "deadline" && now+lat > c.deadline {
			w.shed(c, d, now)
			return
		}
		w.busy++
		w.admit()
		w.loop.At(now+lat, w.newCall(c), evServed)
	default:
		w.admit()
		if w.busy < e.Workers {
			w.busy++
			w.loop.At(now+w.serviceTime(d.svc, now), w.newCall(c), evServed)
			return
		}
		w.queue.push(c)
	}
}

// mixKey derives the key of the request a middle tier makes to serve attempt att of the
// request keyed key.
func mixKey(key uint64, att uint8) uint64 {
	z := key*0x9e3779b97f4a7c15 + uint64(att) + 0x632be59bd9b4e019
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// serviceTime is the time a worker spends on a call drawn with mean e.ServiceTime, at now: the
// draw stretched by the ratio of the normal capacity to the capacity at now.
func (w *world) serviceTime(svc, now time.Duration) time.Duration {
	if f := w.env.capacityFactor(now); f != 1 {
		return time.Duration(float64(svc) / f)
	}
	return svc
}

// admit counts a call taken by the service.
func (w *world) admit() {
	w.inFlight++
	if w.inFlight > w.tot.MaxQueue {
		w.tot.MaxQueue = w.inFlight
	}
}

// shed answers call c, whose draws are d, at once with an error, without work.
func (w *world) shed(c call, d attemptDraws, now time.Duration) {
	w.tot.Shed++
	w.loop.At(now+d.back, c.req, kind(evErr, c.att(), c.gen()))
}

func (w *world) newCall(c call) int32 {
	if n := len(w.freeC); n > 0 {
		i := w.freeC[n-1]
		w.freeC = w.freeC[:n-1]
		w.calls[i] = c
		return i
	}
	w.calls = append(w.calls, c)
	return int32(len(w.calls) - 1)
}

// fifo is the service's queue of calls: a list of chunks, so that a queue of a million calls
// grows without copying them (a ring that doubles would hold its old array and the new one,
// three times the calls, as it grows).
type fifo struct {
	chunks [][]call // chunks[0][head:] are the oldest calls; the last chunk fills up to cap
	head   int
	n      int
	spare  []call // a chunk emptied, kept for reuse
}

const chunkCalls = 1024

func (q *fifo) push(c call) {
	if k := len(q.chunks); k == 0 || len(q.chunks[k-1]) == chunkCalls {
		next := q.spare
		q.spare = nil
		if next == nil {
			next = make([]call, 0, chunkCalls)
		}
		q.chunks = append(q.chunks, next)
	}
	k := len(q.chunks) - 1
	q.chunks[k] = append(q.chunks[k], c)
	q.n++
}

func (q *fifo) pop() call {
	c := q.chunks[0][q.head]
	q.head++
	q.n--
	if q.head == len(q.chunks[0]) && (q.head == chunkCalls || q.n == 0) {
		q.spare = q.chunks[0][:0]
		q.chunks[0] = nil
		q.chunks = q.chunks[1:]
		q.head = 0
	}
	return c
}

// served is the service completing call ci: it answers, and a worker takes the next call
// waiting (the queue model), skipping those whose callers have given up when it sheds by
// deadline.
func (w *world) served(ci int32, now time.Duration) {
	c := w.calls[ci]
	w.freeC = append(w.freeC, ci)
	w.busy--
	w.inFlight--
	w.tot.Served++
	w.cur.Served++
	if now > c.deadline {
		w.tot.Wasted++
	}
	d := w.drawsOf(c.key, c.att())
	k := evOK
	if w.env.inOutage(now) && d.fail < w.env.Failure {
		k = evErr
	}
	w.loop.At(now+d.back, c.req, kind(k, c.att(), c.gen()))
	if w.env.Service == "concurrency" {
		return
	}
	for w.queue.n > 0 && w.busy < w.env.Workers {
		nc := w.queue.pop()
		nd := w.drawsOf(nc.key, nc.att())
		if w.env.Shed == "deadline" && now >= nc.deadline {
			w.inFlight--
			w.shed(nc, nd, now)
			continue
		}
		w.busy++
		w.loop.At(now+w.serviceTime(nd.svc, now), w.newCall(nc), evServed)
	}
}

// succeeded ends request i's current attempt with a success.
func (w *world) succeeded(i int32, now time.Duration) {
	r := &w.reqs[i]
	w.policy(r).Record(int64(now), int(r.attempt), retry.Success, int(r.cost))
	w.end(i, true, now)
}

// failed ends request i's current attempt with outcome o: the request retries if its attempts
// are not used up and its policy lets it, after a backoff sleep, or fails. A policy that
// decides when the retry is due (atSend) is asked then.
func (w *world) failed(i int32, o retry.Outcome, now time.Duration) {
	r := &w.reqs[i]
	w.policy(r).Record(int64(now), int(r.attempt), o, int(r.cost))
	r.waiting, r.last = false, o
	if int(r.attempt) >= w.env.Retries {
		w.end(i, false, now)
		return
	}
	d := w.drawsOf(r.key, r.attempt)
	r.attempt++
	if !w.atSend && !w.allowRetry(i, now) {
		return
	}
	sleep := w.bo.Sleep(int(r.attempt), r.prev, d.jitter)
	r.prev = sleep
	if sleep == 0 {
		if w.atSend && !w.allowRetry(i, now) {
			return
		}
		w.send(i, now)
		return
	}
	w.loop.At(now+sleep, i, kind(evSend, r.attempt, r.gen))
}

// allowRetry asks request i's policy for its current attempt, a retry: when refused, the
// request ends, failed.
func (w *world) allowRetry(i int32, now time.Duration) bool {
	r := &w.reqs[i]
	cost, ok := w.policy(r).Allow(int64(now), int(r.attempt), r.last)
	if !ok {
		w.tot.LocalDeny++
		w.end(i, false, now)
		return false
	}
	r.cost = int32(cost)
	return true
}

// end ends request i: a client's is counted; a middle tier's answers its caller.
func (w *world) end(i int32, ok bool, now time.Duration) {
	r := &w.reqs[i]
	if r.parent < 0 {
		if ok {
			w.tot.Succeeded++
			w.cur.Succeeded++
			lat := float64(now-r.start) / 1e6
			w.latSum += lat
			w.latN++
			w.lat.add(lat)
		} else {
			w.tot.Failed++
			w.cur.Failed++
		}
	} else {
		k := evErr
		if ok {
			k = evOK
		}
		d := w.drawsOf(mixKey(r.key, 0xff), 0) // the middle tier's answer travels back
		w.loop.At(now+d.back, r.parent, kind(k, r.pAtt, r.pGen))
	}
	w.release(i)
}

// closeSample ends the current sampling interval.
func (w *world) closeSample(now time.Duration) {
	if w.sampled >= w.env.Samples() {
		return
	}
	w.cur.InFlight = w.inFlight
	if w.latN > 0 {
		w.cur.LatencyMS = w.latSum / float64(w.latN)
	}
	w.samples = append(w.samples, w.cur)
	w.cur, w.latSum, w.latN = sample{}, 0, 0
	w.sampled++
	if w.sampled < w.env.Samples() {
		w.loop.At(w.env.SampleEnd(w.sampled), 0, evSample)
	}
}

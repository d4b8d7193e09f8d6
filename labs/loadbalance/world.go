package loadbalance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/resilience-playground/playground/algorithms/balance"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
)

// The datacenter model. Clients send requests as Poisson processes; each request has a cost in
// CPU time; backends have a few cores each, serve their queue first come first served, and run
// at a speed set by their machine, their antagonists and whether they are warming up after a
// restart. Every client picks, request by request, a backend of its subset with its own picker
// of the policy simulated. There is no network delay: the chapter's effects come from costs,
// capacities and what each client can see, not from the wire.

// Fixed parts of the model.
const (
	cores           = 8                      // worker cores per backend
	meanCost        = 400 * time.Millisecond // mean CPU time of a query on a machine of speed 1
	antagonistSpan  = 10 * time.Second       // an antagonist stays this long (or goes away)
	antagonistSlow  = 0.2                    // most an antagonist slows its backend
	errorWindow     = time.Second            // "recent" errors: this window and the one before
	warmSlowdown    = 0.5                    // speed while warming up after a restart
	errorPenalty    = 1                      // weighted round robin's error penalty (gRPC's default)
	latencyBuckets  = 16                     // latency histogram buckets per octave
	latencyOctaves  = 48                     // from 1ns to about 3 days
	scanPerWorkUnit = 8                      // backends measured or scored per event's worth of work (see Work)
	pickScan        = 16                     // backends a picker reads per event's worth of work
	connsPerEvent   = 32                     // connections set up per event's worth of work
	cachedConns     = 1 << 16                // connections above which requests miss the CPU's caches (about a megabyte)
	queueLimit      = 100                    // requests a backend keeps waiting for a core; it refuses more
	workScale       = 4                      // units of the cost model per event: one unit is some 30–60 ns of computing, about one event of the backoff lab
)

// Event kinds.
const (
	kindArrive   int32 = iota // a client's next request (actor: client)
	kindComplete              // a request finishes (actor: request slot)
	kindSample                // the end of a sampling interval (actor: sample index)
	kindLame                  // the event's backends enter lame duck state
	kindStop                  // the event's backends stop, failing what they still hold
	kindRestart               // they restart and warm up
)

// config is one simulation: a policy over a fixed set of subsets in one environment.
type config struct {
	Policy      string
	CountErrors bool
	Env         *environment
}

// environment is everything the policies of one scenario share: subsets, machines, clients' rates,
// the event. Its random draws come from the scenario's seed only, so every policy sees the
// same environment and the same requests (common random numbers).
type environment struct {
	Seed      uint64
	Clients   int
	Backends  int
	Starts    []int32 // client c's subset is Conns[Starts[c]:Starts[c+1]]
	Conns     []int32 // backend of each connection
	Speed     []float64
	Rate      []float64 // requests per second, per client
	CostMin   float64   // cheapest query, ns of CPU at speed 1
	CostRatio float64   // most expensive / cheapest
	Antag     float64   // share of backends with an antagonist at any time
	MaxActive int
	Failing   []bool // fail-fast backends
	Duration  time.Duration
	Sample    time.Duration // sampling interval
	Event     string
	Affected  []int32 // backends the event acts on
	EventAt   time.Duration
	Grace     time.Duration // lame duck lasts this long before the stop
	Down      time.Duration // a stopped backend restarts after this long
	Warm      time.Duration // and runs slower for this long
}

// Samples returns the number of sampling intervals.
func (e *environment) Samples() int { return int((e.Duration + e.Sample - 1) / e.Sample) }

// SampleEnd returns the end of sampling interval k.
func (e *environment) SampleEnd(k int) time.Duration {
	return min(time.Duration(k+1)*e.Sample, e.Duration)
}

type request struct {
	conn    int32
	arrival time.Duration
	start   time.Duration // when it got a core
	cost    float64       // CPU time, ns at speed 1
	epoch   int32         // the backend's epoch when it was accepted
	next    int32         // next in the backend's queue, or in the free list
	queued  bool
	live    bool
}

type conn struct {
	backend int32
	active  int32
	errWin  int32 // window errCur counts
	errCur  int32
	errPrev int32
}

type backend struct {
	busy        int
	qHead       int32 // queue of requests waiting for a core
	qTail       int32
	qLen        int
	acc         float64 // busy core-nanoseconds up to last
	last        time.Duration
	sampleAcc   float64
	served      int64 // in this interval
	errs        int64
	report      balance.Report
	epoch       int32
	lame, down  bool
	warmUntil   time.Duration
	antagWindow int64 // window antagFactor is for, or -1
	antagFactor float64
}

type client struct {
	arrivals, costs, choices engine.Source
	picker                   balance.Picker
}

// sample is what one sampling interval measured: the spread of utilisation over the backends
// that were up, and the errors.
type sample struct {
	T                float64 // end of the interval, s
	Min, Median, Max float64 // utilisation, %
	Errors           int64
}

// world is one simulation. It is not safe for concurrent use.
type world struct {
	cfg      config
	env      *environment
	loop     engine.Loop
	clients  []client
	conns    []conn
	backends []backend
	reqs     []request
	free     int32
	view     subsetView
	sampled  int // sampling intervals done
	utils    []float64
	ready    bool // set up (setUp)
	done     bool

	// Outcome so far.
	Samples   []sample
	Requests  int64
	Errors    int64 // all failed requests
	Rejected  int64 // no backend of the subset available
	FailFast  int64 // answered with an error by a fail-fast backend
	Stopped   int64 // failed by an abrupt stop (or the end of a lame duck period)
	Shed      int64 // refused by an overloaded backend (queue full)
	Scanned   int64 // backends read by pickers that read every backend of the subset
	latency   [latencyOctaves * latencyBuckets]int64
	succeeded int64
	busyTime  int64 // the summed latency of the requests that succeeded, ns
	waitTime  int64 // the part of busyTime they spent waiting for a core, ns
	errSample int64
}

// subsetView is a client's subset as its picker sees it.
type subsetView struct {
	w     *world
	first int32
	n     int
	now   time.Duration
}

func (v *subsetView) Len() int { return v.n }

func (v *subsetView) Available(i int) bool {
	c := &v.w.conns[v.first+int32(i)]
	b := &v.w.backends[c.backend]
	return !b.lame && !b.down && int(c.active) < v.w.env.MaxActive
}

func (v *subsetView) Active(i int) int { return int(v.w.conns[v.first+int32(i)].active) }

func (v *subsetView) RecentErrors(i int) int {
	c := &v.w.conns[v.first+int32(i)]
	win := int32(v.now / errorWindow)
	switch win - c.errWin {
	case 0:
		return int(c.errCur + c.errPrev)
	case 1:
		return int(c.errCur)
	}
	return 0
}

func (v *subsetView) Report(i int) balance.Report {
	return v.w.backends[v.w.conns[v.first+int32(i)].backend].report
}

// scans reports whether a policy's picker reads every backend of the subset per pick.
func scans(policy string) bool { return policy == "least_loaded" || policy == "weighted" }

// newWorld returns a world at time 0 for cfg. Its clients, connections, backends and first
// events are set up by its first Advance, so that a run's worlds are set up side by side, each
// by the worker that simulates it, rather than one after the other before any simulates.
func newWorld(cfg config) *world {
	w := &world{cfg: cfg, env: cfg.Env, free: -1}
	w.view.w = w
	return w
}

// setUp makes the world's clients, connections and backends and schedules its first events.
func (w *world) setUp() {
	env := w.env
	cfg := w.cfg
	w.ready = true
	w.Samples = make([]sample, 0, env.Samples())
	w.clients = make([]client, env.Clients)
	w.conns = make([]conn, len(env.Conns))
	for i, b := range env.Conns {
		w.conns[i].backend = b
	}
	w.backends = make([]backend, env.Backends)
	for i := range w.backends {
		w.backends[i].qHead, w.backends[i].qTail = -1, -1
		w.backends[i].antagWindow = -1
	}
	w.loop.Reset(0)
	// A handful of events a bucket: buckets are then reused every few seconds of simulated
	// time instead of each growing once.
	rate := 0.0
	for _, r := range env.Rate {
		rate += 2 * r
	}
	res := meanCost / 8
	if rate > 0 {
		res = min(res, time.Duration(4/rate*1e9))
	}
	w.loop.SetResolution(max(res, time.Microsecond))
	for c := range w.clients {
		cl := &w.clients[c]
		engine.Seed(&cl.arrivals, env.Seed, engine.Arrivals, 0, uint64(c))
		engine.Seed(&cl.costs, env.Seed, engine.Costs, 0, uint64(c))
		engine.Seed(&cl.choices, env.Seed, engine.Choices, 1, uint64(c))
		cl.picker = newPicker(cfg.Policy, cfg.CountErrors, &cl.choices)
		if env.Rate[c] > 0 && env.Starts[c+1] > env.Starts[c] {
			w.loop.At(w.interarrival(c), int32(c), kindArrive)
		}
	}
	for k := range env.Samples() {
		w.loop.At(env.SampleEnd(k), int32(k), kindSample)
	}
	if env.Event != "none" && len(env.Affected) > 0 && env.EventAt < env.Duration {
		if env.Event == "lame_duck" {
			w.loop.At(env.EventAt, 0, kindLame)
			w.loop.At(env.EventAt+env.Grace, 0, kindStop)
			w.loop.At(env.EventAt+env.Grace+env.Down, 0, kindRestart)
		} else {
			w.loop.At(env.EventAt, 0, kindStop)
			w.loop.At(env.EventAt+env.Down, 0, kindRestart)
		}
	}
}

// newPicker returns a client's picker of the named policy.
func newPicker(policy string, countErrors bool, src *engine.Source) balance.Picker {
	return policyOptions.Make(policy)(countErrors, src)
}

// interarrival draws client c's next gap between requests.
func (w *world) interarrival(c int) time.Duration {
	u := w.clients[c].arrivals.Float64()
	return time.Duration(-math.Log1p(-u) / w.env.Rate[c] * 1e9)
}

// cost draws the CPU time (ns at speed 1) of client c's next request: log-uniform between the
// cheapest and CostRatio times that.
func (w *world) cost(c int) float64 {
	u := w.clients[c].costs.Float64()
	return w.env.CostMin * math.Pow(w.env.CostRatio, u)
}

// speed returns backend b's speed at now.
func (w *world) speed(b int32, now time.Duration) float64 {
	be := &w.backends[b]
	s := w.env.Speed[b]
	if now < be.warmUntil {
		s *= warmSlowdown
	}
	if w.env.Antag > 0 {
		win := int64(now / antagonistSpan)
		if win != be.antagWindow {
			var src engine.Source
			engine.Seed(&src, w.env.Seed, engine.Choices, 2+uint64(win), uint64(b))
			be.antagWindow, be.antagFactor = win, 1
			if src.Float64() < w.env.Antag {
				be.antagFactor = 1 - antagonistSlow*src.Float64()
			}
		}
		s *= be.antagFactor
	}
	return s
}

// integrate brings backend b's busy time up to now.
func (w *world) integrate(b *backend, now time.Duration) {
	b.acc += float64(b.busy) * float64(now-b.last)
	b.last = now
}

// Advance simulates until sampling interval k (0-based, exclusive) has been measured, or to the
// end when k is beyond the last. It returns ctx's error if ctx ends first.
func (w *world) Advance(ctx context.Context, k int) error {
	if !w.ready {
		w.setUp()
	}
	k = min(k, w.env.Samples())
	l := &w.loop
	for w.sampled < k {
		ev, ok := l.Step()
		if !ok {
			return fmt.Errorf("loadbalance: the simulation ran out of events at sample %d", w.sampled)
		}
		if l.Steps()&0x3fff == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		now := l.Now()
		switch ev.Kind {
		case kindArrive:
			w.arrive(int(ev.Actor), now)
		case kindComplete:
			w.complete(ev.Actor, now)
		case kindSample:
			w.sample(int(ev.Actor), now)
		case kindLame:
			for _, b := range w.env.Affected {
				w.backends[b].lame = true
			}
		case kindStop:
			w.stop(now)
		case kindRestart:
			for _, b := range w.env.Affected {
				be := &w.backends[b]
				be.lame, be.down = false, false
				be.warmUntil = now + w.env.Warm
			}
		}
	}
	if w.sampled == w.env.Samples() {
		w.done = true
	}
	return nil
}

// Done reports whether the simulation has reached its duration.
func (w *world) Done() bool { return w.done }

func (w *world) arrive(c int, now time.Duration) {
	env := w.env
	if next := now + w.interarrival(c); next < env.Duration {
		w.loop.At(next, int32(c), kindArrive)
	}
	cost := w.cost(c)
	w.Requests++
	cl := &w.clients[c]
	w.view.first, w.view.n, w.view.now = env.Starts[c], int(env.Starts[c+1]-env.Starts[c]), now
	if scans(w.cfg.Policy) {
		w.Scanned += int64(w.view.n)
	}
	i := cl.picker.Pick(&w.view)
	if i < 0 {
		w.Rejected++
		w.fail()
		return
	}
	ci := w.view.first + int32(i)
	cn := &w.conns[ci]
	bi := cn.backend
	be := &w.backends[bi]
	if env.Failing[bi] {
		w.FailFast++
		be.errs++
		w.noteError(cn, now)
		w.fail()
		return
	}
	if be.busy >= cores && be.qLen >= queueLimit {
		w.Shed++
		be.errs++
		w.noteError(cn, now)
		w.fail()
		return
	}
	cn.active++
	r := w.alloc()
	w.reqs[r] = request{conn: ci, arrival: now, cost: cost, epoch: be.epoch, next: -1, live: true}
	if be.busy < cores {
		w.start(bi, r, cost, now)
		return
	}
	// Wait for a core.
	w.reqs[r].queued = true
	be.qLen++
	if be.qTail < 0 {
		be.qHead = r
	} else {
		w.reqs[be.qTail].next = r
	}
	be.qTail = r
}

func (w *world) fail() {
	w.Errors++
	w.errSample++
}

func (w *world) noteError(cn *conn, now time.Duration) {
	win := int32(now / errorWindow)
	switch win - cn.errWin {
	case 0:
	case 1:
		cn.errPrev, cn.errCur = cn.errCur, 0
	default:
		cn.errPrev, cn.errCur = 0, 0
	}
	cn.errWin = win
	cn.errCur++
}

func (w *world) alloc() int32 {
	if w.free >= 0 {
		r := w.free
		w.free = w.reqs[r].next
		return r
	}
	w.reqs = append(w.reqs, request{})
	return int32(len(w.reqs) - 1)
}

func (w *world) release(r int32) {
	w.reqs[r] = request{next: w.free}
	w.free = r
}

// start gives request r a core of backend bi at now.
func (w *world) start(bi int32, r int32, cost float64, now time.Duration) {
	be := &w.backends[bi]
	w.integrate(be, now)
	be.busy++
	w.reqs[r].queued = false
	w.reqs[r].start = now
	d := time.Duration(cost / w.speed(bi, now))
	w.loop.At(now+max(d, 1), r, kindComplete)
}

func (w *world) complete(r int32, now time.Duration) {
	req := w.reqs[r]
	if !req.live {
		return
	}
	cn := &w.conns[req.conn]
	bi := cn.backend
	be := &w.backends[bi]
	if req.epoch != be.epoch { // failed by a stop; its slot is freed below
		w.release(r)
		return
	}
	w.integrate(be, now)
	be.busy--
	be.served++
	cn.active--
	w.succeeded++
	w.latency[latencyBucket(now-req.arrival)]++
	w.busyTime += int64(now - req.arrival)
	w.waitTime += int64(req.start - req.arrival)
	w.release(r)
	if q := be.qHead; q >= 0 {
		be.qHead = w.reqs[q].next
		be.qLen--
		if be.qHead < 0 {
			be.qTail = -1
		}
		w.reqs[q].next = -1
		w.start(bi, q, w.reqs[q].cost, now)
	}
}

// stop stops the event's backends: every request they hold fails.
func (w *world) stop(now time.Duration) {
	for _, bi := range w.env.Affected {
		be := &w.backends[bi]
		w.integrate(be, now)
		be.down, be.lame = true, false
		be.busy = 0
		be.qHead, be.qTail, be.qLen = -1, -1, 0
		for r := range w.reqs {
			req := &w.reqs[r]
			if !req.live || req.epoch != be.epoch || w.conns[req.conn].backend != bi {
				continue
			}
			cn := &w.conns[req.conn]
			cn.active--
			w.noteError(cn, now)
			be.errs++
			w.Stopped++
			w.fail()
			if req.queued {
				w.release(int32(r)) // no completion is scheduled
			} else {
				req.epoch = -1 // its completion event frees the slot
			}
		}
		be.epoch++
	}
}

// sample ends sampling interval k at now: utilisation of each backend, reports for weighted
// round robin, the spread.
func (w *world) sample(k int, now time.Duration) {
	env := w.env
	start := time.Duration(k) * env.Sample
	span := float64(now - start)
	w.utils = w.utils[:0]
	for i := range w.backends {
		be := &w.backends[i]
		w.integrate(be, now)
		busy := be.acc - be.sampleAcc
		be.sampleAcc = be.acc
		u := 0.0
		if span > 0 {
			u = busy / (cores * span)
		}
		secs := span / 1e9
		if secs > 0 {
			be.report = balance.Report{
				QPS:         float64(be.served+be.errs) / secs,
				EPS:         float64(be.errs) / secs,
				Utilization: u,
			}
		}
		be.served, be.errs = 0, 0
		if !be.down && !env.Failing[i] {
			w.utils = append(w.utils, 100*u)
		}
	}
	s := sample{T: float64(now) / 1e9, Errors: w.errSample}
	if n := len(w.utils); n > 0 {
		slices.Sort(w.utils)
		s.Min, s.Max = w.utils[0], w.utils[n-1]
		s.Median = w.utils[n/2]
		if n%2 == 0 {
			s.Median = (w.utils[n/2-1] + w.utils[n/2]) / 2
		}
	}
	w.errSample = 0
	w.Samples = append(w.Samples, s)
	w.sampled = k + 1
}

// Work returns the work the simulation has done so far, in the units of the cost model:
// workScale per event's worth of computing — an event delivered (engine.Loop.Work, with the
// queue's own work), pickScan backends read by pickers that read the whole subset,
// scanPerWorkUnit backends measured at the end of a sampling interval, a client set up,
// connsPerEvent connections set up, and, with more than cachedConns connections, two per
// request, which then misses the CPU's caches (BenchmarkWorkUnit: twice the time per event).
func (w *world) Work() int64 {
	events := w.loop.Work() + w.Scanned/pickScan + int64(w.sampled*len(w.backends))/scanPerWorkUnit +
		int64(len(w.clients)) + int64(len(w.conns))/connsPerEvent
	if len(w.conns) > cachedConns {
		events += 2 * w.Requests
	}
	return workScale * events
}

func latencyBucket(d time.Duration) int {
	if d < 1 {
		d = 1
	}
	x := math.Log2(float64(d)) * latencyBuckets
	return min(int(x), latencyOctaves*latencyBuckets-1)
}

// Latency returns the q-quantile (0 < q ≤ 1) of successful requests' latency, in ms, or 0
// without any. Latencies are kept in a histogram of 1/16-octave buckets (about 4.4% wide);
// the quantile is interpolated within its bucket, taking the bucket's requests as spread
// evenly over it on a log scale: the k-th of its n requests sits at the fraction (k−½)/n of
// the way from its lower to its upper edge.
func (w *world) Latency(q float64) float64 {
	if w.succeeded == 0 {
		return 0
	}
	want := max(int64(math.Ceil(q*float64(w.succeeded))), 1)
	var seen int64
	for i, n := range w.latency {
		if seen+n >= want {
			f := (float64(want-seen) - 0.5) / float64(n)
			return math.Exp2((float64(i)+f)/latencyBuckets) / 1e6
		}
		seen += n
	}
	return 0
}

// Succeeded returns the requests that completed without error.
func (w *world) Succeeded() int64 { return w.succeeded }

// cdfWork is the work of one latencyCDF, in World.Work units: it reads every bucket of the
// histogram, scanPerWorkUnit of them per event's worth of computing.
const cdfWork = workScale * latencyOctaves * latencyBuckets / scanPerWorkUnit

// latencyCDF is the distribution of the latency of the requests that succeeded so far, for
// the latency chart: at the lower edge of the first bucket holding a request (x, ms) 0%, then
// at the upper edge of each bucket up to the last holding one the share (y, %) of the requests
// faster than that edge. The shares are exact counts of the simulated requests at those
// edges, 1/16 of an octave apart; only between them does a line interpolate. Nil without any.
func (w *world) latencyCDF() (x, y []float64) {
	lo, hi := -1, -1
	for i, n := range w.latency {
		if n > 0 {
			if lo < 0 {
				lo = i
			}
			hi = i
		}
	}
	if lo < 0 {
		return nil, nil
	}
	edge := func(i int) float64 { return lab.RoundTo(math.Exp2(float64(i)/latencyBuckets)/1e6, 5) }
	x, y = make([]float64, 0, hi-lo+2), make([]float64, 0, hi-lo+2)
	x, y = append(x, edge(lo)), append(y, 0)
	var seen int64
	for i := lo; i <= hi; i++ {
		seen += w.latency[i]
		x, y = append(x, edge(i+1)), append(y, lab.RoundTo(100*float64(seen)/float64(w.succeeded), 6))
	}
	return x, y
}

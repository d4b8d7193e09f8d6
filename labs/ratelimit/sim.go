package ratelimit

import (
	"math"
	"math/rand/v2"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
)

// Chart resolution: samples of the count chart and bins of the rate chart per run.
const (
	nSamples = 1000
	nBins    = 120
)

// compactAt is how far a world's queue (its pending arrivals, decisions, admitted times in the
// window, propagated admissions) may be read before it is compacted — once more than half of
// it is behind its head too. Small: a run may simulate hundreds of worlds (the sweeps'), and
// each queue holds up to this many entries it no longer needs (issue 33: at 4,096, the worlds of
// a run with both store sweeps held ten times what they needed).
const compactAt = 256

// maxAttempts is how many compare-and-swap attempts a request makes before it is refused.
const maxAttempts = 8

// batch is the arrivals of one slice of simulated time, shared read-only by the worlds.
type batch struct {
	t     []int64 // arrival times, ns, ascending
	inst  []int32 // instance each goes to
	first int64   // global index of t[0]
	end   int64   // the slice covers arrivals before end
}

// simulation is one run: the traffic, the balancer and a world per algorithm.
type simulation struct {
	s        scenario
	names    []string
	traffic  *traffic
	choices  *rand.Rand // random balancer
	nInst    int
	batch    *batch
	worlds   []world
	arrived  int64
	offered  []int64 // arrivals per bin
	sentBins int     // offered bins sent
	work     int64   // units of work drawing arrivals since the last takeWork
}

// world is one algorithm's simulation.
type world interface {
	// advance processes the batch's arrivals; final: the last batch, drain everything.
	advance(b *batch, final bool)
	// initial is the algorithm's estimate at time zero, before any request.
	initial() float64
	// summary is the algorithm's tallies so far.
	summary() AlgorithmSummary
	base() *core
}

// newSimulation returns the simulation of scenario s, replaying the algorithms memo holds
// (memo may be nil).
func newSimulation(s scenario, memo func(name string) (*finished, bool)) *simulation {
	sim := &simulation{s: s, names: ordered(s.algorithms), traffic: newTraffic(s), nInst: s.instances, offered: make([]int64, nBins)}
	if s.balancer == "sticky" {
		sim.nInst = 2 // one instance (check), and the one the scale-out adds
	}
	if s.balancer == "random" {
		sim.choices = engine.NewStream(s.seed, engine.Choices, 0, 0)
	}
	for _, name := range sim.names {
		if memo != nil {
			if f, ok := memo(name); ok {
				sim.worlds = append(sim.worlds, newReplay(f))
				continue
			}
		}
		sim.worlds = append(sim.worlds, newWorld(name, s, sim.nInst))
	}
	sim.worlds = append(sim.worlds, sweepWorlds(s, sim.nInst)...)
	return sim
}

// arrive draws the arrivals before end into the batch (all of them when final).
func (sim *simulation) arrive(end time.Duration, final bool) {
	b := &batch{first: sim.arrived, end: int64(end)}
	if final {
		b.end = int64(sim.s.duration)
	}
	d := int64(sim.s.duration)
	for {
		t, ok := sim.traffic.next(b.end)
		if !ok {
			break
		}
		var inst int32
		switch sim.s.balancer {
		case "round_robin":
			inst = int32(sim.arrived % int64(sim.nInst))
		case "random":
			inst = int32(sim.choices.IntN(sim.nInst))
		case "sticky":
			if t >= d/2 {
				inst = 1
			}
		}
		b.t = append(b.t, t)
		b.inst = append(b.inst, inst)
		sim.offered[binOf(t, d)]++
		sim.arrived++
		sim.work++
	}
	sim.batch = b
}

func binOf(t, d int64) int { return int(min(max(t/max(d/nBins, 1), 0), nBins-1)) }

// binStart returns the start of bin b.
func binStart(b int, d int64) int64 {
	if b >= nBins {
		return d
	}
	return int64(b) * max(d/nBins, 1)
}

// sampleAt returns the time of sample j (1 ≤ j ≤ nSamples): the samples divide the duration
// evenly, the last at its end.
func sampleAt(j int, d int64) int64 {
	return int64(float64(d) * float64(j) / nSamples)
}

// errSamples is how many instants the estimate error averages over.
const errSamples = 4 * nSamples

// errSampleAt returns the time of error sample j (0 ≤ j < errSamples). The estimate error is
// the mean |estimate − exact| over these instants, not over the chart's samples: evenly spaced
// instants line up with the window whenever the sample step divides it or is a multiple of it
// (a 1000-s run at a 1-s window samples every second: every sample on a window boundary, where
// the fixed window's estimate has just dropped to zero and the sliding window's is exact), so
// the mean read 100% or 0% by coincidence. Here the duration is cut
// into errSamples strata and stratum j is sampled at the fraction frac((j+1)·φ) of its width
// (φ the golden ratio: an additive recurrence of low discrepancy, deterministic and the same
// for every algorithm): the instants keep their order, cover the run evenly, and fall at every
// phase of the window and of the sub-windows whatever the duration (TestEstimateErrorNoAliasing).
func errSampleAt(j int, d int64) int64 {
	const phi = 0.6180339887498949 // the golden ratio's fractional part
	_, frac := math.Modf(float64(j+1) * phi)
	return int64(float64(d) * (float64(j) + frac) / errSamples)
}

// takeWork returns the work done since the last call: the arrivals' and the worlds', each
// world's also passed to each (when it is not nil) with its index.
func (sim *simulation) takeWork(each func(world int, work int64)) int64 {
	w := sim.work
	sim.work = 0
	for j, x := range sim.worlds {
		c := x.base()
		w += c.work
		if each != nil {
			each(j, c.work)
		}
		c.work = 0
	}
	return w
}

// staticUpdate is what a run shows before it simulates anything: the limit line and the
// first point of every other series, so that their order does not depend on which gets
// points first. The counts start at zero at time zero; the rates are upserted, their first
// bin shown as zero until it is complete.
func (sim *simulation) staticUpdate() lab.Update {
	d := msOf(int64(sim.s.duration))
	series := []lab.Series{{Name: "limit", Chart: "count", Label: "limit", Group: "*", XUnit: "ms", YUnit: "requests",
		X: []float64{0, d}, Y: []float64{float64(sim.s.limit), float64(sim.s.limit)}, Tone: lab.Neutral}}
	for i, name := range sim.names {
		series = append(series, sim.samplesSeries(name, []float64{0}, []float64{0}, []float64{sim.worlds[i].initial()})...)
		series = append(series, sim.admittedSeries(name, []float64{0}, []float64{0}))
	}
	series = append(series, sim.offeredSeries([]float64{0}, []float64{0}))
	return lab.Update{
		Summary: map[string]any{"limit": sim.s.limit, "window_ms": msOf(int64(sim.s.window))},
		Series:  series,
	}
}

// samplesSeries are the points x of the exact count and of the estimate of an algorithm.
func (sim *simulation) samplesSeries(name string, x, exact, est []float64) []lab.Series {
	return []lab.Series{
		{Name: "exact " + name, Chart: "count", Label: "exact", Group: name, XUnit: "ms", YUnit: "requests",
			X: x, Y: exact, Append: true, Tone: lab.Neutral},
		{Name: "estimate " + name, Chart: "count", Label: name, Group: name, XUnit: "ms", YUnit: "requests",
			X: x, Y: est, Append: true, Style: "dashed"},
	}
}

// admittedSeries is points of an algorithm's admitted rate.
func (sim *simulation) admittedSeries(name string, x, y []float64) lab.Series {
	return lab.Series{Name: "admitted " + name, Chart: "rate", Label: name, XUnit: "ms", YUnit: "requests/s", X: x, Y: y, Upsert: true}
}

// offeredSeries is points of the offered rate.
func (sim *simulation) offeredSeries(x, y []float64) lab.Series {
	return lab.Series{Name: "offered", Chart: "rate", Label: "offered", XUnit: "ms", YUnit: "requests/s", X: x, Y: y, Upsert: true, Tone: lab.Neutral}
}

func msOf(ns int64) float64 { return float64(ns) / 1e6 }

// update is the new points of every series and the summary so far.
func (sim *simulation) update(final bool) lab.Update {
	d := int64(sim.s.duration)
	sum := map[string]AlgorithmSummary{}
	var series []lab.Series
	binW := float64(max(d/nBins, 1)) / 1e9 // seconds
	for i, name := range sim.names {
		c := sim.worlds[i].base()
		exact, est, from := c.newSamples()
		if len(exact) > 0 {
			x := make([]float64, len(exact))
			for k := range x {
				x[k] = msOf(sampleAt(from+k+1, d))
			}
			series = append(series, sim.samplesSeries(name, x, exact, est)...)
		}
		if bins, from := c.newBins(); len(bins) > 0 {
			x, y := make([]float64, len(bins)), make([]float64, len(bins))
			for k, n := range bins {
				x[k] = msOf(binStart(from+k, d))
				y[k] = float64(n) / binW
			}
			series = append(series, sim.admittedSeries(name, x, y))
		}
		sum[name] = sim.worlds[i].summary()
	}
	// Offered bins are complete once every world has accounted for them.
	done := nBins
	if !final {
		done = binOf(sim.batch.end, d)
		for _, w := range sim.worlds[:len(sim.names)] { // the sweep's worlds send no bins
			done = min(done, w.base().sentBins)
		}
	}
	if done > sim.sentBins {
		x, y := make([]float64, 0, done-sim.sentBins), make([]float64, 0, done-sim.sentBins)
		for b := sim.sentBins; b < done; b++ {
			x = append(x, msOf(binStart(b, d)))
			y = append(y, float64(sim.offered[b])/binW)
		}
		series = append(series, sim.offeredSeries(x, y))
		sim.sentBins = done
	}
	u := lab.Update{Summary: map[string]any{"algorithms": sum, "offered": sim.arrived}, Series: series}
	sim.addSweep(&u)
	sim.addLatency(&u)
	return u
}

// core is what every world shares: the requests awaiting their decision, the exact count of
// admitted requests, the samples and the tallies.
type core struct {
	limit int64
	w, d  int64 // window and duration, ns
	store string

	// Requests arrived but not yet decided, from global index pbase.
	pt    []int64 // arrival times
	ps    []uint8 // pending, admitted or rejected
	ph    int     // first pending
	pbase int64   // global index of pt[0]

	// Requests decided but not yet accounted for, in two parts: those decided in order (a
	// queue from rh, the common case) and those decided out of order (a heap), each by
	// (at, g).
	queue []decision
	rh    int
	ready []decision

	win   []int64 // admitted times inside the exact window, oldest first, from wh
	wh    int
	exact []float64 // exact count at each sample so far
	est   []float64 // estimate at each sample so far
	bins  []int64   // admitted per bin
	bin   int       // bins accounted for (complete)

	sent, sentBins int // samples and bins sent

	// The estimate error: the exact count and the estimate at the error samples (errSampleAt)
	// taken and not yet paired, and the sum of |estimate − exact| over the pairs so far.
	errExact, errEst   []float64
	errExactN, errEstN int // error samples taken on each side
	errSum             float64
	errN               int

	// The exact count above the limit, integrated up to at: its area (requests × ns) and
	// the time it spent there (ns).
	at       int64
	overArea float64
	overTime int64

	route *router // nil: the batch's instances

	sum   AlgorithmSummary
	ops   int64 // store operations
	done  int64 // requests decided
	work  int64 // units of work since the last takeWork
	bytes int64 // state bytes per key
}

const (
	pending uint8 = iota
	admitted
	rejected
)

// decision is a decided request: admitted or not, and the true time at which it counts in
// the exact window.
type decision struct {
	at, g int64
	ok    bool
}

func (d *decision) before(o *decision) bool { return d.at < o.at || d.at == o.at && d.g < o.g }

func (c *core) base() *core { return c }

// instOf returns the instance the batch's request i goes to in this world.
func (c *core) instOf(b *batch, i int) int32 {
	if c.route == nil {
		return b.inst[i]
	}
	return c.route.inst(b.first + int64(i))
}

// router sends requests to instances in a world whose instance count is not the simulation's
// (the latency sweep's instances_sweep lines), as the balancer of a scenario with that count
// does: request g to instance g mod n, or a draw of the same random stream, in the same order.
type router struct {
	n       int
	choices *rand.Rand // the random balancer's
}

func newRouter(s scenario) *router {
	r := &router{n: s.instances}
	if s.balancer == "random" {
		r.choices = engine.NewStream(s.seed, engine.Choices, 0, 0)
	}
	return r
}

// inst returns the instance of request g; requests must come in order, once each.
func (r *router) inst(g int64) int32 {
	if r.choices != nil {
		return int32(r.choices.IntN(r.n))
	}
	return int32(g % int64(r.n))
}

// add records the arrival of request g at t, undecided.
func (c *core) add(t int64) {
	c.pt = append(c.pt, t)
	c.ps = append(c.ps, pending)
}

// decide records request g's decision, counted in the exact window at its arrival.
func (c *core) decide(g int64, ok bool) { c.decideAt(g, ok, c.pt[g-c.pbase]) }

// decideAt records request g's decision, counted in the exact window at true time at, no
// earlier than its arrival: when the attempt that decided it left the instance, for a
// compare-and-swap that had to retry; when it leaves the queue for the service, for the
// leaky bucket queue.
func (c *core) decideAt(g int64, ok bool, at int64) {
	c.done++
	if ok {
		c.ps[g-c.pbase] = admitted
	} else {
		c.ps[g-c.pbase] = rejected
	}
	d := decision{at: at, g: g, ok: ok}
	if n := len(c.queue); n == c.rh || !d.before(&c.queue[n-1]) {
		c.queue = append(c.queue, d)
		return
	}
	c.ready = heapPush(c.ready, d)
}

// nextReady returns the earliest decision not accounted for, if any.
func (c *core) nextReady() (decision, bool) {
	switch {
	case c.rh < len(c.queue) && (len(c.ready) == 0 || c.queue[c.rh].before(&c.ready[0])):
		return c.queue[c.rh], true
	case len(c.ready) > 0:
		return c.ready[0], true
	}
	return decision{}, false
}

// popReady removes the earliest decision, which nextReady returned.
func (c *core) popReady() {
	if c.rh < len(c.queue) && (len(c.ready) == 0 || c.queue[c.rh].before(&c.ready[0])) {
		c.rh++
		if c.rh == len(c.queue) {
			c.queue, c.rh = c.queue[:0], 0
		} else if c.rh > compactAt && c.rh > len(c.queue)/2 {
			n := copy(c.queue, c.queue[c.rh:])
			c.queue, c.rh = c.queue[:n], 0
		}
		return
	}
	_, c.ready = heapPop(c.ready)
}

// account folds the decided requests into the exact count and the tallies, in order of the
// time they count at, and computes the exact count at every sample before frontier. A
// request still pending counts no earlier than its arrival and later arrivals have not been
// drawn, so the frontier is the first pending arrival, or end.
func (c *core) account(end int64, final bool) {
	for c.ph < len(c.pt) && c.ps[c.ph] != pending {
		c.ph++
	}
	frontier := end
	if c.ph < len(c.pt) {
		frontier = min(frontier, c.pt[c.ph])
	}
	if final && c.ph == len(c.pt) {
		frontier = math.MaxInt64
	}
	for {
		d, ok := c.nextReady()
		if !ok || d.at >= frontier {
			break
		}
		c.popReady()
		t := d.at
		c.exactBefore(t)
		c.expire(t)
		n := int64(len(c.win) - c.wh)
		if d.ok {
			c.sum.Admitted++
			if n >= c.limit {
				c.sum.OverAdmitted++
			}
			c.win = append(c.win, t)
			c.sum.MaxInWindow = max(c.sum.MaxInWindow, n+1)
			if t < c.d { // not what the queue lets out after the run
				c.bins[binOf(t, c.d)]++
			}
		} else {
			c.sum.Rejected++
			if n < c.limit {
				c.sum.WronglyRejected++
			}
		}
		c.work++
	}
	c.exactBefore(frontier)
	for c.bin < nBins && binStart(c.bin+1, c.d) <= frontier {
		c.bin++
	}
	if final {
		c.bin = nBins
	}
	// Compact the queues.
	if c.ph > compactAt && c.ph > len(c.pt)/2 {
		n := copy(c.pt, c.pt[c.ph:])
		copy(c.ps, c.ps[c.ph:])
		c.pt, c.ps = c.pt[:n], c.ps[:n]
		c.pbase += int64(c.ph)
		c.ph = 0
	}
	if c.wh > compactAt && c.wh > len(c.win)/2 {
		n := copy(c.win, c.win[c.wh:])
		c.win, c.wh = c.win[:n], 0
	}
}

// expire drops the admitted times at or before t-window, integrating the exact count's
// excess over the limit up to t on the way. Times passed to it never decrease.
func (c *core) expire(t int64) {
	for c.wh < len(c.win) && c.win[c.wh] <= t-c.w {
		c.integrate(c.win[c.wh] + c.w)
		c.wh++
	}
	c.integrate(t)
}

// integrate adds the excess of the exact count over the limit from c.at to t, the count
// being constant in between.
func (c *core) integrate(t int64) {
	t = min(t, c.d) // the leaky bucket queue lets requests out after the run
	if t <= c.at {
		return
	}
	if n := int64(len(c.win) - c.wh); n > c.limit {
		c.overArea += float64(n-c.limit) * float64(t-c.at)
		c.overTime += t - c.at
	}
	c.at = t
}

// exactBefore computes the exact count at the samples and the error samples before t, in
// order of time.
func (c *core) exactBefore(t int64) {
	for {
		s, isErr := c.nextSample(len(c.exact), c.errExactN)
		if s >= t {
			return
		}
		c.expire(s)
		n := float64(len(c.win) - c.wh)
		if isErr {
			c.errExact = append(c.errExact, n)
			c.errExactN++
			c.pairErr()
		} else {
			c.exact = append(c.exact, n)
		}
	}
}

// nextSample returns the time of the next instant to take after samples chart samples and
// errs error samples, and whether it is an error sample; math.MaxInt64 when all are taken.
func (c *core) nextSample(samples, errs int) (int64, bool) {
	next, isErr := int64(math.MaxInt64), false
	if samples < nSamples {
		next = sampleAt(samples+1, c.d)
	}
	if errs < errSamples {
		if e := errSampleAt(errs, c.d); e < next {
			next, isErr = e, true
		}
	}
	return next, isErr
}

// pairErr adds to the estimate error the error samples taken on both sides, in order.
func (c *core) pairErr() {
	n := min(len(c.errExact), len(c.errEst))
	for k := range n {
		c.errSum += math.Abs(c.errEst[k] - c.errExact[k])
		c.errN++
	}
	c.errExact, c.errEst = c.errExact[n:], c.errEst[n:]
}

// newSamples returns the samples with both counts not sent yet, and the index of the first.
func (c *core) newSamples() (exact, est []float64, from int) {
	n := min(len(c.exact), len(c.est))
	from = c.sent
	if n <= from {
		return nil, nil, from
	}
	exact, est = c.exact[from:n], c.est[from:n]
	c.sent = n
	return exact, est, from
}

// newBins returns the complete bins not sent yet, and the index of the first.
func (c *core) newBins() ([]int64, int) {
	from := c.sentBins
	if c.bin <= from {
		return nil, from
	}
	c.sentBins = c.bin
	return c.bins[from:c.bin], from
}

// summary returns the tallies so far.
func (c *core) summary() AlgorithmSummary {
	s := c.sum
	s.Store = c.store
	s.StateBytes = c.bytes
	s.OverLimitRequestS = c.overArea / 1e9
	if c.d > 0 {
		s.OverLimitTimePct = 100 * float64(c.overTime) / float64(c.d)
	}
	if c.limit > 0 {
		s.MaxInWindowX = float64(s.MaxInWindow) / float64(c.limit)
		if c.errN > 0 {
			s.EstimateErrorPct = 100 * c.errSum / float64(c.errN) / float64(c.limit)
		}
	}
	if c.done > 0 {
		s.StoreOps = float64(c.ops) / float64(c.done)
	}
	return s
}

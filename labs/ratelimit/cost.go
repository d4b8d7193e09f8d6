package ratelimit

import (
	"math"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// The cost model. A run's work is counted as it runs, in the units of the server's budget
// (about the computing of one write attempt of the backoff lab: 12–80 ns of CPU each here on
// the reference machine, BenchmarkWorkUnit): one per arrival drawn; a few per decision of each algorithm, per request
// accounted against the exact window, per store operation or message; one per counter an
// INCR round trip reads; one per 8 timestamps a sliding log copies (a read-then-write or
// compare-and-swap copies the whole log the store returned) and per 4 it merges
// (asynchronous propagation merges each admission into every other instance's log). The
// work therefore follows the arrival rate, load·limit/window, times the duration — a 10 ms
// window at the default limit is a hundred times the work of a 1 s one — and, for the stores
// that copy or propagate, the limit and the instances.
//
// CostBound is a cheap upper bound from the expected arrivals and the worst work per
// arrival. Cost simulates a prefix of the scenario (about pilotWork units, on slices of at
// most pilotArrivals arrivals) and extrapolates the work per arrival of its second half to
// the rest of the expected arrivals; a scenario whose whole run fits the pilot is counted
// exactly. A pilot that stops within the first window may not have seen the work per arrival
// settle (sliding logs fill up during the first window); its growth is then extrapolated to
// when they are full (fillTime). Compare-and-swap retry chains last up to maxAttempts round trips
// and grow with the requests in flight, which a pilot sees start but not settle: its
// estimate is at least a third of the bound (TestCostWithinTwice, over a grid that includes
// every slider's extremes: worst ×1.48).
//
// An estimate's pilot is bounded (pilotWork), a few to a hundred milliseconds of CPU, and the
// lab keeps estimates by canonical URL; a refusal computes a few more to find the value it
// suggests (lab.CheckBudget; TestRefusalEstimates counts them: 2–4 here).

// Pilot limits.
const (
	pilotWork     = 1 << 20
	pilotArrivals = 1000
	pilotMinSlice = 16 // arrivals: fewer per slice and the slices' own work outweighs theirs
)

// CostBound is a cheap upper bound of the work units of scenario v.
func CostBound(v param.Values) int64 {
	s := scenarioOf(v)
	return int64(math.Min((1.2*expectedArrivals(s)+1000)*boundPerArrival(s), math.MaxInt64/2))
}

// boundPerArrival is the most work units one arrival can cause.
func boundPerArrival(s scenario) float64 {
	perArrival := 1.0 // drawing it
	m := float64(s.instances)
	for _, name := range s.algorithms {
		w := 8.0 // deciding and accounting, with any store
		copies := 0.0
		if name == "sliding_log" {
			copies = float64(s.limit)
		}
		counters := name == "fixed_window" || name == "sliding_window" || name == "subwindows"
		// A scheduled event: pushed and popped through a heap of up to about a million.
		const event = 16.0
		switch s.store {
		case "racy":
			w += 3 + event + copies/8 + 4
		case "cas":
			w += maxAttempts * (4 + 2*event + copies/8 + 4)
		case "incr":
			if counters {
				w += float64(s.subwindows+4) + event
			} else {
				w += 3 + event + copies/8 + 4
			}
		case "async":
			if counters || name == "sliding_log" {
				w += m * (2 + copies/4)
			}
		}
		perArrival += w
	}
	return perArrival + sweepPerArrival(s)
}

// Cost estimates the work units of scenario v from a pilot simulation of its beginning: the
// work so far plus, for the arrivals still expected, the work per arrival of the pilot's
// second half. The pilot's slices are small enough that it stops near pilotWork units.
func (r *runner) Cost(v param.Values) int64 {
	key := lab.MemoKey(v, nil)
	if c, ok := r.costs.Get(key); ok {
		return c
	}
	c := pilotCost(v)
	r.costs.Put(key, c)
	return c
}

// costMemoSize is how many scenarios' estimates a lab keeps.
const costMemoSize = 1024

// pilotMark is the pilot's progress at the end of a slice.
type pilotMark struct{ end, arrived, work int64 }

// extrapolate returns the work per arrival to expect after the pilot, from its marks (the
// first at zero): that of the pilot's second half, or, when the pilot ended within the first
// window and its work per arrival was still growing (sliding logs filling up), that growth
// carried on linearly to the end of the first window, where logs are full; at most bound.
func extrapolate(marks []pilotMark, window int64, bound float64) float64 {
	last, mid, first := marks[len(marks)-1], marks[len(marks)/2], marks[0]
	rate := func(a, b pilotMark) float64 { return float64(b.work-a.work) / float64(max(b.arrived-a.arrived, 1)) }
	p1, p2 := rate(first, mid), rate(mid, last)
	if last.end >= window || p2 <= p1 || mid.arrived == first.arrived {
		return p2
	}
	t1, t2 := float64(first.end+mid.end)/2, float64(mid.end+last.end)/2
	full := p2 + (p2-p1)/(t2-t1)*(float64(window)-t2)
	return math.Min(full, math.Max(bound, p2))
}

// afterFill is a world's work per arrival once its logs are full, from per, its work per
// arrival as the pilot saw it (extrapolated to fillTime): an asynchronous store propagates
// each admission to every other instance, and at a load above 1 only about
// admittedShare/load of the arrivals are admitted once the window is full where the pilot, in
// the first window, saw nearly all of them admitted; deciding (a few units) is work per
// arrival.
func afterFill(per float64, store string, load float64) float64 {
	const deciding = 9
	if store != "async" || load <= 1 || per <= deciding {
		return per
	}
	return deciding + (per-deciding)*min(1, admittedShare/load)
}

// admittedShare is the admissions per window, × limit, that afterFill expects under
// asynchronous propagation: more than the limit, since instances admit on stale counts (by
// c × delay/window × (instances−1)/instances, c up to about the load: TestAsyncOverAdmission), and the estimate
// would rather be high than low.
const admittedShare = 1.5

// fillTime is when, in the first window, the sliding logs stop growing: once they hold the
// limit's worth of admissions, at window/load when more than the limit arrives per window
// (the pilot of an async scenario on 16–64 instances, extrapolating its growth to the window's
// end instead, once estimated ×3.5 its work at load 3), else at the window's end.
func fillTime(s scenario) int64 {
	return int64(float64(s.window) / max(s.load, 1))
}

// pilotCost is Cost without the memo.
func pilotCost(v param.Values) int64 {
	s := scenarioOf(v)
	sim := newSimulation(s, nil)
	expected := expectedArrivals(s)
	perSlice := math.Max(pilotMinSlice, math.Min(pilotArrivals, pilotWork/(8*boundPerArrival(s))))
	n := int64(math.Max(64, math.Ceil(expected/perSlice)))
	d := int64(s.duration)
	// The pilot's work, of the arrivals drawn and of each world: a world's work per arrival
	// is extrapolated on its own, since an asynchronous store's propagation is work per
	// admission (see afterFill).
	var work int64
	worldMarks := make([][]pilotMark, len(sim.worlds))
	worldWork := make([]int64, len(sim.worlds))
	for j := range worldMarks {
		worldMarks[j] = []pilotMark{{}}
	}
	for i := int64(1); i <= n; i++ {
		end := int64(float64(d) * float64(i) / float64(n))
		final := i == n
		sim.arrive(time.Duration(end), final)
		for _, w := range sim.worlds {
			w.advance(sim.batch, final)
		}
		work += sim.takeWork(func(j int, w int64) {
			worldWork[j] += w
			worldMarks[j] = append(worldMarks[j], pilotMark{end, sim.arrived, worldWork[j]})
		})
		if work > pilotWork && !final {
			left := math.Max(expected-float64(sim.arrived), 0)
			bound := boundPerArrival(s)
			var worlds int64
			for _, w := range worldWork {
				worlds += w
			}
			drawn := work - worlds // the arrivals' own work
			est := float64(work) + left*float64(drawn)/float64(max(sim.arrived, 1))
			for j, x := range sim.worlds {
				per := extrapolate(worldMarks[j], fillTime(s), bound)
				est += left * afterFill(per, x.base().store, s.load)
			}
			if cas := casPerArrival(s); cas > 0 {
				// Retry chains last up to maxAttempts round trips and feed on the requests
				// in flight: a pilot sees them start, not settle, and at long round trips
				// not even the chains of the arrivals it drew. Expect at least a share of
				// the bound of the compare-and-swap worlds for every arrival.
				est = max(est, float64(work)+cas*left, cas*expected)
			}
			return int64(math.Min(est, math.MaxInt64/2))
		}
	}
	return work
}

// casPerArrival is the least work per arrival to expect of the worlds of scenario s that run
// on compare-and-swap, with drawing it; 0 when none does. Each is a share of its bound, which
// counts every attempt of every request: a third, or, where the arrivals outrun the ceiling
// of one admission per round trip (latency.go) and most requests make every attempt and give
// up, half the share of arrivals above the ceiling.
func casPerArrival(s scenario) float64 {
	var w float64
	for _, t := range worldScenarios(s) {
		if t.store == "cas" {
			over := 0.0 // share of the arrivals above the ceiling
			if rate := t.load * float64(t.limit); t.latency > 0 && rate > 0 {
				over = 1 - min(1, casCeiling(t, t.latency)/t.load)
			}
			w += (boundPerArrival(t) - 1) * max(1.0/3, over/2)
		}
	}
	if w == 0 {
		return 0
	}
	return w + 1/3.0
}

// Memory estimates the most memory a run of scenario v holds at once, in bytes, counting every
// world the run builds — one per algorithm and one per point of each sweep (the latency
// sweep's, with each store and each count of instances_sweep, may make hundreds) — each with
// its queues: the admitted times inside the exact window (8 bytes each: about the limit per
// window, twice that for a fixed window, and up to every arrival when instances race on a
// store or decide on their own copies); the requests of a chunk of a slice (chunkArrivals at
// most) awaiting their decision (9 bytes) and their decisions awaiting their turn in the exact
// count (24 bytes), with those whose store operations are in flight — half a round trip's
// arrivals for a read-then-write, or under compare-and-swap two round trips a try, up to
// maxAttempts tries above its ceiling — and the operations in flight, an event (48 bytes) each
// with the state its write carries;
// and under asynchronous propagation the admissions in flight (32 bytes, 64 with a sliding
// log's). Each queue holds what it needs and up to compactAt entries read before it is
// compacted, never more than the run's arrivals (its admissions, for a queue of admissions), in
// an array that grows by half. Beside the queues, a world keeps its samples and bins (some 20
// KB), its instances' states and clocks (48 bytes each) and its sliding logs (8 bytes an entry,
// up to three times over as a ring grows; every instance holds the whole log under asynchronous
// propagation, its share under local counters); the run, the arrivals of a slice (12 bytes
// each) and runBytes for the rest. TestMemoryCorners checks it against the heap runs really
// hold.
func Memory(v param.Values) int64 {
	s := scenarioOf(v)
	expected := expectedArrivals(s)
	arrivals := 1.1*expected + 100 // what a queue can ever hold
	queue := func(size, live float64) float64 { return 1.5 * size * min(arrivals, live+compactAt) }
	perWindow := min(2*s.load*float64(s.limit)+1, expected)
	perSlice := expected/defaultSlices + 1
	windows := float64(s.duration)/float64(s.window) + 1
	total := 12*perSlice + runBytes
	for _, t := range worldScenarios(s) { // the sweeps' worlds too, each with its store and latency
		// Admitted a window: about the limit (twice it for a fixed window) on a store that keeps
		// one count, atomically or by swaps; every instance's under local counters; more under
		// asynchronous propagation, by the share of the window its delay makes stale; up to
		// every arrival on a racing read-then-write (an increment-only store runs the
		// algorithms without counters so).
		name := t.algorithms[0]
		counters := name == "fixed_window" || name == "sliding_window" || name == "subwindows"
		one := 2*float64(t.limit) + 1
		admitted := min(perWindow, one)
		switch {
		case t.store == "racy", t.store == "incr" && !counters:
			admitted = perWindow
		case t.store == "local":
			admitted = min(perWindow, one*float64(t.instances))
		case t.store == "async":
			admitted = min(perWindow, one*(1+2*float64(t.latency)/float64(t.window)*float64(t.instances)))
		}
		// A queue of admissions never holds more than the run admits.
		admissions := func(size, live float64) float64 {
			return 1.5 * size * min(arrivals, admitted*windows+100, live+compactAt)
		}
		inFlight := expected / max(t.duration.Seconds(), 1e-3) * t.latency.Seconds() // arrivals a round trip
		// A request undecided keeps every request after it from being accounted for: under
		// compare-and-swap for two round trips a try (the read, then the swap), up to
		// maxAttempts tries when the arrivals outrun its ceiling; a read-then-write decides on
		// what it read, half a round trip in; increments at once. Its store operations in
		// flight are events: a write a round trip after an admission's read, a compensating
		// decrement after a refused increment, the tries of a compare-and-swap.
		pending, events := 0.0, 0.0
		switch t.store {
		case "cas":
			over := 0.0
			if t.latency > 0 && t.load > 0 {
				over = 1 - min(1, casCeiling(t, t.latency)/t.load)
			}
			pending = inFlight * 2 * max(2, over*maxAttempts)
			events = pending
		case "racy", "incr":
			pending, events = inFlight/2, inFlight
		}
		// A state: the sliding window's counts (260 bytes) or a few words; each instance keeps
		// one, and under asynchronous propagation each admission in flight carries one.
		state := 0.0
		if name == "subwindows" || name == "sliding_window" {
			state = 272
		}
		w := admissions(8, admitted) + queue(9+24, min(perSlice, chunkArrivals)+pending) + 20<<10 + (48+state)*float64(t.instances)
		log := name == "sliding_log"
		if log {
			entries := min(float64(t.limit), admitted)
			grow := 3.0 // a ring's capacity, up to twice its entries, and the copy it grows from
			switch t.store {
			case "async":
				// Every instance's copy: rings that grow one at a time, so the copies they
				// grow from are not all held at once.
				entries *= float64(t.instances)
				grow = 2
			case "local":
				entries = min(float64(t.instances)*float64(t.limit), admitted)
			}
			w += grow * 8 * entries
		}
		switch t.store {
		case "async":
			size := 32 + state
			if log {
				size = 64 // and the log of one entry each carries, while in flight
			}
			w += admissions(size, inFlight)
		case "racy", "cas", "incr":
			// An event (48 bytes, in a heap that grows by half), and the state a write carries:
			// a sliding window's counts, a log's header (its times shared with the store's).
			carried := 40.0
			switch {
			case name == "subwindows" || name == "sliding_window":
				carried = 272
			case log:
				// A write carries a copy of the log its read found: the store's log grows by
				// about one admission a round trip that lands (the others' are lost, or fail
				// their swap), so it holds at most the window's round trips.
				carried += 8 * min(float64(t.limit), admitted, float64(t.window)/float64(max(t.latency, 1))+1)
			}
			w += 1.5 * (48 + carried) * events
		}
		total += w
	}
	return int64(total)
}

// runBytes is what a run holds whatever its parameters: series, summaries, the simulations'
// small state.
const runBytes = 2 << 20

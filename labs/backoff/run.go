package backoff

import (
	"context"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Budget limits, independent of the server's work budget: one simulation may deliver at most
// this many times its estimated events before it is stopped as runaway.
const runawayFactor = 20

// Lab returns the backoff & jitter lab. Each lab value has its own memo of simulated points
// (see pointKey), its own pilot estimates for the cost model and its own pool of worlds, shared
// by all of its runs.
func Lab() *lab.Lab { return newRunner().lab() }

func newRunner() *runner {
	return &runner{points: newMemo(memoSize), pilots: lab.NewCache[[]float64](pilotMemoSize)}
}

// lab is the lab whose runs r runs.
func (r *runner) lab() *lab.Lab {
	return &lab.Lab{
		Name:  "backoff",
		Title: "Exponential backoff and jitter",
		Short: "Backoff and jitter",
		Intro: "N clients race to update one row under optimistic concurrency, as in Marc Brooker's " +
			"“Exponential Backoff and Jitter”. Every client that loses waits before it tries again; each strategy below " +
			"decides how long, and the charts show when the writes happen and how many it takes until every client has succeeded.",
		Params:       Params,
		Check:        check,
		Rules:        []lab.Rule{{Params: []string{"cap", "base"}, Text: "`cap` ≥ `base`", Breaks: "base=100ms&cap=10ms"}},
		View:         view,
		Tours:        tours,
		Cost:         r.Cost,
		CostBound:    CostBound,
		CostParams:   []string{"trials", "clients", "sweep", "strategies"},
		Memory:       Memory,
		MemoryParams: []string{"clients", "strategies", "trials"},
		Light:        "clients=5&trials=2&sweep=off",
		Progressive:  true,
		Run:          r.Run,
	}
}

// memoSize is how many points a lab's memo keeps: about 20,000 points, a few megabytes.
const memoSize = 20000

// runner runs scenarios of one lab value.
type runner struct {
	points *memo
	pilots *lab.Cache[[]float64] // the cost model's pilot work, by pilotKey.url
	worlds worldPool             // grown queues and clients, reused across points and runs
	events atomic.Int64          // write attempts simulated by runs (not pilots), for benchmarks
	work   atomic.Int64          // work done by runs (not pilots), World.Work, for tests of the cost model
}

// worldPool keeps the idle worlds of one lab value. A world's queue and clients grow to the
// largest simulation it has run and keep that memory, so a world taken from the pool
// simulates without allocating; unlike a sync.Pool, the pool does not drop its worlds at each
// garbage collection, which would make every sweep point after one grow a world again.
type worldPool struct {
	mu   sync.Mutex
	idle []*World
}

// maxIdleWorlds bounds the worlds a pool keeps: enough for the workers of a few concurrent
// runs, a few megabytes at most.
const maxIdleWorlds = 16

// get returns an idle world, or a new one.
func (p *worldPool) get() *World {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.idle); n > 0 {
		w := p.idle[n-1]
		p.idle[n-1] = nil
		p.idle = p.idle[:n-1]
		return w
	}
	return new(World)
}

// put returns w to the pool, which keeps it if it has room.
func (p *worldPool) put(w *World) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) < maxIdleWorlds {
		p.idle = append(p.idle, w)
	}
}

// withBaseline returns names with the baseline strategy appended when it is missing: the
// summary's changes are against it even when it is not shown.
func withBaseline(names []string) []string {
	names = slices.Clone(names)
	if !slices.Contains(names, baseline) {
		names = append(names, baseline)
	}
	return names
}

// simEvents bounds the events of one simulation of n clients: one per write, and at worst
// (no backoff) one winner per round of the remaining clients, n + (n−1) + … + 1 writes.
// Backoff only lowers it; TestCostIsUpperBound checks the bound.
func simEvents(n int64) int64 { return n*(n+1)/2 + n }

// simWorkBound bounds the work (World.Work) of one simulation of n clients: at most three
// units per event (one, half for a power, and the queue's own work, which stays under one unit
// per event in the long run, engine.TestLoopWorkPerEventBounded, a little more while it
// adapts) and one per client.
func simWorkBound(n int64) int64 { return 3*simEvents(n) + n }

// CostBound is a cheap upper bound of the work of scenario v: simWorkBound per simulation.
// It overestimates jittered strategies several times over; Cost is the estimate.
func CostBound(v param.Values) int64 {
	s := scenarioOf(v)
	total := int64(len(withBaseline(s.strategies))) * simWorkBound(int64(s.clients))
	for _, n := range s.sweep {
		if n != int64(s.clients) {
			total += int64(len(s.strategies)) * simWorkBound(n)
		}
	}
	return total * int64(s.trials)
}

// StrategySummary is summary.strategies.<name>: means over trials at the chosen client count,
// and the change against no-jitter exponential backoff.
type StrategySummary struct {
	Writes              float64 `json:"writes"`
	CompletionMS        float64 `json:"completion_ms"`
	WritesChangePct     float64 `json:"writes_change_pct"`
	CompletionChangePct float64 `json:"completion_change_pct"`
}

// SweepPoint is one entry of summary.sweep.<name>.
type SweepPoint struct {
	Clients      int64   `json:"clients"`
	Writes       float64 `json:"writes"`
	CompletionMS float64 `json:"completion_ms"`
}

// ScheduleStep is one entry of summary.schedule.
type ScheduleStep struct {
	Retry           int     `json:"retry"`
	SleepMS         float64 `json:"sleep_ms"`
	ElapsedMS       float64 `json:"elapsed_ms"`
	NextFromElapsed float64 `json:"next_sleep_from_elapsed_ms"` // a + (r−1)·T_n, uncapped
	// SimulatedSleepMS is the sleep before retry n of the simulated exponential strategy,
	// min(cap, a·r^n): Brooker's simulator counts the first retry as attempt 1, one step
	// ahead of SleepMS, which is the Qiita post's t_n = min(cap, a·r^(n−1)).
	SimulatedSleepMS float64 `json:"simulated_sleep_ms"`
	LinearSleepMS    float64 `json:"linear_sleep_ms"`
	LinearElapsedMS  float64 `json:"linear_elapsed_ms"`
}

// timelineBins is the most bins a writes-over-time histogram is shown with.
const timelineBins = 300

func pctChange(x, ref float64) float64 {
	if ref == 0 {
		return 0
	}
	return 100 * (x - ref) / ref
}

// batchEnds returns the trial counts after which a run of the given trials shows its results:
// 1, 3, 10, 30, 100, 300 below trials, then trials. The first batch is one trial: a complete
// picture at once; each later one about triples the trials.
func batchEnds(trials int) []int {
	var ends []int
	for _, b := range []int{1, 3, 10, 30, 100, 300} {
		if b < trials {
			ends = append(ends, b)
		}
	}
	return append(ends, trials)
}

// earlyPicture is the most work (simulated events) the first trial of the sweep points may
// take before a run shows its first picture: beyond it (a sweep of many large client counts),
// the points done so far, the curves' ends and middle at least, are the first picture and the
// rest of the first trial fills it in, so that a viewer's new value is shown, and a newer
// one may supersede it, within some 100 ms of computing (see lab.Lab.Progressive).
const earlyPicture = 1 << 21

// flushEvery is how often, at most, a run sends the sweep points it has refined: about the
// frames a browser draws while a viewer watches.
const flushEvery = 100 * time.Millisecond

// coarseToFine returns the indices 0..m-1 in the order a sweep is refined in: both ends, then
// the middle, then the middles of the halves, and so on, so that the curve's whole shape
// appears first and fills in.
func coarseToFine(m int) []int { return lab.CoarseToFine(m) }

// Run simulates scenario v and reports, in order: the retry schedule; then, batch after batch
// of trials (see batchEnds), the chosen client count (summary.strategies and the writes-over-
// time histograms) and every sweep point, coarse to fine (the work and completion series, with
// the 95% interval of each mean as a band), then summary.sweep and how many trials the
// numbers rest on. Each batch replaces what the one before showed; the last one's numbers are
// the result. A point the memo holds is final at once.
func (r *runner) Run(ctx context.Context, v param.Values, emit func(lab.Update)) error {
	s := scenarioOf(v)
	emit(scheduleUpdate(s))

	chosen := r.newPoint(s, s.clients, withBaseline(s.strategies), true)
	points := make([]*point, len(s.sweep))
	for i, n := range s.sweep {
		if int(n) == s.clients {
			points[i] = chosen // shared: its values feed both the table and the sweep
		} else {
			points[i] = r.newPoint(s, int(n), s.strategies, false)
		}
	}
	total := int64(len(chosen.cells) * s.trials)
	for _, p := range points {
		if p != chosen {
			total += int64(len(p.cells) * s.trials)
		}
	}
	tr := lab.NewTracker(emit, total)
	for _, p := range append([]*point{chosen}, points...) {
		tr.Add(int64(p.memoised * s.trials))
	}
	return tr.Stage("simulating", func() error {
		from := 0
		order := coarseToFine(len(points))
		histSent, bandSent := 0, 0 // trials the histograms and the bands last went out with
		for _, to := range batchEnds(s.trials) {
			if chosen.final() && !slices.ContainsFunc(points, (*point).unfinished) && from > 0 {
				break // everything came from the memo
			}
			if err := r.advance(ctx, s, chosen, from, to, tr); err != nil {
				return err
			}
			final := to == s.trials
			if from == 0 || !chosen.final() {
				// The table goes out with every batch; the histograms, hundreds of bins each,
				// with the first and the last, and between them when the trials have grown
				// tenfold since they last went out.
				u := r.chosenUpdate(s, chosen, final || chosen.final())
				if from == 0 || final || to >= 10*histSent {
					histSent = to
				} else {
					u.Series = nil
				}
				tr.Emit(u)
			}
			// Sweep points go out together, every flushEvery or so: one series object with
			// several points costs far fewer bytes than several objects of one point. Their
			// bands, like the histograms, go out when the trials have grown tenfold, and last.
			var (
				pending lab.Update
				flushed = time.Now()
				bands   = to >= 2 && (final || bandSent == 0 || to >= 10*bandSent)
			)
			if bands {
				bandSent = to
			}
			var firstWork int64 // events of the first trial of the sweep points so far
			for k, i := range order {
				p := points[i]
				if p != chosen {
					if err := r.advance(ctx, s, p, from, to, tr); err != nil {
						return err
					}
				}
				if from == 0 || !p.final() {
					pending.Merge(lab.Update{Series: sweepSeries(s, p, final || p.final(), bands)})
				}
				if from == 0 && !final && firstWork >= 0 {
					firstWork += int64(len(p.cells)) * simEvents(int64(p.n))
					if firstWork >= earlyPicture && k+1 >= 3 && k+1 < len(order) {
						// A long first batch: the curves' shape so far (both ends and the
						// middle at least) is the first picture; the rest fills it in.
						pending.Refine = &lab.Refinement{Done: int64(to), Total: int64(s.trials), Unit: "trials"}
						tr.Emit(pending)
						pending, flushed, firstWork = lab.Update{}, time.Now(), -1
					}
				}
				if time.Since(flushed) >= flushEvery && !pending.Empty() {
					tr.Emit(pending)
					pending, flushed = lab.Update{}, time.Now()
				}
			}
			if !pending.Empty() {
				tr.Emit(pending)
			}
			done := int64(to)
			if chosen.final() && !slices.ContainsFunc(points, (*point).unfinished) {
				done = int64(s.trials)
			}
			u := lab.Update{Refine: &lab.Refinement{Done: done, Total: int64(s.trials), Unit: "trials"}}
			if len(points) > 0 && done == int64(s.trials) {
				// Not drawn on the page: sent once, with the final numbers.
				u.Summary = map[string]any{"sweep": sweepSummary(s, points)}
			}
			tr.Emit(u)
			from = to
		}
		return nil
	})
}

// chosenUpdate is summary.strategies and the writes-over-time histograms at the chosen N, as
// far as its trials have got. Numbers that are not final are rounded (see lab.Provisional).
func (r *runner) chosenUpdate(s scenario, p *point, final bool) lab.Update {
	round := lab.Provisional(final)
	base := len(p.cells) - 1
	for i, c := range p.cells {
		if c.key.strategy == baseline {
			base = i
		}
	}
	bw, bc := p.cells[base].means()
	sum := map[string]StrategySummary{}
	var series []lab.Series
	for i, name := range s.strategies {
		c := p.cells[i]
		w, comp := c.means()
		sum[name] = StrategySummary{
			Writes: round(w), CompletionMS: round(comp),
			WritesChangePct: round(pctChange(w, bw)), CompletionChangePct: round(pctChange(comp, bc)),
		}
		h, trials := c.histogram()
		x, y := make([]float64, len(h.Counts)), make([]float64, len(h.Counts))
		for j, n := range h.Counts {
			x[j] = float64(time.Duration(j)*h.Width) / 1e6
			y[j] = round(float64(n) / float64(trials))
		}
		series = append(series, lab.Series{
			Name: "timeline " + name, Chart: "timeline", Label: name,
			XUnit: "ms", YUnit: "writes per " + param.FormatDuration(h.Width), X: x, Y: y, Width: float64(h.Width) / 1e6,
		})
	}
	return lab.Update{Summary: map[string]any{"strategies": sum}, Series: series}
}

// sweepSeries is point p of the work and completion charts, upserted, with (when bands is
// set) the 95% interval of each mean as a band once there are two trials. Numbers that are not
// final are rounded (see lab.Provisional); bands, which are only drawn, always are.
func sweepSeries(s scenario, p *point, final, bands bool) []lab.Series {
	var series []lab.Series
	x := []float64{float64(p.n)}
	round := lab.Provisional(final)
	for i, name := range s.strategies {
		c := p.cells[i]
		w, comp := c.means()
		w, comp = round(w), round(comp)
		series = append(series,
			lab.Series{Name: "work " + name, Chart: "work", Label: name, XUnit: "clients", YUnit: "writes",
				X: x, Y: []float64{w}, Upsert: true},
			lab.Series{Name: "completion " + name, Chart: "completion", Label: name, XUnit: "clients", YUnit: "ms",
				X: x, Y: []float64{comp}, Upsert: true})
		if wh, ch, ok := c.halfWidths(); ok && bands {
			series = append(series,
				band("work", name, "writes", x, w, wh, "lo"), band("work", name, "writes", x, w, wh, "hi"),
				band("completion", name, "ms", x, comp, ch, "lo"), band("completion", name, "ms", x, comp, ch, "hi"))
		}
	}
	return series
}

// band is one bound of the 95% interval around point x of series "<chart> <name>".
func band(chart, name, unit string, x []float64, mean, half float64, bound string) lab.Series {
	y := mean - half
	if bound == "hi" {
		y = mean + half
	}
	of := chart + " " + name
	return lab.Series{Name: of + " " + bound, Chart: chart, Label: name, XUnit: "clients", YUnit: unit,
		X: x, Y: []float64{lab.RoundTo(y, 3)}, Upsert: true, Of: of, Bound: bound}
}

// sweepSummary is summary.sweep: every sweep point's means, in order of clients.
func sweepSummary(s scenario, points []*point) map[string][]SweepPoint {
	sweep := map[string][]SweepPoint{}
	for _, p := range points {
		for i, name := range s.strategies {
			w, comp := p.cells[i].means()
			sweep[name] = append(sweep[name], SweepPoint{Clients: int64(p.n), Writes: w, CompletionMS: comp})
		}
	}
	return sweep
}

// point is every named strategy's outcome at one client count, as far as its trials have got.
type point struct {
	n        int
	cells    []*cell // by strategy
	withHist bool
	memoised int // cells the memo held
}

// cell is one strategy at one client count: its memoised outcome, or the tally of the trials
// simulated so far.
type cell struct {
	key   pointKey
	final *pointValue // when complete
	t     tally
}

// tally sums the outcomes of the trials simulated so far, in trial order.
type tally struct {
	trials                 int
	writes, completion     int64   // sums; completion in nanoseconds
	writesSq, completionSq float64 // sums of squares, completion in ms², for the interval
	hist                   *engine.Histogram
}

func (r *runner) newPoint(s scenario, n int, names []string, withHist bool) *point {
	p := &point{n: n, withHist: withHist}
	for _, name := range names {
		c := &cell{key: pointKey{strategy: name, url: memoKey(s.v, name, n)}}
		if v, ok := r.points.get(c.key, withHist); ok {
			c.final = &v
			p.memoised++
		} else if withHist {
			c.t.hist = engine.NewHistogram(time.Millisecond, 4096)
		}
		p.cells = append(p.cells, c)
	}
	return p
}

func (p *point) final() bool      { return p.memoised == len(p.cells) }
func (p *point) unfinished() bool { return !p.final() }

// means returns the mean writes and completion time (ms) over the trials so far.
func (c *cell) means() (writes, completionMS float64) {
	if c.final != nil {
		return c.final.writes, c.final.completion
	}
	n := float64(c.t.trials)
	return float64(c.t.writes) / n, float64(c.t.completion) / 1e6 / n
}

// halfWidths returns the half-widths of the 95% intervals of the two means (1.96 standard
// errors), or false below two trials.
func (c *cell) halfWidths() (writes, completion float64, ok bool) {
	if c.final != nil {
		return c.final.writesHalf, c.final.completionHalf, c.final.trials > 1
	}
	n := float64(c.t.trials)
	if n < 2 {
		return 0, 0, false
	}
	half := func(sum, sumSq float64) float64 {
		v := (sumSq - sum*sum/n) / (n - 1)
		return 1.96 * math.Sqrt(max(v, 0)/n)
	}
	return half(float64(c.t.writes), c.t.writesSq), half(float64(c.t.completion)/1e6, c.t.completionSq), true
}

// histogram returns the writes-over-time histogram coarsened for display, and the trials it
// counts.
func (c *cell) histogram() (*engine.Histogram, int) {
	if c.final != nil {
		return c.final.hist, c.final.trials
	}
	h := &engine.Histogram{Width: c.t.hist.Width, MaxBins: c.t.hist.MaxBins, Counts: slices.Clone(c.t.hist.Counts)}
	h.Coarsen(timelineBins)
	return h, c.t.trials
}

// advance simulates trials [from, to) of p's unfinished cells on all CPUs, adds them to the
// tallies in trial order, and memoises cells that are complete.
func (r *runner) advance(ctx context.Context, s scenario, p *point, from, to int, tr *lab.Tracker) error {
	var todo []*cell
	for _, c := range p.cells {
		if c.final == nil && c.t.trials < to {
			todo = append(todo, c)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	k, trials := len(todo), to-from
	policies := make([]backoff.Policy, k)
	for i, c := range todo {
		policies[i] = Policy(c.key.strategy, s.base, s.cap, s.multiplier)
	}
	outs := make([]Outcome, k*trials) // unit u: trial from+u/k of cell u%k
	var hists [][]*engine.Histogram   // per worker, per cell
	var used []*World
	defer func() {
		for _, w := range used {
			r.worlds.put(w)
		}
	}()
	budget := runawayFactor * simEvents(int64(p.n))
	err := engine.Trials(ctx, k*trials, runtime.GOMAXPROCS(0), func() func(int) error {
		w := r.worlds.get()
		used = append(used, w) // newWorker runs before the workers start
		var hs []*engine.Histogram
		if p.withHist {
			hs = make([]*engine.Histogram, k)
			for i := range hs {
				hs[i] = engine.NewHistogram(time.Millisecond, 4096)
			}
			hists = append(hists, hs)
		}
		return func(u int) error {
			i, trial := u%k, from+u/k
			var h *engine.Histogram
			if p.withHist {
				h = hs[i]
			}
			out, err := w.Simulate(ctx, Config{
				Clients: p.n, Policy: policies[i], LatencyMean: s.mean, LatencySD: s.sd,
				Seed: s.seed, Trial: trial, MaxEvents: budget,
			}, h)
			if err != nil {
				return err
			}
			outs[u] = out
			r.events.Add(w.loop.Steps())
			r.work.Add(w.Work())
			tr.Add(1)
			return nil
		}
	})
	if err != nil {
		return err
	}
	for i, c := range todo {
		t := &c.t
		for trial := range trials {
			o := outs[trial*k+i]
			t.writes += o.Writes
			t.completion += int64(o.Completion)
			ms := float64(o.Completion) / 1e6
			t.writesSq += float64(o.Writes) * float64(o.Writes)
			t.completionSq += ms * ms
		}
		t.trials = to
		for _, hs := range hists {
			t.hist.Merge(hs[i])
		}
		if to == s.trials {
			w, comp := c.means()
			wh, ch, _ := c.halfWidths()
			v := pointValue{writes: w, completion: comp, writesHalf: wh, completionHalf: ch, trials: s.trials}
			if p.withHist {
				v.hist, _ = c.histogram()
			}
			r.points.put(c.key, v)
		}
	}
	return nil
}

// scheduleUpdate is the retry schedule of the posts “リトライ処理時のExponential Backoff(指数関数バックオフ)戦略”
// and “Exponential backoff における経過時間とリトライ間隔の関係”: exponential t_n = min(cap, a·r^(n−1))
// beside linear t_n = min(cap, a·n), with elapsed T_n and the relation t_{n+1} = a + (r−1)·T_n,
// and the sleep before retry n of the simulated exponential strategy, min(cap, a·r^n).
func scheduleUpdate(s scenario) lab.Update {
	exp := backoff.Schedule(s.base, s.cap, s.multiplier, s.retries)
	steps := make([]ScheduleStep, len(exp))
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 }
	var linElapsed time.Duration
	retry := make([]float64, len(exp))
	sleepExp, sleepLin := make([]float64, len(exp)), make([]float64, len(exp))
	elapsed, next, line := make([]float64, len(exp)), make([]float64, len(exp)), make([]float64, len(exp))
	for i, st := range exp {
		lin := backoff.Linear{Base: s.base, Cap: s.cap}.Sleep(st.Retry, 0, nil)
		linElapsed += lin
		nextSleep := backoff.NextSleep(s.base, s.multiplier, st.Elapsed)
		simulated := Policy(baseline, s.base, s.cap, s.multiplier).Sleep(st.Retry, 0, nil)
		steps[i] = ScheduleStep{
			Retry: st.Retry, SleepMS: ms(st.Sleep), ElapsedMS: ms(st.Elapsed),
			NextFromElapsed: ms(nextSleep), SimulatedSleepMS: ms(simulated),
			LinearSleepMS: ms(lin), LinearElapsedMS: ms(linElapsed),
		}
		retry[i], sleepExp[i], sleepLin[i] = float64(st.Retry), ms(st.Sleep), ms(lin)
		elapsed[i], line[i] = ms(st.Elapsed), ms(nextSleep)
		if i+1 < len(exp) {
			next[i] = ms(exp[i+1].Sleep)
		} else {
			next[i] = ms(min(nextSleep, capOr(s.cap)))
		}
	}
	return lab.Update{
		Summary: map[string]any{
			"schedule": steps,
			"schedule_relation": map[string]float64{
				"base_ms": ms(s.base), "multiplier": s.multiplier,
				"slope": s.multiplier - 1, "next_pct_of_elapsed": 100 * (s.multiplier - 1),
			},
		},
		Series: []lab.Series{
			{Name: "sleep exponential", Chart: "schedule", Label: "exponential", XUnit: "retry", YUnit: "ms", X: retry, Y: sleepExp},
			{Name: "sleep linear", Chart: "schedule", Label: "linear", XUnit: "retry", YUnit: "ms", X: retry, Y: sleepLin},
			{Name: "next sleep", Chart: "relation", Label: "next sleep t(n+1)", XUnit: "ms", YUnit: "ms", X: elapsed, Y: next},
			{Name: "relation line", Chart: "relation", Label: "a + (r−1)·T", XUnit: "ms", YUnit: "ms", X: elapsed, Y: line},
		},
	}
}

func capOr(c time.Duration) time.Duration {
	if c <= 0 {
		return math.MaxInt64
	}
	return c
}

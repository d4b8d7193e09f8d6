// Package hub runs scenarios for their viewers. A scenario is run at most once at a time,
// however many viewers watch it (a presenter's class, say): viewers subscribe to the run in
// flight and see what it has produced so far, then every update after. Finished results are
// kept in a bounded cache keyed by canonical URL, since the same URL always gives the same
// result.
//
// The hub bounds the work of the whole server: at most MaxRuns runs at once, each within the
// work budget checked before it starts. A subscription that finds no slot it may take fails at
// once with [ErrBusy] rather than joining a queue. When its last viewer leaves, a run is
// cancelled and its slot is free at once — a viewer dragging a slider supersedes its own runs
// many times a second and must never wait for them. While draining (lame duck), the hub starts
// no new run.
//
// # Fair slots
//
// A new run is owned by the client that starts it ([Hub.SubscribeFor]; the API names a client
// by its remote address, and a room's runs by the address that created the room); viewers
// joining a run in flight or a cached result take no slot. Two rules keep slots for a client
// that holds none, whatever the number of runs, rooms or addresses asking:
//
//   - Free capacity is a server-wide invariant: a client that holds no slot, and has held none
//     lately (for a minute), may take any free slot; but one holding a slot, or whose run has
//     just ended, takes one only while Config.Share slots (default a quarter of MaxRuns, none
//     below four slots) stay free after it. So however many runs one client asks for at once —
//     over many connections, through many rooms — it holds at most MaxRuns−Share slots; and
//     however many clients keep asking for runs, one after another, they hold at most that
//     many between them once each has had one: a new client's scenario finds a free slot at
//     once. Yet a client alone on the server may use every slot but Share.
//   - Turns: a client holding no slot that finds none free is told ErrBusy and keeps its turn
//     for Config.Turn (it retries within a second or so): a slot freed meanwhile goes to the
//     waiting client whose turn comes first — the one that held a slot least recently (never,
//     for a new address), then the one waiting longest — and no other client, waiting or
//     not, takes it from that client. A client whose run has just ended asks again behind a
//     new address, not ahead of it. So when new clients come faster than the slots kept free
//     can take them, each gets the next slot freed in its turn: its wait is bounded by the
//     runs in flight — each within the work budget and Config.MaxRunCPU — and by the new
//     clients ahead of it, not by how many others ask.
//
// Runs asked for on behalf of no client (the empty name: the CLI, tests, requests not over IP)
// are admitted whenever a slot is free. A negative Share turns both rules off.
//
// # Fairness
//
// Runs do not compute on their own goroutines at will: their work (engine.Trials,
// engine.Pace) asks the hub for a CPU a quantum (engine.Quantum, a few milliseconds) at a time.
// Admission estimates too ([Hub.Admit]): they run on the hub's CPUs as their client's work,
// one at a time per client, on at most half the CPUs at once, and their verdicts are kept by
// canonical URL, so that a client sending scenarios that are refused — or merely costly to
// estimate — spends its own share and slows no one else's run.
// The hub has CPUs quanta to give — one per CPU — and gives each free one to the waiting run
// that has computed least so far (least attained service). A viewer's new scenario therefore
// gets the CPUs within a quantum of asking and finishes in about the time it takes on an idle
// server, even while the heaviest scenarios the budget allows are in flight; those share what
// is left. A run that computes for longer than MaxRunCPU in all is stopped with a
// *param.Error that says what to lower: the safety net under the cost estimate.
//
// Each subscriber has a mailbox that merges undelivered updates (see [lab.Update.Merge]), so
// a viewer that reads slowly gets the newest state in one frame instead of a growing queue.
package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Errors a subscription can fail with.
var (
	ErrBusy     = errors.New("hub: every simulation slot is taken; try again shortly")
	ErrDraining = errors.New("hub: the server is shutting down and starts no new runs")
)

// Config sizes a Hub.
type Config struct {
	MaxRuns int // runs at once; at least 1
	// Share is the slots kept free for clients that hold none and have held none lately: a
	// client holding a slot, or whose run has just ended, takes one only while Share slots
	// stay free after it (see "Fair slots"); default MaxRuns/4. Negative: no fairness, any
	// client may take every slot.
	Share int
	// Turn is how long a client holding no slot, refused for want of one, keeps its turn for
	// the next slot freed (see "Fair slots"); default DefaultTurn.
	Turn      time.Duration
	CPUs      int           // quanta of computing at once; default GOMAXPROCS
	MaxRunCPU time.Duration // computing time one run may use; 0 means no limit
	Budget    int64         // work units (lab.Lab.Cost) one run may need; 0 means no limit
	CacheSize int           // finished results kept
	// CacheBytes bounds the finished results kept by their size as JSON; default
	// DefaultCacheBytes. (A 3,000-backend load-balancing result is some 0.29 MB: a bound in
	// count alone let 512 of them hold some 150 MB.)
	CacheBytes int64
	// WallClock measures a run's computing in wall time instead of its threads' CPU time:
	// for tests whose work sleeps on synctest's fake clock.
	WallClock bool
	// Observe, when set, is told how each run ended: its duration and error (nil, a context
	// error when cancelled). It is called without locks held, before the run's subscribers
	// are told it has ended: whoever has a result can count on the run being counted.
	Observe func(lab string, d time.Duration, err error)
}

// Hub shares runs among viewers. The zero value is not usable; use New.
type Hub struct {
	cfg  Config
	cpus *cpus

	mu       sync.Mutex
	runs     map[string]*run        // runs viewers may join, by key
	active   int                    // runs whose goroutine has not ended, joinable or cancelled
	slots    int                    // slots taken
	held     map[string]int         // slots taken by each named client
	turns    turns                  // clients holding none waiting for a slot, and when each last held one
	results  *lab.Cache[lab.Update] // finished results by key; nil when CacheSize ≤ 0
	admit    admission              // the budget's verdicts and the estimates computing them
	draining bool
	idle     *sync.Cond // signalled when active falls to 0
}

type run struct {
	key    string
	state  lab.Update // the fold of every update so far
	subs   map[*Sub]struct{}
	cancel context.CancelFunc
	slot   bool   // holds a slot
	client string // who started it
}

// New returns a hub.
func New(cfg Config) *Hub {
	if cfg.MaxRuns < 1 {
		cfg.MaxRuns = 1
	}
	if cfg.CPUs < 1 {
		cfg.CPUs = runtime.GOMAXPROCS(0)
	}
	if cfg.Share == 0 {
		cfg.Share = cfg.MaxRuns / 4
	}
	if cfg.Turn <= 0 {
		cfg.Turn = DefaultTurn
	}
	if cfg.CacheBytes <= 0 {
		cfg.CacheBytes = DefaultCacheBytes
	}
	h := &Hub{
		cfg:  cfg,
		cpus: newCPUs(cfg.CPUs),
		held: map[string]int{},
		runs: map[string]*run{},
	}
	h.turns.init(cfg.Turn)
	h.admit.init(h.cpus, cfg.CPUs, cfg.WallClock)
	if cfg.CacheSize > 0 {
		h.results = lab.NewWeighedCache(cfg.CacheSize, cfg.CacheBytes, jsonSize)
	}
	h.idle = sync.NewCond(&h.mu)
	return h
}

// DefaultTurn is Config.Turn's default: longer than a stream waits between two retries when
// told busy (at most about a second), so that a waiting viewer is back before its turn passes.
const DefaultTurn = 3 * time.Second

// Key returns the key a scenario is shared and cached under.
func Key(l *lab.Lab, v param.Values) string { return l.URL(v) }

// Subscribe returns a subscription to scenario v of l on behalf of no client in particular:
// SubscribeFor with the empty client and no deadline.
func (h *Hub) Subscribe(l *lab.Lab, v param.Values) (*Sub, error) {
	return h.SubscribeFor(context.Background(), "", l, v)
}

// SubscribeFor returns a subscription to scenario v of l: a cached result, the run in flight,
// or a new run owned by client (see "Fair slots") once the scenario is admitted ([Hub.Admit]).
// It fails with a *param.Error when the scenario is over budget, ErrBusy when no slot is free
// for client, ErrDraining, or ctx's error when ctx ends while its estimate waits.
func (h *Hub) SubscribeFor(ctx context.Context, client string, l *lab.Lab, v param.Values) (*Sub, error) {
	key := Key(l, v)
	h.mu.Lock()
	s, ok := h.join(key)
	h.mu.Unlock()
	if ok {
		return s, nil // a cached result or a run in flight was admitted when it started
	}
	if err := h.Admit(ctx, client, l, v); err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if s, ok := h.join(key); ok {
		return s, nil
	}
	if h.draining {
		return nil, ErrDraining
	}
	now := time.Now()
	if !h.admits(client, now) {
		h.turns.refused(client, h.held[client], now)
		return nil, ErrBusy
	}
	h.slots++
	if client != "" {
		h.held[client]++
		h.turns.took(client)
	}
	s = &Sub{hub: h, wake: make(chan struct{}, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	ctx = engine.WithPacer(ctx, &share{cpus: h.cpus, limit: h.cfg.MaxRunCPU, wall: h.cfg.WallClock})
	r := &run{key: key, subs: map[*Sub]struct{}{s: {}}, cancel: cancel, slot: true, client: client}
	s.run = r
	h.runs[key] = r
	h.active++
	go h.execute(ctx, r, l, v)
	return s, nil
}

// join returns a subscription to the cached result of key or its run in flight, if there is
// one; h.mu is held.
func (h *Hub) join(key string) (*Sub, bool) {
	if state, ok := h.cached(key); ok {
		s := &Sub{hub: h, wake: make(chan struct{}, 1)}
		s.pending.Merge(state)
		s.done = true
		s.signal()
		return s, true
	}
	r, ok := h.runs[key]
	if !ok {
		return nil, false
	}
	s := &Sub{hub: h, wake: make(chan struct{}, 1), run: r}
	s.pending.Merge(r.state)
	r.subs[s] = struct{}{}
	if !s.pending.Empty() {
		s.signal()
	}
	return s, true
}

func (h *Hub) execute(ctx context.Context, r *run, l *lab.Lab, v param.Values) {
	start := time.Now()
	err := runSafely(ctx, l, v, func(u lab.Update) {
		h.mu.Lock()
		defer h.mu.Unlock()
		r.state.Merge(u)
		for s := range r.subs {
			s.pending.Merge(u)
			s.signal()
		}
	})
	h.mu.Lock()
	if tl := (errTooLong{}); errors.As(err, &tl) {
		err = tooLong(l, v, r.state.Progress, tl.limit)
	}
	h.mu.Unlock()
	if h.cfg.Observe != nil {
		h.cfg.Observe(l.Name, time.Since(start), err)
	}
	h.mu.Lock()
	r.cancel()
	h.freeSlot(r)
	if h.runs[r.key] == r {
		delete(h.runs, r.key)
	}
	h.active--
	if err == nil {
		h.store(r.key, r.state)
	}
	for s := range r.subs {
		s.done, s.err, s.run = true, err, nil
		s.signal()
	}
	if h.active == 0 {
		h.idle.Broadcast()
	}
	h.mu.Unlock()
}

// admits reports whether client may take a slot at now (see "Fair slots"): a free slot that
// no waiting client whose turn comes first is owed, and, for a client already holding one,
// Share slots left free after it; h.mu is held.
func (h *Hub) admits(client string, now time.Time) bool {
	free := h.cfg.MaxRuns - h.slots
	switch {
	case free <= 0:
		return false
	case client == "" || h.cfg.Share < 0:
		return true
	}
	need := 1
	if h.held[client] > 0 || h.turns.recent(client, now) {
		need += h.cfg.Share
	}
	if free < need {
		return false
	}
	return need+h.turns.ahead(client, h.held[client] > 0, now, free-need+1) <= free
}

// freeSlot gives r's slot back, once; h.mu is held.
func (h *Hub) freeSlot(r *run) {
	if !r.slot {
		return
	}
	r.slot = false
	h.slots--
	if r.client != "" {
		if h.held[r.client]--; h.held[r.client] <= 0 {
			delete(h.held, r.client)
			h.turns.released(r.client, time.Now())
		}
	}
}

// tooLong is the error of a run of v stopped after computing for limit, progress of the
// way: the lab names a cost parameter and a value at which the run would fit ([lab.Lab.Stopped]).
func tooLong(l *lab.Lab, v param.Values, p *lab.Progress, limit time.Duration) error {
	frac := 0.0
	if p != nil && p.Total > 0 {
		frac = float64(p.Done) / float64(p.Total)
	}
	way := fmt.Sprintf("%d%% of the way", int(100*frac))
	switch {
	case frac < 0.01:
		way = "less than 1% of the way"
	case frac >= 1: // every unit counted, the last still being finished
		way, frac = "just before its end", 0.99
	}
	return l.Stopped(v, frac, fmt.Sprintf("this scenario needed more than %v of computing and was stopped %s", limit, way))
}

// ErrPanic is wrapped by the error of a run whose lab panicked. The panic ends that run only,
// not the server.
var ErrPanic = errors.New("hub: the lab panicked")

// runSafely runs l, turning a panic into an error wrapping ErrPanic with its stack.
func runSafely(ctx context.Context, l *lab.Lab, v param.Values, emit func(lab.Update)) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %s %s: %v\n%s", ErrPanic, l.Name, l.URL(v), p, debug.Stack())
		}
	}()
	return l.Stream(ctx, v, emit)
}

// store caches a finished result. The same URL gives the same result, so a second run of
// the key (one finished just as it was cancelled, and a fresh one) refreshes the entry.
func (h *Hub) store(key string, state lab.Update) {
	if h.results == nil {
		return
	}
	state.Progress = nil
	h.results.Put(key, state)
}

// DefaultCacheBytes is the default bound on the finished results a hub keeps, by their size as
// JSON: within the 64 MiB `playground serve` allows beside its runs' memory.
const DefaultCacheBytes = 24 << 20

// jsonSize is the weight of a result in the hub's cache: its size as JSON, within about two
// times of the memory it holds (its numbers 8 bytes each, their JSON some 5 to 18).
func jsonSize(u lab.Update) int64 {
	b, err := json.Marshal(u)
	if err != nil {
		return math.MaxInt64 // not kept
	}
	return int64(len(b))
}

// cached returns the finished result of key, if the hub keeps it.
func (h *Hub) cached(key string) (lab.Update, bool) {
	if h.results == nil {
		return lab.Update{}, false
	}
	return h.results.Get(key)
}

// Drain puts the hub in lame-duck mode: no new runs start (viewers of cached results and of
// runs in flight are still served). It then waits until every run has ended or ctx is done,
// and then cancels whatever is still running.
func (h *Hub) Drain(ctx context.Context) {
	h.mu.Lock()
	h.draining = true
	h.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, r := range h.runs {
			r.cancel()
		}
		h.idle.Broadcast()
	})
	defer stop()
	h.mu.Lock()
	for h.active > 0 && ctx.Err() == nil {
		h.idle.Wait()
	}
	h.mu.Unlock()
}

// Draining reports whether Drain has been called.
func (h *Hub) Draining() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.draining
}

// Running returns the number of runs in flight, including cancelled ones still stopping.
func (h *Hub) Running() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.active
}

// Sub is one viewer's subscription to a run.
type Sub struct {
	hub     *Hub
	wake    chan struct{} // holds a token when there is something to take
	run     *run          // nil once finished or closed
	pending lab.Update    // merged updates not yet taken
	done    bool
	err     error
	closed  bool
}

// signal wakes the reader; h.mu is held.
func (s *Sub) signal() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Ready returns a channel that receives a value when there is news to [Sub.Take].
func (s *Sub) Ready() <-chan struct{} { return s.wake }

// Take returns every update not yet taken, merged into one, and whether the run has finished
// (then with its error, nil on success). It does not wait.
func (s *Sub) Take() (u lab.Update, done bool, err error) {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	u, s.pending = s.pending, lab.Update{}
	return u, s.done, s.err
}

// Next waits until there is news and returns every update not yet taken, merged into one, and
// whether the run has finished (then with its error, nil on success). It returns ctx's error
// if ctx ends first.
func (s *Sub) Next(ctx context.Context) (u lab.Update, done bool, err error) {
	for {
		select {
		case <-s.wake:
		case <-ctx.Done():
			return lab.Update{}, false, ctx.Err()
		}
		u, done, err = s.Take()
		if done || !u.Empty() {
			return u, done, err
		}
	}
}

// Close ends the subscription. The run is cancelled if this was its last viewer.
func (s *Sub) Close() {
	s.hub.mu.Lock()
	defer s.hub.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	if r := s.run; r != nil {
		delete(r.subs, s)
		if len(r.subs) == 0 {
			r.cancel()
			s.hub.freeSlot(r) // the cancelled run stops within a quantum; its viewer need not wait
			if s.hub.runs[r.key] == r {
				delete(s.hub.runs, r.key) // a new viewer of this scenario starts afresh
			}
		}
		s.run = nil
	}
}

// Result runs scenario v of l through the hub to completion and returns its whole result:
// ResultFor on behalf of no client in particular.
func (h *Hub) Result(ctx context.Context, l *lab.Lab, v param.Values) (*lab.Result, error) {
	return h.ResultFor(ctx, "", l, v)
}

// ResultFor runs scenario v of l through the hub to completion, as a run of client if it
// starts one, and returns its whole result.
func (h *Hub) ResultFor(ctx context.Context, client string, l *lab.Lab, v param.Values) (*lab.Result, error) {
	s, err := h.SubscribeFor(ctx, client, l, v)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	r := lab.NewResult(l, v)
	for {
		u, done, err := s.Next(ctx)
		if err != nil {
			return nil, err
		}
		r.Apply(u)
		if done {
			return r, nil
		}
	}
}

package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/room"
)

// AttackConfig describes an attack: the hostile patterns a client can aim at the server
// (heavy, streams, memory, refusals, rooms, codes, presenter: see the loadtest command),
// run together while a default viewer keeps visiting, to see whether the server still serves
// that viewer.
//
// The attack has two phases. For Calm, only the default viewer visits: its first frame and
// done times without attack. Then the patterns start, Conns connections each, and once every
// one is under way (the flooded room full, say) they run for Duration while the viewer keeps
// visiting. Throughout, the tool reads the server's /metrics every
// ScrapeEvery for the runs in flight (the slots held) and its resident memory — from
// /proc/PID/status when PID is set, which also gives the process's peak (VmHWM), otherwise
// from process_resident_memory_bytes.
//
// Answers that a server under attack is expected to give — 429 and 503 (with Retry-After),
// 400 refusals, busy replies, error replies, closes with 1001, 1008, 1013 or 4000–4999 — are
// counted, never treated as failures, and so are timeouts: the attack reports figures, it does
// not judge them. What does not follow the protocol is a protocol error: another status (a
// 500, say), an error answer without its JSON body, a 429 or 503 without Retry-After, a
// connection reset or refused, an undecodable or unknown message, a reply to an id never
// sent, a close with another code.
type AttackConfig struct {
	Server
	// PID, when positive, is the server's process id, for its memory (Linux).
	PID int
	// Patterns names the patterns to run; all of them when empty.
	Patterns []string
	// Conns is how many connections (or request loops) each pattern keeps busy at once.
	Conns int
	// Calm is how long the default viewer is measured before the attack; Duration how long
	// the attack lasts.
	Calm, Duration time.Duration
	// Viewer is the default viewer's scenario, a lab URL such as /backoff. Each visit sets its
	// seed to a fresh value, so that each is a new run rather than a cached result.
	Viewer string
	// Pause is the time between the end of one visit and the next.
	Pause time.Duration
	// ScrapeEvery is how often the server's /metrics (and /proc) are read.
	ScrapeEvery time.Duration
	// Followers is how many followers watch the room the presenter floods.
	Followers int
	// Targets replaces the URLs of patterns, by name: for a server whose budget admits other
	// scenarios, say.
	Targets map[string]string
	// Idle is the most idle streams the idle pattern opens.
	Idle int
}

// pattern is one hostile pattern.
type pattern struct {
	Name string
	URL  string // what it requests by default; AttackConfig.Targets may replace it
	What string // what it does, for the report: a format whose %s is the URL
	run  func(ctx context.Context, a *attack, o *outcomes, url string)
	// setup says the pattern calls o.ready once it is under way; the others are at once.
	setup bool
}

// allPatterns are the hostile patterns of an attack, in the order they are reported. Their
// targets are the heaviest scenarios found admitted, and one refused only after an expensive
// estimate. A fresh seed is appended to each run's URL, so that each is a new run.
var allPatterns = []pattern{
	{"heavy", "/api/v1/backoff?trials=1000", "GET %s&seed=<fresh>, one loop per connection", heavy, false},
	{"streams", "/loadbalance?clients=901&backends=901&subset=301&rate=0.8&duration=3m1s",
		"streams each running %s&seed=<fresh>, the next at each done", streams, false},
	{"memory", "/api/v1/loadbalance?clients=3000&backends=3000&subset=1000&rate=0.1&duration=1s&policy=round_robin,least_loaded,weighted,random,p2c",
		"GET %s&seed=<fresh>, in bursts of one per connection", memory, false},
	{"refusals", "/api/v1/ratelimit?algorithms=sliding_log&store=racy&instances=16&limit=100000",
		"GET %s (over budget), one loop per connection", refusals, false},
	{"rooms", "/backoff", "POST /api/v1/rooms {\"url\": %q}, one loop per connection", rooms, false},
	{"codes", "/api/v1/rooms/", "GET %s<random code>, guessing join codes, one loop per connection", codes, false},
	{"presenter", "/backoff?clients=50&trials=10",
		"a presenter sending updates of %s&seed=<fresh> as fast as its socket takes them, to a room of followers", flood, true},
	{"roomruns", "/loadbalance?clients=901&backends=901&subset=301&rate=0.8&duration=3m1s",
		"-conns rooms of %s opened from one address, each presented with a fresh seed at each done, beside two streams of the same (fresh seeds) from that address", roomRuns, true},
	{"idle", "/backoff", "idle streams, of the lab's and of a room of %s, opened from one address as fast as the server takes them (up to -idle) and held", idle, true},
	{"addresses", "/loadbalance?clients=901&backends=901&subset=301&rate=0.8&duration=3m1s",
		"streams from -conns addresses of their own (127.0.1.1, …), each running %s&seed=<fresh>, the next at each done", addresses, false},
}

// Check reports what is wrong with the configuration, naming the flag at fault.
func (c *AttackConfig) Check() error {
	if err := c.Server.check(); err != nil {
		return err
	}
	for _, name := range c.Patterns {
		if !slices.ContainsFunc(allPatterns, func(p pattern) bool { return p.Name == name }) {
			var names []string
			for _, p := range allPatterns {
				names = append(names, p.Name)
			}
			return fmt.Errorf("-patterns: no pattern %q; the patterns are %s", name, strings.Join(names, ", "))
		}
	}
	for name, u := range c.Targets {
		if !slices.ContainsFunc(allPatterns, func(p pattern) bool { return p.Name == name }) || !strings.HasPrefix(u, "/") {
			return fmt.Errorf("-target %s=%s: give a pattern's name and a URL path", name, u)
		}
	}
	switch {
	case c.Conns < 1:
		return errors.New("-conns must be at least 1")
	case c.Calm <= 0 || c.Duration <= 0:
		return errors.New("-calm and -duration must be positive")
	case c.Pause < 0:
		return errors.New("-pause must not be negative")
	case c.ScrapeEvery <= 0:
		return errors.New("-scrape-every must be positive")
	case c.Followers < 0:
		return errors.New("-followers must not be negative")
	case c.PID < 0:
		return errors.New("-pid must not be negative")
	case c.Idle < 0:
		return errors.New("-idle must not be negative")
	}
	if _, _, err := viewerQuery(c.Viewer); err != nil {
		return err
	}
	return nil
}

// viewerQuery splits a lab URL into its lab and query.
func viewerQuery(raw string) (lab string, q url.Values, err error) {
	path, query, _ := strings.Cut(raw, "?")
	lab = strings.TrimPrefix(path, "/")
	if !strings.HasPrefix(path, "/") || lab == "" || strings.Contains(lab, "/") {
		return "", nil, fmt.Errorf("-viewer must be a lab URL such as /backoff, got %q", raw)
	}
	if q, err = url.ParseQuery(query); err != nil {
		return "", nil, fmt.Errorf("-viewer %q: %v", raw, err)
	}
	return lab, q, nil
}

// AttackReport is what an attack found.
type AttackReport struct {
	URL       string  `json:"url"`
	Conns     int     `json:"conns"`
	CalmS     float64 `json:"calm_s"`
	DurationS float64 `json:"duration_s"`
	Viewer    string  `json:"viewer"`

	Patterns []PatternReport `json:"patterns"`
	// The default viewer, without attack and under attack.
	Calm     VisitReport `json:"calm"`
	Attacked VisitReport `json:"attacked"`
	// Fresh viewers — each visit from an address the server has never seen, when it is on
	// IPv4 loopback — without attack and under attack: whether a new address gets a slot,
	// its first frame, while the attack holds what it can.
	FreshCalm     VisitReport `json:"fresh_calm"`
	FreshAttacked VisitReport `json:"fresh_attacked"`
	// FreshAddresses says whether the fresh viewers came from addresses of their own.
	FreshAddresses bool `json:"fresh_addresses"`
	// The runs in flight (slots held): the most seen without attack, and the most and mean
	// under attack.
	SlotsCalm float64 `json:"slots_calm_max"`
	SlotsPeak float64 `json:"slots_attack_max"`
	SlotsMean float64 `json:"slots_attack_mean"`
	// The server's resident memory in bytes: before the attack, the most seen from then on,
	// after it (once its runs have ended), and the process's own peak as the kernel keeps it
	// (VmHWM, with a PID; updated lazily, it may lag the largest reading by a little).
	// RSSFrom says where it was read.
	RSSBefore    float64 `json:"rss_before"`
	RSSPeak      float64 `json:"rss_peak"`
	RSSAfter     float64 `json:"rss_after"`
	RSSHighWater float64 `json:"rss_high_water,omitempty"`
	RSSFrom      string  `json:"rss_from"`
	// RunsAfter are the runs still in flight when the tool stopped waiting for them to end
	// (the timeout after the attack).
	RunsAfter float64 `json:"runs_after"`
	// Rejected are the server's refusals during the attack by reason, and Answers its HTTP
	// answers by status code, from its /metrics.
	Rejected map[string]float64 `json:"rejected"`
	Answers  map[string]float64 `json:"answers"`
	CPU      CPU                `json:"cpu"` // during the attack

	ProtocolErrors int64    `json:"protocol_errors"`
	ErrorSamples   []string `json:"error_samples,omitempty"`
}

// PatternReport counts a pattern's outcomes: answers by status ("200", "429"…), replies by
// type, closes by code, timeouts, and requests still unanswered when the attack ended ("cut").
type PatternReport struct {
	Name     string           `json:"name"`
	What     string           `json:"what"`
	Sent     int64            `json:"sent"` // requests or messages
	Outcomes map[string]int64 `json:"outcomes"`
	Samples  []string         `json:"samples,omitempty"` // the first few refusals and error replies
}

// VisitReport is the default viewer's visits in one phase: from sending its scenario to the
// first frame and to done.
type VisitReport struct {
	Visits     int   `json:"visits"`
	FirstFrame Dist  `json:"to_first_frame"`
	Done       Dist  `json:"to_done"`
	Busy       int64 `json:"busy_replies"`
	Refused    int64 `json:"refused"`    // answered with an error
	Unfinished int64 `json:"unfinished"` // no done within the timeout
	Cut        int64 `json:"cut"`        // still running when the phase ended
	DialFailed int64 `json:"dial_refused"`
}

// Attack runs the attack cfg describes. It fails when the configuration is wrong or the
// server's /metrics cannot be read before the attack; the protocol errors during it are in the
// report.
func Attack(ctx context.Context, cfg AttackConfig) (*AttackReport, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	tg, err := newTarget(cfg.Server, (len(allPatterns)+2)*cfg.Conns+cfg.Followers+8)
	if err != nil {
		return nil, err
	}
	a := &attack{cfg: cfg, t: tg, sources: map[string]*target{}}
	// Each pattern, and the default viewer, comes from an address of its own when the server
	// is on an IPv4 loopback address (all of 127.0.0.0/8 reaches it): the server's fair slots
	// and rate limits are per address, and an attacker is not its victim.
	if ip := net.ParseIP(tg.base.Hostname()).To4(); ip != nil && ip.IsLoopback() {
		a.sources[viewerSource] = tg.from(net.IPv4(127, 0, 0, 2))
		for i, p := range allPatterns {
			a.sources[p.Name] = tg.from(net.IPv4(127, 0, 0, byte(10+i)))
		}
	}
	a.seed.Store(int64(1+rand.IntN(1<<20)) << 30) // fresh seeds: a random base, then counting
	for _, p := range allPatterns {
		if len(cfg.Patterns) == 0 || slices.Contains(cfg.Patterns, p.Name) {
			a.patterns = append(a.patterns, p)
		}
	}
	return a.run(ctx)
}

// attack is the state of one attack.
type attack struct {
	cfg      AttackConfig
	t        *target
	sources  map[string]*target // by pattern name, and viewerSource: each its own address
	patterns []pattern
	seed     atomic.Int64

	mu       sync.Mutex
	proto    int64
	samples  []string
	bySource map[string]int
}

// viewerSource names the default viewer's address among an attack's sources.
const viewerSource = "default viewer"

// on is the target that pattern (or viewerSource) name reaches the server through: from an
// address of its own where the server's address allows it.
func (a *attack) on(name string) *target {
	if t, ok := a.sources[name]; ok {
		return t
	}
	return a.t
}

// target is the URL of pattern p.
func (a *attack) target(p pattern) string {
	if u, ok := a.cfg.Targets[p.Name]; ok {
		return u
	}
	return p.URL
}

// withSeed is u with a fresh seed.
func (a *attack) withSeed(u string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return u + sep + "seed=" + a.fresh()
}

// fresh is a seed no run has used.
func (a *attack) fresh() string { return strconv.FormatInt(a.seed.Add(1), 10) }

// protocol counts a protocol error of source (a pattern, the default viewer), keeping the
// first two of each source as examples.
func (a *attack) protocol(source, format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.proto++
	if a.bySource == nil {
		a.bySource = map[string]int{}
	}
	if a.bySource[source] < 2 {
		a.bySource[source]++
		a.samples = append(a.samples, source+": "+fmt.Sprintf(format, args...))
	}
}

// outcomes counts a pattern's outcomes. It is safe for concurrent use.
type outcomes struct {
	name    string // the pattern's
	ready   func() // says the pattern is under way
	mu      sync.Mutex
	sent    int64
	n       map[string]int64
	samples []string
}

func (o *outcomes) add(key string) {
	o.mu.Lock()
	if o.n == nil {
		o.n = map[string]int64{}
	}
	o.n[key]++
	o.mu.Unlock()
}

func (o *outcomes) addSent() {
	o.mu.Lock()
	o.sent++
	o.mu.Unlock()
}

// sample keeps msg as an example, unless there are three already.
func (o *outcomes) sample(msg string) {
	o.mu.Lock()
	if len(o.samples) < 3 && !slices.Contains(o.samples, msg) {
		o.samples = append(o.samples, msg)
	}
	o.mu.Unlock()
}

// run runs the phases and gathers the report.
func (a *attack) run(ctx context.Context) (*AttackReport, error) {
	s0, err := a.t.scrape(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the server's /metrics failed (is the server up?): %v", err)
	}
	r := &AttackReport{URL: a.t.base.String(), Conns: a.cfg.Conns, CalmS: a.cfg.Calm.Seconds(), DurationS: a.cfg.Duration.Seconds(), Viewer: a.cfg.Viewer}
	mon := &monitor{a: a}
	monCtx, stopMon := context.WithCancel(ctx)
	monDone := make(chan struct{})
	go func() {
		defer close(monDone)
		mon.watch(monCtx)
	}()
	defer func() { stopMon(); <-monDone }()
	r.RSSBefore, r.RSSFrom = mon.rss(s0)

	// Calm: the default viewer alone.
	a.progress("calm: the default viewer visits for %v", a.cfg.Calm)
	calmCtx, cancel := context.WithTimeout(ctx, a.cfg.Calm)
	r.FreshAddresses = len(a.sources) > 0
	var fresh sync.WaitGroup
	fresh.Go(func() { r.FreshCalm = a.freshVisits(calmCtx) })
	r.Calm = a.visits(calmCtx)
	fresh.Wait()
	cancel()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	// The attack.
	sa, err := a.t.scrape(ctx)
	if err != nil {
		sa = s0
	}
	u0 := usageNow(sa, err == nil)
	mon.setPhase(true)
	a.progress("attack: %d patterns, %d connections each, for %v", len(a.patterns), a.cfg.Conns, a.cfg.Duration)
	patternCtx, stopPatterns := context.WithCancel(ctx)
	defer stopPatterns()
	outs := make([]*outcomes, len(a.patterns))
	ready := make(chan struct{}, len(a.patterns))
	var wg sync.WaitGroup
	for i, p := range a.patterns {
		outs[i] = &outcomes{name: p.Name, ready: sync.OnceFunc(func() { ready <- struct{}{} })}
		wg.Go(func() {
			defer outs[i].ready() // a pattern that fails to set up is under way too
			if !p.setup {
				outs[i].ready()
			}
			p.run(patternCtx, a, outs[i], a.target(p))
		})
	}
	// The attack's time runs once every pattern is under way (a room full of followers, say),
	// or after the timeout.
	setup := time.NewTimer(a.cfg.Timeout)
	for range a.patterns {
		select {
		case <-ready:
		case <-setup.C:
		case <-ctx.Done():
		}
	}
	setup.Stop()
	attackCtx, cancel := context.WithTimeout(patternCtx, a.cfg.Duration)
	defer cancel()
	fresh.Go(func() { r.FreshAttacked = a.freshVisits(attackCtx) })
	r.Attacked = a.visits(attackCtx)
	fresh.Wait()
	<-attackCtx.Done()
	stopPatterns()
	wg.Wait()
	sb, err := a.t.scrape(ctx)
	if err != nil {
		sb = mon.lastSample()
	}
	u1 := usageNow(sb, err == nil)
	mon.setPhase(false)
	r.CPU = u1.since(u0)
	r.Rejected = delta(sa.labelValues("playground_runs_rejected_total", "reason"), sb.labelValues("playground_runs_rejected_total", "reason"))
	r.Answers = delta(sa.labelValues("playground_http_requests_total", "code"), sb.labelValues("playground_http_requests_total", "code"))

	// After: wait for the runs the attack started to end, then read the memory.
	a.progress("the attack is over; waiting for the server's runs to end")
	end := a.settle(ctx, sb)
	r.RSSAfter, _ = mon.rss(end)
	r.RunsAfter = end.get("playground_runs_in_flight")
	if a.cfg.PID > 0 {
		_, r.RSSHighWater, _ = processRSS(a.cfg.PID)
	}
	r.SlotsCalm, r.SlotsPeak, r.SlotsMean, r.RSSPeak = mon.summary()
	r.RSSPeak = max(r.RSSPeak, r.RSSBefore)
	for i, p := range a.patterns {
		o := outs[i]
		r.Patterns = append(r.Patterns, PatternReport{Name: p.Name, What: fmt.Sprintf(p.What, a.target(p)), Sent: o.sent, Outcomes: o.n, Samples: o.samples})
	}
	a.mu.Lock()
	r.ProtocolErrors, r.ErrorSamples = a.proto, slices.Clone(a.samples)
	a.mu.Unlock()
	return r, nil
}

func (a *attack) progress(format string, args ...any) {
	fmt.Fprintf(a.t.Progress, format+"\n", args...)
}

// settle waits, at most the timeout, until the server has no run in flight, and returns the
// last scrape.
func (a *attack) settle(ctx context.Context, last sample) sample {
	deadline := time.Now().Add(a.cfg.Timeout)
	for last.get("playground_runs_in_flight") > 0 && time.Now().Before(deadline) && ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-time.After(a.cfg.ScrapeEvery):
		}
		if s, err := a.t.scrape(ctx); err == nil {
			last = s
		}
	}
	return last
}

// monitor reads the server's runs in flight and memory every ScrapeEvery.
type monitor struct {
	a *attack

	mu              sync.Mutex
	attacking       bool
	last            sample
	calmSlots, peak float64
	slotSum         float64
	slotN           int
	rssPeak         float64
}

func (m *monitor) setPhase(attacking bool) {
	m.mu.Lock()
	m.attacking = attacking
	m.mu.Unlock()
}

func (m *monitor) lastSample() sample {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.last
}

// rss is the server's resident memory: from /proc when the PID is known, else from s.
func (m *monitor) rss(s sample) (float64, string) {
	if pid := m.a.cfg.PID; pid > 0 {
		if rss, _, err := processRSS(pid); err == nil {
			return rss, fmt.Sprintf("/proc/%d/status", pid)
		}
	}
	return s.get("process_resident_memory_bytes"), "/metrics"
}

func (m *monitor) watch(ctx context.Context) {
	tick := time.NewTicker(m.a.cfg.ScrapeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s, err := m.a.t.scrape(ctx)
		if err != nil {
			continue
		}
		rss, _ := m.rss(s)
		slots := s.get("playground_runs_in_flight")
		m.mu.Lock()
		m.last, m.rssPeak = s, max(m.rssPeak, rss)
		if m.attacking {
			m.peak, m.slotSum, m.slotN = max(m.peak, slots), m.slotSum+slots, m.slotN+1
		} else if m.slotN == 0 {
			m.calmSlots = max(m.calmSlots, slots)
		}
		m.mu.Unlock()
	}
}

func (m *monitor) summary() (calm, peak, mean, rss float64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.slotN > 0 {
		mean = round(m.slotSum/float64(m.slotN), 1)
	}
	return m.calmSlots, m.peak, mean, m.rssPeak
}

// visits makes the default viewer's visits until ctx ends: each a new connection that sends
// the scenario with a fresh seed and reads until its done.
func (a *attack) visits(ctx context.Context) VisitReport {
	lab, q, _ := viewerQuery(a.cfg.Viewer)
	var r VisitReport
	var first, done []time.Duration
	for ctx.Err() == nil {
		c, err := a.on(viewerSource).dial(ctx, labStream(lab))
		var se *statusError
		switch {
		case ctx.Err() != nil:
		case errors.As(err, &se) && (se.code == http.StatusServiceUnavailable || se.code == http.StatusTooManyRequests):
			r.DialFailed++
		case err != nil:
			a.protocol("default viewer", "%v", err)
		default:
			q.Set("seed", a.fresh())
			v, err := a.visit(ctx, c, 1, q.Encode())
			c.Close(websocket.StatusNormalClosure, "")
			r.Visits++
			r.Busy += v.busy
			switch {
			case v.refusal != "":
				r.Refused++
			case v.finished:
				first, done = append(first, v.first), append(done, v.done)
			case ctx.Err() != nil:
				r.Cut++
			default:
				r.Unfinished++
				if code := websocket.CloseStatus(err); code != -1 && !expectedClose(code) {
					a.protocol("default viewer", "%s", closeReason(err))
				} else if code == -1 && err != nil && !isTimeout(err) {
					a.protocol("default viewer", "%v", err)
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(a.cfg.Pause):
		}
	}
	r.FirstFrame, r.Done = distOf(first), distOf(done)
	return r
}

// visitResult is what one change on a stream got.
type visitResult struct {
	first, done time.Duration
	finished    bool   // its done arrived
	busy        int64  // busy replies
	refusal     string // the error reply, if any
}

// visit sends query as change id on c and reads until its done or error reply, within the
// timeout. It returns an error when the connection ends or times out (the library then closes
// it), or a message breaks the protocol.
func (a *attack) visit(ctx context.Context, c *websocket.Conn, id int64, query string) (visitResult, error) {
	var v visitResult
	ctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
	defer cancel()
	sent := time.Now()
	if err := a.t.send(ctx, c, params{Type: "params", ID: id, Query: query}); err != nil {
		return v, err
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
				// The timeout closed the connection under a read (one answering a ping, say):
				// a timeout, whatever the library's error says.
				err = fmt.Errorf("%w: %v", ctx.Err(), err)
			}
			return v, err
		}
		m, err := decode(b)
		if err != nil {
			return v, err
		}
		if m.id > id {
			return v, fmt.Errorf("reply %q to id %d, which was never sent", m.typ, m.id)
		}
		if m.id < id {
			continue
		}
		switch m.typ {
		case "start":
		case "frame":
			if v.first == 0 {
				v.first = time.Since(sent)
			}
		case "done":
			v.done, v.finished = time.Since(sent), true
			return v, nil
		case "busy":
			v.busy++
		case "error":
			v.refusal = m.err
			return v, nil
		default:
			return v, fmt.Errorf("unknown message type %q", m.typ)
		}
	}
}

// expectedClose reports whether a server may close a connection under attack with code: going
// away (draining), policy violation, try again later, or an application's own code.
func expectedClose(code websocket.StatusCode) bool {
	return code == websocket.StatusGoingAway || code == websocket.StatusPolicyViolation ||
		code == websocket.StatusTryAgainLater || code >= 4000 && code <= 4999
}

// answered tallies an HTTP exchange in o: its status, or a timeout; and counts a protocol
// error for a status not in ok, an error answer without its JSON body, a 429 or 503 without
// Retry-After, or a failed exchange.
func (a *attack) answered(ctx context.Context, o *outcomes, what string, ans answer, err error, ok ...int) {
	switch {
	case ctx.Err() != nil: // the attack is over: the exchange was cut short
		o.add("cut")
		return
	case isTimeout(err):
		o.add("timeout")
		return
	case err != nil:
		o.add("failed")
		a.protocol(o.name, "%s: %v", what, err)
		return
	}
	o.add(strconv.Itoa(ans.code))
	if !slices.Contains(ok, ans.code) {
		a.protocol(o.name, "%s: unexpected HTTP %d: %.200s", what, ans.code, ans.body)
		return
	}
	if ans.code < 400 {
		return
	}
	var body errorBody
	if err := json.Unmarshal(ans.body, &body); err != nil || body.Error == "" {
		a.protocol(o.name, "%s: HTTP %d without a JSON error body: %.200s", what, ans.code, ans.body)
		return
	}
	if (ans.code == http.StatusTooManyRequests || ans.code == http.StatusServiceUnavailable) && ans.retryAfter == "" {
		a.protocol(o.name, "%s: HTTP %d without Retry-After", what, ans.code)
	}
	o.sample(fmt.Sprintf("%d: %s", ans.code, body.Error))
}

// isTimeout reports whether err is a deadline passing: the tool's timeout, not a failure.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// loops runs body on Conns goroutines, each again and again until ctx ends.
func (a *attack) loops(ctx context.Context, body func()) {
	var wg sync.WaitGroup
	for range a.cfg.Conns {
		wg.Go(func() {
			for ctx.Err() == nil {
				body()
			}
		})
	}
	wg.Wait()
}

// get loops GET requests of path (with a fresh seed when fresh) and tallies their answers.
func (a *attack) get(ctx context.Context, o *outcomes, path func() string, ok ...int) {
	a.loops(ctx, func() {
		p := path()
		o.addSent()
		ans, err := a.on(o.name).do(ctx, http.MethodGet, p, nil, 0, 4<<10)
		a.answered(ctx, o, "GET "+p, ans, err, ok...)
	})
}

// Every answer a run's URL may get under attack: the result, a refusal, too many requests,
// busy or draining.
var runAnswers = []int{http.StatusOK, http.StatusBadRequest, http.StatusTooManyRequests, http.StatusServiceUnavailable}

func heavy(ctx context.Context, a *attack, o *outcomes, u string) {
	a.get(ctx, o, func() string { return a.withSeed(u) }, runAnswers...)
}

func refusals(ctx context.Context, a *attack, o *outcomes, u string) {
	a.get(ctx, o, func() string { return u }, runAnswers...)
}

func codes(ctx context.Context, a *attack, o *outcomes, u string) {
	a.get(ctx, o, func() string { return u + room.NewCode() },
		http.StatusOK, http.StatusNotFound, http.StatusTooManyRequests, http.StatusServiceUnavailable)
}

// memory sends bursts: Conns requests at once, the next burst when all have been answered.
func memory(ctx context.Context, a *attack, o *outcomes, u string) {
	for ctx.Err() == nil {
		var wg sync.WaitGroup
		for range a.cfg.Conns {
			wg.Go(func() {
				p := a.withSeed(u)
				o.addSent()
				ans, err := a.on(o.name).do(ctx, http.MethodGet, p, nil, 0, 4<<10)
				a.answered(ctx, o, "GET "+p, ans, err, runAnswers...)
			})
		}
		wg.Wait()
	}
}

func rooms(ctx context.Context, a *attack, o *outcomes, u string) {
	a.loops(ctx, func() {
		o.addSent()
		ans, err := a.on(o.name).do(ctx, http.MethodPost, "/api/v1/rooms", map[string]string{"url": u}, 0, 4<<10)
		a.answered(ctx, o, "POST /api/v1/rooms", ans, err, http.StatusCreated, http.StatusTooManyRequests, http.StatusServiceUnavailable)
	})
}

// streams keeps Conns streams each running the heavy stream scenario, with a fresh seed at
// each done or error reply; a connection that ends is dialled again.
func streams(ctx context.Context, a *attack, o *outcomes, u string) {
	lab, q, err := viewerQuery(u)
	if err != nil {
		a.protocol(o.name, "%v", err)
		return
	}
	a.loops(ctx, func() {
		c, ok := a.dialUnder(ctx, o, labStream(lab))
		if !ok {
			return
		}
		defer c.CloseNow()
		for id := int64(1); ctx.Err() == nil; id++ {
			q.Set("seed", a.fresh())
			o.addSent()
			v, err := a.visit(ctx, c, id, q.Encode())
			o.visited(v)
			if err != nil {
				a.ended(ctx, o, "stream", err)
				return
			}
		}
	})
}

// visited tallies a visit's replies.
func (o *outcomes) visited(v visitResult) {
	for range v.busy {
		o.add("busy")
	}
	switch {
	case v.finished:
		o.add("done")
	case v.refusal != "":
		o.add("error reply")
		o.sample(v.refusal)
	}
}

// dialUnder dials path from the target of o's pattern (dialFrom).
func (a *attack) dialUnder(ctx context.Context, o *outcomes, path string) (*websocket.Conn, bool) {
	return a.dialFrom(ctx, o, a.on(o.name), path)
}

// ended tallies why a connection ended: an expected close, a timeout (the library closes the
// connection), or a protocol error.
func (a *attack) ended(ctx context.Context, o *outcomes, what string, err error) {
	code := websocket.CloseStatus(err)
	switch {
	case ctx.Err() != nil:
	case isTimeout(err):
		o.add("timeout")
	case code != -1 && expectedClose(code):
		o.add("closed " + strconv.Itoa(int(code)))
	default:
		o.add("failed")
		a.protocol(o.name, "%s: %s", what, closeReason(err))
	}
}

// flood creates a room, fills it with followers, and has its presenter send updates as fast
// as its socket takes them, each a new seed; the followers and the presenter read everything
// sent to them.
func flood(ctx context.Context, a *attack, o *outcomes, u string) {
	rm, err := a.on(o.name).createRoom(ctx, u)
	for err != nil { // the rooms pattern may leave none to create for a while: try again
		if ctx.Err() != nil {
			return
		}
		o.add("room not created")
		o.sample(err.Error())
		if se := (*statusError)(nil); !errors.As(err, &se) || se.code != http.StatusTooManyRequests && se.code != http.StatusServiceUnavailable {
			a.protocol(o.name, "%v", err)
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
		rm, err = a.on(o.name).createRoom(ctx, u)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	read := func(c *websocket.Conn, who string) {
		defer c.CloseNow()
		for {
			_, b, err := c.Read(ctx)
			if err != nil {
				a.ended(ctx, o, who, err)
				return
			}
			m, err := decode(b)
			switch {
			case err != nil:
				a.protocol(o.name, "%s: %v", who, err)
			case m.typ == "error":
				o.add(who + " error reply")
				o.sample(m.err)
			case m.typ == "room":
				o.add(who + " room messages")
			}
		}
	}
	for range a.cfg.Followers {
		if c, ok := a.dialUnder(ctx, o, roomStream(rm.Code)); ok {
			wg.Go(func() { read(c, "follower") })
		}
	}
	_, q, _ := viewerQuery(u)
	for ctx.Err() == nil {
		c, ok := a.dialUnder(ctx, o, roomStream(rm.Code))
		if !ok {
			continue
		}
		if err := a.on(o.name).present(ctx, c, rm); err != nil {
			c.CloseNow()
			if ctx.Err() == nil {
				a.protocol(o.name, "%v", err)
			}
			return
		}
		o.ready()
		done := make(chan struct{})
		go func() {
			defer close(done)
			read(c, "presenter")
		}()
		for id := int64(1); ctx.Err() == nil; id++ {
			q.Set("seed", a.fresh())
			if err := a.t.send(ctx, c, params{Type: "params", ID: id, Query: q.Encode()}); err != nil {
				break
			}
			o.addSent()
		}
		c.CloseNow()
		<-done
	}
}

package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/lab"
)

// ViewersConfig describes a viewers load, or with Churn a churn load, on one lab's stream.
type ViewersConfig struct {
	Server
	// Labs are the labs the server offers, for their parameter declarations.
	Labs *lab.Registry
	// Lab is the lab whose stream is loaded.
	Lab string
	// Viewers is how many viewers join, over Ramp.
	Viewers int
	// Duration bounds the load (in churn mode too).
	Duration time.Duration
	Ramp     time.Duration
	// Think is the mean time between a viewer's gestures, randomized ±50%.
	Think time.Duration
	// Scenarios is how viewers move: "classroom", "presenter" or "spread".
	Scenarios string
	// BaseQuery is the presenter's scenario, as a query of the lab.
	BaseQuery string
	// Vary names the parameters viewers move (see the package documentation); empty, every
	// parameter BaseQuery does not set.
	Vary []string
	// Stops is how many positions a slider takes; Seeds, how many values a seed does (1..Seeds).
	Stops, Seeds int
	// Churn, when positive, runs that many connect/send/vanish cycles instead of viewers,
	// ChurnConcurrency at a time.
	Churn, ChurnConcurrency int
	// ScrapeEvery is how often /metrics is scraped during the load; Settle the longest wait
	// afterwards for the server's goroutines to stop falling; Window the length of the
	// periods latencies are also reported by (0: none).
	ScrapeEvery, Settle, Window time.Duration
}

// space returns the scenario space the configuration describes.
func (c *ViewersConfig) space() (*space, error) {
	if c.Labs == nil {
		return nil, errors.New("no labs to load")
	}
	l, ok := c.Labs.Lookup(c.Lab)
	if !ok {
		var names []string
		for _, l := range c.Labs.All() {
			names = append(names, l.Name)
		}
		return nil, fmt.Errorf("-lab %q is not a lab; choose one of %v", c.Lab, names)
	}
	return newSpace(l.Name, l.Params, c.BaseQuery, c.Vary, c.Stops, c.Seeds)
}

// Check reports what is wrong with the configuration, naming the flag at fault.
func (c *ViewersConfig) Check() error {
	if err := c.Server.check(); err != nil {
		return err
	}
	switch {
	case c.Viewers < 1:
		return errors.New("-viewers must be at least 1")
	case c.Duration <= 0:
		return errors.New("-duration must be positive")
	case c.Ramp < 0:
		return errors.New("-ramp must not be negative")
	case c.Think <= 0:
		return errors.New("-think must be positive")
	case c.Scenarios != "classroom" && c.Scenarios != "presenter" && c.Scenarios != "spread":
		return fmt.Errorf("-scenarios must be classroom, presenter or spread, got %q", c.Scenarios)
	case c.Stops < 2:
		return errors.New("-stops must be at least 2")
	case c.Seeds < 1:
		return errors.New("-seeds must be at least 1")
	case c.Churn < 0:
		return errors.New("-churn must not be negative")
	case c.ChurnConcurrency < 1:
		return errors.New("-churn-concurrency must be at least 1")
	case c.ScrapeEvery <= 0 || c.Settle < 0 || c.Window < 0:
		return errors.New("-scrape-every must be positive, -settle and -window not negative")
	}
	_, err := c.space()
	return err
}

// Viewers applies the load cfg describes and reports how the server coped. It fails only
// when the configuration is wrong or the server's /metrics cannot be read before the load;
// errors during the load are counted in the report.
func Viewers(ctx context.Context, cfg ViewersConfig) (*Report, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	sp, _ := cfg.space()
	tg, err := newTarget(cfg.Server, max(cfg.Viewers, cfg.ChurnConcurrency)+4)
	if err != nil {
		return nil, err
	}
	t := &tester{cfg: cfg, t: tg, log: tg.Progress, space: sp}
	t.pres.set(sp.start())
	return t.run(ctx)
}

// tester runs one viewers or churn load.
type tester struct {
	cfg   ViewersConfig
	t     *target
	log   io.Writer
	space *space
	rec   recorder
	pres  presenter

	peakMu         sync.Mutex
	peak           Snapshot
	last           sample // the newest scrape during the load
	scrapeFailures int64
}

// run measures the baseline, applies the load, lets the server settle and returns the report.
func (t *tester) run(ctx context.Context) (*Report, error) {
	base, err := t.t.scrape(ctx)
	if err != nil {
		return nil, fmt.Errorf("baseline scrape failed (is the server up?): %v", err)
	}
	t.peak, t.last = snapshotOf(base), base

	loadCtx, stopLoad := context.WithCancel(ctx)
	scraped := make(chan struct{})
	go func() {
		defer close(scraped)
		t.scrapeLoop(loadCtx)
	}()
	progressDone := make(chan struct{})
	go func() {
		defer close(progressDone)
		t.progress(loadCtx)
	}()

	u0 := usageNow(base, true)
	t.rec.mu.Lock()
	t.rec.start, t.rec.window = u0.at, t.cfg.Window
	t.rec.mu.Unlock()
	if t.cfg.Churn > 0 {
		t.churn(ctx)
	} else {
		t.viewers(ctx)
	}
	loadEnd := time.Now()
	stopLoad()
	<-scraped
	<-progressDone

	// The load is over: the last scrape of the load period, then wait for the server to let go.
	during, err := t.t.scrape(ctx)
	if err == nil {
		t.notePeak(during)
	} else {
		during = t.last
	}
	u1 := usageNow(during, true)
	u1.at = loadEnd
	end, settled := t.settle(ctx)
	r := t.report(base, during, end, loadEnd.Sub(u0.at), settled)
	r.CPU = u1.since(u0)
	return r, nil
}

// scrapeLoop scrapes /metrics every ScrapeEvery until ctx ends, keeping the peak.
func (t *tester) scrapeLoop(ctx context.Context) {
	tick := time.NewTicker(t.cfg.ScrapeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s, err := t.t.scrape(ctx)
		if err != nil {
			if ctx.Err() == nil {
				t.peakMu.Lock()
				t.scrapeFailures++
				t.peakMu.Unlock()
			}
			continue
		}
		t.notePeak(s)
	}
}

func (t *tester) notePeak(s sample) {
	t.peakMu.Lock()
	t.peak = peakOf(t.peak, snapshotOf(s))
	t.last = s
	t.peakMu.Unlock()
}

// progress prints a line every five seconds while ctx lasts.
func (t *tester) progress(ctx context.Context) {
	tick := time.NewTicker(5 * time.Second)
	defer tick.Stop()
	start := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t.rec.mu.Lock()
		c, n := t.rec.counts, len(t.rec.firstFrame)
		t.rec.mu.Unlock()
		t.peakMu.Lock()
		s := snapshotOf(t.last)
		t.peakMu.Unlock()
		fmt.Fprintf(t.log, "%5.0fs  sent %d  answered %d  done %d  refused %d  busy %d  frames %d  errors %d  | server: conns %.0f  goroutines %.0f  runs %.0f\n",
			time.Since(start).Seconds(), c.Sent, n, c.Done, c.Refused, c.BusyReplies, c.Frames, t.rec.errorCount(),
			s.Connections, s.Goroutines, s.RunsInFlight)
	}
}

// settle waits, after the load, until the server's goroutines stop falling (no new low for two
// seconds, with no stream connections left) or Settle has passed, and returns the last scrape
// and how long it took.
func (t *tester) settle(ctx context.Context) (sample, time.Duration) {
	start := time.Now()
	deadline := start.Add(t.cfg.Settle)
	last, err := t.t.scrape(ctx)
	if err != nil {
		last = t.last
	}
	low, lowAt := last.get("go_goroutines"), time.Now()
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if time.Since(lowAt) >= 2*time.Second && last.get("playground_stream_connections") == 0 {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(250 * time.Millisecond):
		}
		s, err := t.t.scrape(ctx)
		if err != nil {
			continue
		}
		last = s
		if g := s.get("go_goroutines"); g < low {
			low, lowAt = g, time.Now()
		}
	}
	return last, time.Since(start)
}

// dial opens a stream of the lab, timing the handshake.
func (t *tester) dial(ctx context.Context) (*websocket.Conn, error) {
	start := time.Now()
	c, err := t.t.dial(ctx, labStream(t.space.lab))
	if err == nil {
		t.rec.addDial(time.Since(start))
	}
	return c, err
}

// viewers runs the viewers, joining over the ramp, until the duration has passed.
func (t *tester) viewers(ctx context.Context) {
	stopAt := time.Now().Add(t.cfg.Duration)
	if t.cfg.Scenarios == "presenter" {
		go t.present(ctx, stopAt)
	}
	var wg sync.WaitGroup
	for i := range t.cfg.Viewers {
		delay := time.Duration(0)
		if t.cfg.Viewers > 1 {
			delay = t.cfg.Ramp * time.Duration(i) / time.Duration(t.cfg.Viewers)
		}
		wg.Go(func() {
			if sleepUntil(ctx, time.Now().Add(delay), stopAt) {
				t.viewer(ctx, stopAt)
			}
		})
	}
	wg.Wait()
}

// presenter is the shared position viewers follow in the presenter scenarios.
type presenter struct {
	mu sync.Mutex
	p  point
}

func (pr *presenter) get() point {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.p
}

func (pr *presenter) set(p point) {
	pr.mu.Lock()
	pr.p = p
	pr.mu.Unlock()
}

// present moves the presenter's point by one gesture every think time until stopAt.
func (t *tester) present(ctx context.Context, stopAt time.Time) {
	rng := newRand()
	p := t.pres.get()
	for sleepUntil(ctx, time.Now().Add(jitter(t.cfg.Think, rng)), stopAt) {
		for _, s := range t.space.gesture(p, false, rng) {
			if !sleepUntil(ctx, time.Now().Add(s.gap), stopAt) {
				return
			}
			p = s.p
			t.pres.set(p)
		}
	}
}

// jitter returns d randomized uniformly within ±50%.
func jitter(d time.Duration, rng *rand.Rand) time.Duration {
	return d/2 + time.Duration(rng.Int64N(int64(d)+1))
}

// newRand returns a randomly seeded generator for one goroutine.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }

// sleepUntil sleeps until at, and reports whether it got there before ctx ended or stopAt.
func sleepUntil(ctx context.Context, at, stopAt time.Time) bool {
	if at.After(stopAt) {
		at = stopAt
	}
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-timer.C:
		return time.Now().Before(stopAt)
	}
}

// viewer is one page: it connects, watches and changes parameters until stopAt, reconnecting
// with capped full-jitter backoff (as the page does) when its connection fails.
func (t *tester) viewer(ctx context.Context, stopAt time.Time) {
	rng := newRand()
	v := &viewerState{t: t, rng: rng, at: t.space.start()}
	failures := 0
	for ctx.Err() == nil && time.Now().Before(stopAt) {
		if failures > 0 {
			t.rec.add(func(c *Counts) { c.Reconnects++ })
			wait := time.Duration(rng.Int64N(int64(min(10*time.Second, 250*time.Millisecond<<min(failures, 6)))))
			if !sleepUntil(ctx, time.Now().Add(wait), stopAt) {
				return
			}
		}
		c, err := t.dial(ctx)
		if err != nil {
			if ctx.Err() == nil {
				t.rec.fail(errDial, err.Error())
			}
			failures++
			continue
		}
		if v.session(ctx, c, stopAt) {
			return
		}
		failures = 1
	}
}

// viewerState is a viewer's position and its pending change on the current connection.
type viewerState struct {
	t   *tester
	rng *rand.Rand
	at  point // the scenario last sent
	id  int64 // the last id sent; the page's counter survives reconnects

	mu       sync.Mutex
	pending  bool      // the change with id awaits "done"
	sentAt   time.Time // when it was sent
	lastMsg  time.Time // the newest message about it
	framed   bool      // its first frame has arrived
	frames   int
	busy     bool // it got a busy reply
	closing  bool // we are closing the connection
	settled  chan struct{}
	lostConn chan struct{}
}

// session runs one connection until stopAt (then closes it normally and returns true) or until
// it is lost (returns false).
func (v *viewerState) session(ctx context.Context, c *websocket.Conn, stopAt time.Time) bool {
	t := v.t
	// A hard bound on the connection's life: reads end by then whatever happens.
	sctx, cancel := context.WithDeadline(ctx, stopAt.Add(2*t.cfg.Timeout+5*time.Second))
	defer cancel()
	v.mu.Lock()
	v.pending, v.closing = false, false
	v.settled, v.lostConn = make(chan struct{}, 1), make(chan struct{})
	v.mu.Unlock()
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		v.read(sctx, c)
	}()
	finish := func(normal bool) bool {
		v.mu.Lock()
		v.closing = true
		v.mu.Unlock()
		if normal {
			c.Close(websocket.StatusNormalClosure, "") // bounded by the library (5s)
		} else {
			c.CloseNow()
		}
		cancel()
		<-readerDone
		return normal
	}

	// As a page does on connecting: send the scenario in view.
	if t.cfg.Scenarios == "presenter" {
		v.at = t.pres.get()
	}
	if !v.send(sctx, c) {
		return finish(false)
	}
gestures:
	for {
		if !v.wait(sctx, time.Now().Add(jitter(t.cfg.Think, v.rng)), stopAt) {
			break
		}
		var steps []step
		switch t.cfg.Scenarios {
		case "presenter":
			if p := t.pres.get(); !slices.Equal(p, v.at) {
				steps = []step{{p: p}}
			}
		default:
			steps = t.space.gesture(v.at, t.cfg.Scenarios == "spread", v.rng)
		}
		for _, s := range steps {
			if !v.wait(sctx, time.Now().Add(s.gap), stopAt) {
				break gestures
			}
			v.at = s.p
			if !v.send(sctx, c) {
				return finish(false)
			}
		}
	}
	if v.lost() || ctx.Err() != nil {
		return finish(false)
	}

	// The load is over: let the pending change finish, within the timeout.
	deadline := time.NewTimer(t.cfg.Timeout)
	defer deadline.Stop()
drain:
	for v.isPending() {
		select {
		case <-v.settled:
		case <-v.lostConn:
			return finish(false)
		case <-deadline.C:
			break drain
		case <-sctx.Done():
			break drain
		}
	}
	v.mu.Lock()
	if v.pending {
		v.pending = false
		t.rec.add(func(c *Counts) { c.Unfinished++ })
	}
	v.mu.Unlock()
	return finish(true)
}

// wait sleeps until at, checking for a stalled change, and reports whether the connection is
// alive and at came before stopAt.
func (v *viewerState) wait(ctx context.Context, at, stopAt time.Time) bool {
	if at.After(stopAt) {
		at = stopAt
	}
	timer := time.NewTimer(time.Until(at))
	defer timer.Stop()
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-v.lostConn:
			return false
		case <-tick.C:
			v.checkStall()
		case <-timer.C:
			return time.Now().Before(stopAt)
		}
	}
}

// checkStall gives up on a pending change that has had no reply within the timeout.
func (v *viewerState) checkStall() {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.pending && time.Since(v.lastMsg) > v.t.cfg.Timeout {
		v.pending = false
		v.t.rec.fail(errStall, fmt.Sprintf("no reply to a change for %v", v.t.cfg.Timeout))
	}
}

func (v *viewerState) isPending() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.pending
}

func (v *viewerState) lost() bool {
	select {
	case <-v.lostConn:
		return true
	default:
		return false
	}
}

// send sends the viewer's current point as a new change; a newer change supersedes the pending
// one, as on the page. It reports whether the write succeeded.
func (v *viewerState) send(ctx context.Context, c *websocket.Conn) bool {
	t := v.t
	v.mu.Lock()
	v.id++
	msg := params{Type: "params", ID: v.id, Query: t.space.query(v.at)}
	if v.pending && !v.framed {
		t.rec.add(func(c *Counts) { c.Superseded++ })
	}
	now := time.Now()
	v.pending, v.sentAt, v.lastMsg, v.framed, v.frames, v.busy = true, now, now, false, 0, false
	v.mu.Unlock()
	t.rec.add(func(c *Counts) { c.Sent++ })

	if err := t.t.send(ctx, c, msg); err != nil {
		v.mu.Lock()
		closing := v.closing
		v.pending = false
		v.mu.Unlock()
		if !closing && ctx.Err() == nil && !v.lost() {
			t.rec.fail(errSend, "send: "+err.Error())
		}
		return false
	}
	return true
}

// read handles the server's messages until the connection ends.
func (v *viewerState) read(ctx context.Context, c *websocket.Conn) {
	t := v.t
	defer close(v.lostConn)
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			v.mu.Lock()
			closing := v.closing
			v.pending = false
			v.mu.Unlock()
			if !closing && ctx.Err() == nil {
				t.rec.fail(errClose, closeReason(err))
			}
			return
		}
		m, err := decode(b)
		if err != nil {
			t.rec.fail(errProtocol, err.Error())
			continue
		}
		now := time.Now()
		v.mu.Lock()
		if id := v.id; m.id != id || !v.pending {
			v.mu.Unlock()
			if m.id > id {
				t.rec.fail(errProtocol, fmt.Sprintf("reply %q to id %d, which was never sent", m.typ, m.id))
			} else {
				t.rec.add(func(c *Counts) {
					c.StaleReplies++
					if m.typ == "frame" {
						c.Frames++
					}
				})
			}
			continue
		}
		v.lastMsg = now
		var settled bool
		switch m.typ {
		case "start":
		case "frame":
			v.frames++
			first := !v.framed
			v.framed = true
			t.rec.add(func(c *Counts) {
				c.Frames++
				if first {
					c.Answered++
				}
			})
			if first {
				t.rec.addLatency(true, v.busy, false, v.sentAt, now.Sub(v.sentAt))
			}
		case "done":
			one := v.frames == 1
			t.rec.addLatency(false, v.busy, one, v.sentAt, now.Sub(v.sentAt))
			t.rec.add(func(c *Counts) {
				c.Done++
				if one {
					c.OneFrameDone++
				}
			})
			settled = true
		case "error":
			// The query was drawn from the lab's declarations, so a refusal that names a
			// parameter is a rule of the server's (the work budget, a rule across two
			// parameters): an answer a page shows by the control, not a failure.
			if m.param != "" {
				t.rec.refuse(m.param, m.err)
			} else {
				t.rec.fail(errReply, "error reply: "+m.err)
			}
			settled = true
		case "busy":
			first := !v.busy
			v.busy = true
			t.rec.add(func(c *Counts) {
				c.BusyReplies++
				if first {
					c.BusyChanges++
				}
			})
		default:
			t.rec.fail(errProtocol, fmt.Sprintf("unknown message type %q", m.typ))
		}
		if settled {
			v.pending = false
			select {
			case v.settled <- struct{}{}:
			default:
			}
		}
		v.mu.Unlock()
	}
}

// closeReason describes why a connection the tool did not close ended.
func closeReason(err error) string {
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		return fmt.Sprintf("server closed the stream: %d %s", ce.Code, ce.Reason)
	}
	return "connection lost: " + err.Error()
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// tester runs one load test.
type tester struct {
	cfg    *config
	log    io.Writer // progress lines; io.Discard with -q
	client *http.Client
	space  *space
	rec    recorder
	pres   presenter

	peakMu         sync.Mutex
	peak           Snapshot
	last           sample // the newest scrape during the load
	scrapeFailures int64
}

func newTester(cfg *config, stderr io.Writer) *tester {
	t := &tester{
		cfg:    cfg,
		log:    stderr,
		client: newHTTPClient(cfg.timeout, max(cfg.viewers, cfg.churnConc)+4),
		space:  &space{base: cfg.baseQuery, clients: cfg.clients, sets: cfg.sets, seeds: cfg.seeds},
	}
	if cfg.quiet {
		t.log = io.Discard
	}
	t.pres.set(t.space.start())
	return t
}

// run measures the baseline, applies the load, lets the server settle and returns the report.
func (t *tester) run(ctx context.Context) (*Report, error) {
	base, err := scrape(ctx, t.client, t.cfg.metricsURL(), t.cfg.timeout)
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

	start, cpu0 := time.Now(), selfCPU()
	hostBusy0, hostTotal0, hostOK0 := hostCPU()
	psi0, psiOK0 := cpuPressure()
	t.rec.mu.Lock()
	t.rec.start, t.rec.window = start, t.cfg.window
	t.rec.mu.Unlock()
	if t.cfg.churn > 0 {
		t.churn(ctx)
	} else {
		t.viewers(ctx)
	}
	loadEnd, cpu1 := time.Now(), selfCPU()
	hostBusy1, hostTotal1, hostOK1 := hostCPU()
	psi1, psiOK1 := cpuPressure()
	stopLoad()
	<-scraped
	<-progressDone

	// The load is over: the last scrape of the load period, then wait for the server to let go.
	during, err := scrape(ctx, t.client, t.cfg.metricsURL(), t.cfg.timeout)
	if err == nil {
		t.notePeak(during)
	} else {
		during = t.last
	}
	end, settled := t.settle(ctx)
	r := t.report(base, during, end, loadEnd.Sub(start), settled)
	if el := loadEnd.Sub(start).Seconds(); el > 0 {
		r.ClientCPUCores = round((cpu1-cpu0).Seconds()/el, 2)
	}
	if hostOK0 && hostOK1 && hostTotal1 > hostTotal0 {
		r.HostCPUCores = round((hostBusy1-hostBusy0)/(hostTotal1-hostTotal0)*float64(runtime.NumCPU()), 2)
		r.OtherCPUCores = round(max(0, r.HostCPUCores-r.Server.CPUCores-r.ClientCPUCores), 2)
	}
	if el := loadEnd.Sub(start); psiOK0 && psiOK1 && el > 0 {
		r.CPUPressurePct = round(100*float64(psi1-psi0)/float64(el), 1)
	}
	r.CPUs = runtime.NumCPU()
	return r, nil
}

// scrapeLoop scrapes /metrics every scrapeEvery until ctx ends, keeping the peak.
func (t *tester) scrapeLoop(ctx context.Context) {
	tick := time.NewTicker(t.cfg.scrapeEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		s, err := scrape(ctx, t.client, t.cfg.metricsURL(), t.cfg.timeout)
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
		c, n, frames := t.rec.counts, len(t.rec.firstFrame), t.rec.counts.Frames
		t.rec.mu.Unlock()
		t.peakMu.Lock()
		s := snapshotOf(t.last)
		t.peakMu.Unlock()
		fmt.Fprintf(t.log, "%5.0fs  sent %d  answered %d  done %d  busy %d  frames %d  errors %d  | server: conns %.0f  goroutines %.0f  runs %.0f\n",
			time.Since(start).Seconds(), c.Sent, n, c.Done, c.BusyReplies, frames, t.rec.errorCount(),
			s.Connections, s.Goroutines, s.RunsInFlight)
	}
}

// settle waits, after the load, until the server's goroutines stop falling (no new low for two
// seconds, with no stream connections left) or settle has passed, and returns the last scrape
// and how long it took.
func (t *tester) settle(ctx context.Context) (sample, time.Duration) {
	start := time.Now()
	deadline := start.Add(t.cfg.settle)
	last, err := scrape(ctx, t.client, t.cfg.metricsURL(), t.cfg.timeout)
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
		s, err := scrape(ctx, t.client, t.cfg.metricsURL(), t.cfg.timeout)
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

// dial opens a stream within the timeout.
func (t *tester) dial(ctx context.Context) (*websocket.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, t.cfg.timeout)
	defer cancel()
	start := time.Now()
	c, resp, err := websocket.Dial(dctx, t.cfg.streamURL(), &websocket.DialOptions{HTTPClient: t.client})
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("dial: HTTP %s", resp.Status)
		}
		return nil, fmt.Errorf("dial: %v", err)
	}
	t.rec.addDial(time.Since(start))
	c.SetReadLimit(64 << 20) // whole results arrive in one frame
	return c, nil
}

// viewers runs the viewers, joining over the ramp, until the duration has passed.
func (t *tester) viewers(ctx context.Context) {
	stopAt := time.Now().Add(t.cfg.duration)
	if t.cfg.scenarios == "presenter" {
		go t.present(ctx, stopAt)
	}
	var wg sync.WaitGroup
	for i := range t.cfg.viewers {
		delay := time.Duration(0)
		if t.cfg.viewers > 1 {
			delay = t.cfg.ramp * time.Duration(i) / time.Duration(t.cfg.viewers)
		}
		wg.Go(func() {
			if sleepUntil(ctx, time.Now().Add(delay), stopAt) {
				t.viewer(ctx, stopAt)
			}
		})
	}
	wg.Wait()
}

// present moves the presenter's point by one gesture every think time until stopAt.
func (t *tester) present(ctx context.Context, stopAt time.Time) {
	rng := newRand()
	p := t.pres.get()
	for sleepUntil(ctx, time.Now().Add(jitter(t.cfg.think, rng)), stopAt) {
		for _, s := range t.space.gesture(p, false, rng) {
			if !sleepUntil(ctx, time.Now().Add(s.gap), stopAt) {
				return
			}
			p = s.p
			t.pres.set(p)
		}
	}
}

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

// message is the part of a server message the tool reads.
type message struct {
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	Error string `json:"error"`
	Param string `json:"param"`
}

// session runs one connection until stopAt (then closes it normally and returns true) or until
// it is lost (returns false).
func (v *viewerState) session(ctx context.Context, c *websocket.Conn, stopAt time.Time) bool {
	t := v.t
	// A hard bound on the connection's life: reads end by then whatever happens.
	sctx, cancel := context.WithDeadline(ctx, stopAt.Add(2*t.cfg.timeout+5*time.Second))
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
	if t.cfg.scenarios == "presenter" {
		v.at = t.pres.get()
	}
	if !v.send(sctx, c) {
		return finish(false)
	}
gestures:
	for {
		if !v.wait(sctx, time.Now().Add(jitter(t.cfg.think, v.rng)), stopAt) {
			break
		}
		var steps []step
		switch t.cfg.scenarios {
		case "presenter":
			if p := t.pres.get(); p != v.at {
				steps = []step{{p: p}}
			}
		default:
			steps = t.space.gesture(v.at, t.cfg.scenarios == "spread", v.rng)
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
	deadline := time.NewTimer(t.cfg.timeout)
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
	if v.pending && time.Since(v.lastMsg) > v.t.cfg.timeout {
		v.pending = false
		v.t.rec.fail(errStall, fmt.Sprintf("no reply to a change for %v", v.t.cfg.timeout))
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
	b, _ := json.Marshal(map[string]any{"type": "params", "id": v.id, "query": t.space.query(v.at)})
	if v.pending && !v.framed {
		t.rec.add(func(c *Counts) { c.Superseded++ })
	}
	now := time.Now()
	v.pending, v.sentAt, v.lastMsg, v.framed, v.frames, v.busy = true, now, now, false, 0, false
	v.mu.Unlock()
	t.rec.add(func(c *Counts) { c.Sent++ })

	wctx, cancel := context.WithTimeout(ctx, t.cfg.timeout)
	defer cancel()
	if err := c.Write(wctx, websocket.MessageText, b); err != nil {
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
				msg := "connection lost: " + err.Error()
				if code := websocket.CloseStatus(err); code != -1 {
					var ce websocket.CloseError
					errors.As(err, &ce)
					msg = fmt.Sprintf("server closed the stream: %d %s", code, ce.Reason)
				}
				t.rec.fail(errClose, msg)
			}
			return
		}
		var m message
		if err := json.Unmarshal(b, &m); err != nil {
			t.rec.fail(errProtocol, "undecodable message: "+err.Error())
			continue
		}
		now := time.Now()
		v.mu.Lock()
		if m.ID != v.id || !v.pending {
			v.mu.Unlock()
			if m.ID > v.id {
				t.rec.fail(errProtocol, fmt.Sprintf("reply %q to id %d, which was never sent", m.Type, m.ID))
			} else {
				t.rec.add(func(c *Counts) {
					c.StaleReplies++
					if m.Type == "frame" {
						c.Frames++
					}
				})
			}
			continue
		}
		v.lastMsg = now
		var settled bool
		switch m.Type {
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
			t.rec.fail(errReply, fmt.Sprintf("error reply (param %q): %s", m.Param, m.Error))
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
			t.rec.fail(errProtocol, fmt.Sprintf("unknown message type %q", m.Type))
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

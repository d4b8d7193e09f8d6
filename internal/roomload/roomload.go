// Package roomload measures how fast a teaching room fans a presenter's change out to its
// followers: the time from the presenter sending a change to the last follower receiving the
// new room message, the new run's start, its first frame and its end. It is the engine of
// `loadtest room` (cmd/loadtest), kept apart so that it can be tested against an in-process
// server.
//
// A measurement creates a room (POST /api/v1/rooms), connects the followers to the room's
// stream, waits until every one has received the room's first run, then connects one more
// connection that becomes the presenter. It then makes the changes one at a time: it sends
// a params message, waits until every follower has received both the room message and the
// end ("done") of the run of the new version, and pauses before the next change. Changes never
// overlap, so each one measures a clean fan-out.
package roomload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Config describes one measurement.
type Config struct {
	// BaseURL is the server, such as http://127.0.0.1:8080.
	BaseURL string
	// Scenario is the room's scenario, a lab URL such as /backoff?clients=50&trials=10.
	Scenario string
	// Vary names a parameter of the lab set to a fresh value at every change (a random
	// multiple of a million, different at each measurement, plus the change's number), so
	// that each change is a new run rather than one the server has cached.
	// Empty, every change sends the scenario again: the room's version still moves, and the
	// run is the cached one.
	Vary string
	// Followers is how many followers join the room.
	Followers int
	// Changes is how many changes the presenter makes.
	Changes int
	// Interval is the pause between one change's end (every follower has its run) and the
	// next change.
	Interval time.Duration
	// Timeout bounds each dial and write, the wait for the first run, and each change's
	// fan-out.
	Timeout time.Duration
	// Compress offers permessage-deflate, as browsers do.
	Compress bool
	// DialConcurrency is how many followers connect at a time (default 32).
	DialConcurrency int
	// Client makes the HTTP requests and websocket handshakes (default: a client with an
	// idle connection per follower and no proxy).
	Client *http.Client
	// Progress, when set, receives a line per phase.
	Progress io.Writer
	// Mark, when set, is called with "changes" just before the first change and with "end"
	// just after the last change has reached every follower: to measure resources over the
	// changes only.
	Mark func(phase string)
}

// Kind is a message of a change that a follower receives.
type Kind int

// The messages whose arrival is timed, in the order a follower usually receives them.
const (
	Room  Kind = iota // the room message with the new version
	Start             // the start of the new version's run
	Frame             // its first frame
	Done              // its end
	NumKinds
)

var kindNames = [NumKinds]string{"room", "start", "frame", "done"}

// String names the kind as the protocol does.
func (k Kind) String() string { return kindNames[k] }

// Dist summarizes latency samples.
type Dist struct {
	N             int
	P50, P99, Max time.Duration
}

// Result is what a measurement found. For each kind of message: Last summarizes, over the
// changes, the time from sending a change to the last follower's arrival; First, to the first
// follower's; Each, every follower's arrival at every change.
type Result struct {
	Code      string // the room
	Scenario  string // its canonical URL at the start
	Followers int
	Changes   int
	Connect   time.Duration // time to connect every follower and receive their first run
	Last      [NumKinds]Dist
	First     [NumKinds]Dist
	Each      [NumKinds]Dist
	Missing   [NumKinds]int // follower-changes that ended without this kind of message
	Busy      int64         // busy replies the followers received
	Bytes     int64         // bytes of messages the followers received during the changes
}

// Run makes the measurement described by cfg. It returns an error, naming what failed, when
// the room cannot be created or joined, a follower's connection fails, an error reply
// arrives, or a change does not reach every follower within cfg.Timeout.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Followers < 1 || cfg.Changes < 1 {
		return nil, errors.New("roomload: at least one follower and one change")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.DialConcurrency <= 0 {
		cfg.DialConcurrency = 32
	}
	if cfg.Client == nil {
		cfg.Client = NewClient(cfg.Followers+8, cfg.Timeout)
	}
	base, err := url.Parse(strings.TrimSuffix(cfg.BaseURL, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, fmt.Errorf("roomload: base URL %q is not http(s)://host[:port]", cfg.BaseURL)
	}
	_, query, _ := strings.Cut(cfg.Scenario, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("roomload: scenario %q: %v", cfg.Scenario, err)
	}

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	m := &measure{cfg: cfg, base: base, fail: cancel}
	created, err := m.createRoom(ctx)
	if err != nil {
		return nil, err
	}
	m.code = created.Code
	m.progress("room %s at %s", created.Code, created.URL)

	m.arrivals = make([][][NumKinds]time.Time, cfg.Followers)
	m.complete = make([]chan struct{}, cfg.Changes+1)
	m.pending = make([]atomic.Int32, cfg.Changes+1)
	for v := range m.complete {
		m.complete[v] = make(chan struct{})
		m.pending[v].Store(int32(cfg.Followers))
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	var conns []*websocket.Conn
	var connsMu sync.Mutex
	defer func() {
		connsMu.Lock()
		defer connsMu.Unlock()
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	join := func(ctx context.Context) (*websocket.Conn, error) {
		c, err := m.dial(ctx)
		if err == nil {
			connsMu.Lock()
			conns = append(conns, c)
			connsMu.Unlock()
		}
		return c, err
	}

	// Followers.
	began := time.Now()
	sem := make(chan struct{}, cfg.DialConcurrency)
	var dialErr atomic.Pointer[error]
	var dials sync.WaitGroup
	for i := range cfg.Followers {
		m.arrivals[i] = make([][NumKinds]time.Time, cfg.Changes+1)
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := join(ctx)
			if err != nil {
				err = fmt.Errorf("follower %d: %w", i, err)
				dialErr.CompareAndSwap(nil, &err)
				cancel(err)
				return
			}
			wg.Go(func() { m.follow(ctx, i, c) })
		})
	}
	dials.Wait()
	if p := dialErr.Load(); p != nil {
		return nil, m.orCause(ctx, *p) // a reader's failure may have cancelled the dials
	}
	if err := m.wait(ctx, 0, "the room's first run"); err != nil {
		return nil, err
	}
	connect := time.Since(began)
	m.progress("%d followers connected and served the first run in %v", cfg.Followers, connect.Round(time.Millisecond))
	if err := m.checkFollowers(ctx); err != nil {
		return nil, err
	}

	// The presenter.
	pc, err := join(ctx)
	if err != nil {
		return nil, fmt.Errorf("presenter: %w", err)
	}
	key := created.PresenterURL[strings.Index(created.PresenterURL, "#key=")+len("#key="):]
	if err := m.send(ctx, pc, map[string]any{"type": "present", "key": key}); err != nil {
		return nil, fmt.Errorf("presenter: %w", err)
	}
	if err := m.awaitPresenter(ctx, pc); err != nil {
		return nil, err
	}
	wg.Go(func() { m.present(ctx, pc) })

	// The changes.
	m.bytes.Store(0)
	m.busy.Store(0)
	m.sent = make([]time.Time, cfg.Changes+1)
	varyBase := 1000000 * (1 + rand.IntN(900)) // below 1e9, within most parameters' bounds
	mark := func(phase string) {
		if cfg.Mark != nil {
			cfg.Mark(phase)
		}
	}
	mark("changes")
	for v := 1; v <= cfg.Changes; v++ {
		if v > 1 && cfg.Interval > 0 {
			select {
			case <-time.After(cfg.Interval):
			case <-ctx.Done():
				return nil, m.cause(ctx)
			}
		}
		if cfg.Vary != "" {
			q.Set(cfg.Vary, strconv.Itoa(varyBase+v))
		}
		m.sent[v] = time.Now()
		if err := m.send(ctx, pc, map[string]any{"type": "params", "id": v, "query": q.Encode(), "step": ""}); err != nil {
			return nil, fmt.Errorf("presenter: change %d: %w", v, err)
		}
		if err := m.wait(ctx, v, fmt.Sprintf("change %d", v)); err != nil {
			return nil, err
		}
		m.progress("change %d of %d reached every follower", v, cfg.Changes)
	}
	mark("end")
	// Stop the readers before reading what they wrote.
	cancel(nil)
	wg.Wait()
	res := m.result()
	res.Scenario, res.Connect = created.URL, connect
	return res, nil
}

// measure is the state of one measurement.
type measure struct {
	cfg  Config
	base *url.URL
	code string
	fail context.CancelCauseFunc

	// arrivals[f][v][k] is when follower f received the message of kind k of version v,
	// written by f's reader only, read once every follower has completed v.
	arrivals [][][NumKinds]time.Time
	pending  []atomic.Int32  // followers yet to complete each version
	complete []chan struct{} // closed when every follower has completed the version
	sent     []time.Time     // when each change was sent
	bytes    atomic.Int64    // bytes received by the followers
	busy     atomic.Int64    // busy replies received by the followers
	printMu  sync.Mutex      // keeps progress lines whole
}

func (m *measure) progress(format string, args ...any) {
	if m.cfg.Progress != nil {
		m.printMu.Lock()
		fmt.Fprintf(m.cfg.Progress, format+"\n", args...)
		m.printMu.Unlock()
	}
}

// cause is why ctx ended: the first failure, or the context's own error.
func (m *measure) cause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// created is the answer to POST /api/v1/rooms.
type created struct {
	Code         string `json:"code"`
	URL          string `json:"url"`
	JoinURL      string `json:"join_url"`
	PresenterURL string `json:"presenter_url"`
}

func (m *measure) createRoom(ctx context.Context) (created, error) {
	body, _ := json.Marshal(map[string]string{"url": m.cfg.Scenario})
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.base.String()+"/api/v1/rooms", bytes.NewReader(body))
	if err != nil {
		return created{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := m.cfg.Client.Do(req)
	if err != nil {
		return created{}, fmt.Errorf("creating the room: %w", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	if resp.StatusCode != http.StatusCreated {
		return created{}, fmt.Errorf("creating the room: %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	var c created
	if err := json.Unmarshal(b, &c); err != nil || c.Code == "" || !strings.Contains(c.PresenterURL, "#key=") {
		return created{}, fmt.Errorf("creating the room: unexpected answer %.200s", b)
	}
	return c, nil
}

// checkFollowers checks that the server counts every follower (GET /api/v1/rooms/{code}),
// waiting a little for the count to settle.
func (m *measure) checkFollowers(ctx context.Context) error {
	deadline := time.Now().Add(m.cfg.Timeout)
	var n int
	for {
		var info struct {
			Followers int `json:"followers"`
		}
		rctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, m.base.String()+"/api/v1/rooms/"+m.code, nil)
		if err != nil {
			cancel()
			return err
		}
		resp, err := m.cfg.Client.Do(req)
		if err != nil {
			cancel()
			return fmt.Errorf("room info: %w", err)
		}
		err = json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&info)
		resp.Body.Close()
		cancel()
		if resp.StatusCode != http.StatusOK || err != nil {
			return fmt.Errorf("room info: %s (%v)", resp.Status, err)
		}
		if n = info.Followers; n == m.cfg.Followers {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server counts %d followers in the room, want %d", n, m.cfg.Followers)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return m.cause(ctx)
		}
	}
}

// dial opens a connection to the room's stream.
func (m *measure) dial(ctx context.Context) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	u := *m.base
	u.Scheme = map[string]string{"http": "ws", "https": "wss"}[u.Scheme]
	u.Path += "/api/v1/rooms/" + m.code + "/stream"
	opts := &websocket.DialOptions{
		HTTPClient: m.cfg.Client,
		HTTPHeader: http.Header{"Origin": {m.base.Scheme + "://" + m.base.Host}},
	}
	if m.cfg.Compress {
		opts.CompressionMode = websocket.CompressionNoContextTakeover
	}
	c, resp, err := websocket.Dial(ctx, u.String(), opts)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, err
	}
	c.SetReadLimit(64 << 20)
	return c, nil
}

// send writes one JSON message.
func (m *measure) send(ctx context.Context, c *websocket.Conn, msg map[string]any) error {
	b, _ := json.Marshal(msg)
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

// wait waits until every follower has completed version v.
func (m *measure) wait(ctx context.Context, v int, what string) error {
	t := time.NewTimer(m.cfg.Timeout)
	defer t.Stop()
	select {
	case <-m.complete[v]:
		return nil
	case <-ctx.Done():
		return m.cause(ctx)
	case <-t.C:
		return fmt.Errorf("%s: %d of %d followers had not received both the room message and the run's end after %v",
			what, m.pending[v].Load(), m.cfg.Followers, m.cfg.Timeout)
	}
}

// follow reads follower f's messages, timing the first of each kind of each version, until
// ctx ends; a failure ends the measurement.
func (m *measure) follow(ctx context.Context, f int, c *websocket.Conn) {
	at := m.arrivals[f]
	for {
		_, b, err := c.Read(ctx)
		now := time.Now()
		if err != nil {
			if ctx.Err() == nil {
				m.fail(fmt.Errorf("follower %d: connection ended: %w", f, err))
			}
			return
		}
		m.bytes.Add(int64(len(b)))
		msg, err := peek(b)
		if err != nil {
			m.fail(fmt.Errorf("follower %d: %w", f, err))
			return
		}
		var k Kind
		switch msg.typ {
		case "room":
			k = Room
		case "start":
			k = Start
		case "frame":
			k = Frame
		case "done":
			k = Done
		case "busy":
			m.busy.Add(1)
			continue
		case "error":
			m.fail(fmt.Errorf("follower %d: error reply: %.300s", f, b))
			return
		default:
			continue
		}
		v := msg.version
		if v < 0 || v >= int64(len(at)) {
			m.fail(fmt.Errorf("follower %d: %s message of version %d, which the presenter has not made", f, msg.typ, v))
			return
		}
		a := &at[v]
		if !a[k].IsZero() {
			continue
		}
		a[k] = now
		if (k == Room || k == Done) && !a[Room].IsZero() && !a[Done].IsZero() {
			if m.pending[v].Add(-1) == 0 {
				close(m.complete[v])
			}
		}
	}
}

// awaitPresenter reads the presenter's messages until the room message that says it presents.
func (m *measure) awaitPresenter(ctx context.Context, c *websocket.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return fmt.Errorf("presenter: waiting to present: %w", m.orCause(ctx, err))
		}
		var r struct {
			Type  string `json:"type"`
			Error string `json:"error"`
			Room  *struct {
				Presenter bool `json:"presenter"`
			} `json:"room"`
		}
		if err := json.Unmarshal(b, &r); err != nil {
			return fmt.Errorf("presenter: %w in %.200s", err, b)
		}
		switch {
		case r.Type == "error":
			return fmt.Errorf("presenter: %s", r.Error)
		case r.Type == "room" && r.Room != nil && r.Room.Presenter:
			return nil
		}
	}
}

// orCause is err, or the measurement's failure if that is what ended ctx.
func (m *measure) orCause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	return err
}

// present reads the presenter's connection (it receives the run, too) until ctx ends; an
// error reply, such as a refused change, ends the measurement.
func (m *measure) present(ctx context.Context, c *websocket.Conn) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				m.fail(fmt.Errorf("presenter: connection ended: %w", err))
			}
			return
		}
		if msg, _ := peek(b); msg.typ == "error" {
			hint := ""
			if m.cfg.Vary != "" {
				hint = fmt.Sprintf(" (is %q a parameter of the lab?)", m.cfg.Vary)
			}
			m.fail(fmt.Errorf("presenter: the server refused a change%s: %.300s", hint, b))
			return
		}
	}
}

// message is what a follower needs of a message: its type and version (a room message's
// version, a run message's id).
type message struct {
	typ     string
	version int64
}

var (
	typePrefix = []byte(`{"type":"`)
	idPrefix   = []byte(`","id":`)
)

// peek reads a message's type and version. The server writes "type" then "id" first, so a
// run message is read from its first bytes, however long its series; anything else is decoded
// whole.
func peek(b []byte) (message, error) {
	if rest, ok := bytes.CutPrefix(b, typePrefix); ok {
		if i := bytes.IndexByte(rest, '"'); i > 0 {
			typ := string(rest[:i])
			if num, ok := bytes.CutPrefix(rest[i:], idPrefix); ok && typ != "room" {
				j := 0
				for j < len(num) && (num[j] >= '0' && num[j] <= '9' || j == 0 && num[j] == '-') {
					j++
				}
				if id, err := strconv.ParseInt(string(num[:j]), 10, 64); err == nil && j < len(num) && (num[j] == ',' || num[j] == '}') {
					return message{typ: typ, version: id}, nil
				}
			}
		}
	}
	var r struct {
		Type string `json:"type"`
		ID   int64  `json:"id"`
		Room *struct {
			Version int64 `json:"version"`
		} `json:"room"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return message{}, fmt.Errorf("malformed message %.200q: %v", b, err)
	}
	msg := message{typ: r.Type, version: r.ID}
	if r.Type == "room" {
		if r.Room == nil {
			return message{}, fmt.Errorf("room message without a room: %.200s", b)
		}
		msg.version = r.Room.Version
	}
	return msg, nil
}

// result summarizes the arrivals.
func (m *measure) result() *Result {
	res := &Result{Code: m.code, Followers: m.cfg.Followers, Changes: m.cfg.Changes, Busy: m.busy.Load(), Bytes: m.bytes.Load()}
	for k := range NumKinds {
		var last, first, each []time.Duration
		for v := 1; v <= m.cfg.Changes; v++ {
			lo, hi, n := time.Duration(0), time.Duration(0), 0
			for f := range m.arrivals {
				t := m.arrivals[f][v][k]
				if t.IsZero() {
					res.Missing[k]++
					continue
				}
				d := t.Sub(m.sent[v])
				each = append(each, d)
				if n == 0 || d < lo {
					lo = d
				}
				if n == 0 || d > hi {
					hi = d
				}
				n++
			}
			if n > 0 {
				first, last = append(first, lo), append(last, hi)
			}
		}
		res.Last[k], res.First[k], res.Each[k] = DistOf(last), DistOf(first), DistOf(each)
	}
	return res
}

// NewClient returns an HTTP client for conns connections to a loopback server: no proxy, an
// idle connection for each, dials and response headers bounded by timeout.
func NewClient(conns int, timeout time.Duration) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil,
			DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConns:          conns,
			MaxIdleConnsPerHost:   conns,
			MaxConnsPerHost:       0,
			IdleConnTimeout:       30 * time.Second,
		},
		// No Timeout: it would bound the websocket connections' lives too.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

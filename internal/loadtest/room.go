package loadtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// RoomConfig describes a measurement of a teaching room's fan-out.
//
// A measurement creates a room (POST /api/v1/rooms), connects the followers to the room's
// stream, waits until every one has received the room's first run, then connects one more
// connection that becomes the presenter. It then makes the changes one at a time: it sends a
// params message, waits until every follower has received both the room message and the end
// ("done") of the run of the new version, and pauses before the next change. Changes never
// overlap, so each one measures a clean fan-out.
type RoomConfig struct {
	Server
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
	// DialConcurrency is how many followers connect at a time (default 32).
	DialConcurrency int
	// AnswerStep, when set, names a tour step of the scenario's lab that asks the class a
	// question (lab.Step.Answer), such as jitter/3 of the backoff lab: after the changes the
	// presenter moves the room to it, and every follower answers at once — follower f answers
	// AnswerValues[f mod len], as a follower of its own anonymous id. The measurement reports
	// how long the presenter's live tally takes to count every follower, and the server's CPU
	// meanwhile.
	AnswerStep   string
	AnswerValues []string
}

// AnswersResult is what the followers' answers measured (RoomConfig.AnswerStep).
type AnswersResult struct {
	Step     string
	Answered int           // followers the presenter's tally counted at the end
	Sent     time.Duration // from the first answer sent to the last
	Counted  time.Duration // from the first answer sent to the presenter's tally counting every follower
	Tallies  int64         // tally messages the presenter received meanwhile
	CPU      CPU
}

// Check reports what is wrong with the configuration, naming the flag at fault.
func (c *RoomConfig) Check() error {
	if err := c.Server.check(); err != nil {
		return err
	}
	switch {
	case c.Followers < 1:
		return errors.New("-followers must be at least 1")
	case c.Changes < 1:
		return errors.New("-changes must be at least 1")
	case !strings.HasPrefix(c.Scenario, "/"):
		return fmt.Errorf("-scenario must be a lab URL such as /backoff?clients=50, got %q", c.Scenario)
	case c.Interval < 0:
		return errors.New("-interval must not be negative")
	case c.AnswerStep != "" && len(c.AnswerValues) == 0:
		return errors.New("-answer-values must name the answers to send (options' IDs or numbers) when -answer-step is set")
	}
	_, query, _ := strings.Cut(c.Scenario, "?")
	if _, err := url.ParseQuery(query); err != nil {
		return fmt.Errorf("-scenario %q: %v", c.Scenario, err)
	}
	return nil
}

// kind is a message of a change that a follower receives.
type kind int

// The messages whose arrival is timed, in the order a follower usually receives them.
const (
	msgRoom  kind = iota // the room message with the new version
	msgStart             // the start of the new version's run
	msgFrame             // its first frame
	msgDone              // its end
	numKinds
)

var kindNames = [numKinds]string{"room", "start", "frame", "done"}

// String names the kind as the protocol does.
func (k kind) String() string { return kindNames[k] }

// RoomResult is what a measurement found. For each kind of message: Last summarizes, over the
// changes, the time from sending a change to the last follower's arrival; First, to the first
// follower's; Each, every follower's arrival at every change.
type RoomResult struct {
	Code      string // the room
	Scenario  string // its canonical URL at the start
	Followers int
	Changes   int
	Connect   time.Duration // time to connect every follower and receive their first run
	Last      [numKinds]Dist
	First     [numKinds]Dist
	Each      [numKinds]Dist
	Missing   [numKinds]int // follower-changes that ended without this kind of message
	Busy      int64         // busy replies the followers received
	Bytes     int64         // bytes of messages the followers received during the changes
	CPU       CPU           // over the changes
	Answers   *AnswersResult
}

// MeasureRoom makes the measurement described by cfg. It returns an error, naming what
// failed, when the room cannot be created or joined, a follower's connection fails, an error
// reply arrives, or a change does not reach every follower within the timeout.
func MeasureRoom(ctx context.Context, cfg RoomConfig) (*RoomResult, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	if cfg.DialConcurrency <= 0 {
		cfg.DialConcurrency = 32
	}
	tg, err := newTarget(cfg.Server, cfg.Followers+8)
	if err != nil {
		return nil, err
	}
	_, query, _ := strings.Cut(cfg.Scenario, "?")
	q, _ := url.ParseQuery(query)

	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	created, err := tg.createRoom(ctx, cfg.Scenario)
	if err != nil {
		return nil, err
	}
	m := newMeasure(cfg, tg, cancel, created.Code)
	m.progress("room %s at %s", created.Code, created.URL)
	// On the way out, close every connection, then wait for the readers to end.
	defer m.readers.Wait()
	defer m.closeAll()

	connect, err := m.connectFollowers(ctx)
	if err != nil {
		return nil, err
	}
	pc, err := m.connectPresenter(ctx, created)
	if err != nil {
		return nil, err
	}
	cpu, err := m.makeChanges(ctx, pc, q)
	if err != nil {
		return nil, err
	}
	var answers *AnswersResult
	if cfg.AnswerStep != "" {
		if answers, err = m.answer(ctx, pc, q.Encode()); err != nil {
			return nil, err
		}
	}
	// Stop the readers before reading what they wrote.
	cancel(nil)
	m.readers.Wait()
	res := m.result()
	res.Scenario, res.Connect, res.CPU, res.Answers = created.URL, connect, cpu, answers
	return res, nil
}

// newMeasure is the state of a measurement of the room with code before anyone joins: room
// for every follower's arrivals and connection, and for each version (see versions) the count
// of followers yet to complete it. fail ends the measurement, giving its cause.
func newMeasure(cfg RoomConfig, tg *target, fail context.CancelCauseFunc, code string) *measure {
	m := &measure{cfg: cfg, t: tg, code: code, fail: fail}
	versions := m.versions()
	m.arrivals = make([][][numKinds]time.Time, cfg.Followers)
	m.conns = make([]*websocket.Conn, cfg.Followers)
	m.tallied = make(chan struct{})
	m.complete = make([]chan struct{}, versions)
	m.pending = make([]atomic.Int32, versions)
	for v := range m.complete {
		m.complete[v] = make(chan struct{})
		m.pending[v].Store(int32(cfg.Followers))
	}
	return m
}

// versions is how many versions the room has over the measurement: the first run's, each
// change's, and the question's if the configuration asks one.
func (m *measure) versions() int {
	n := m.cfg.Changes + 1
	if m.cfg.AnswerStep != "" {
		n++
	}
	return n
}

// join connects to the room's stream and keeps the connection for closeAll.
func (m *measure) join(ctx context.Context) (*websocket.Conn, error) {
	c, err := m.t.dial(ctx, roomStream(m.code))
	if err == nil {
		m.openMu.Lock()
		m.open = append(m.open, c)
		m.openMu.Unlock()
	}
	return c, err
}

// closeAll closes every connection join made.
func (m *measure) closeAll() {
	m.openMu.Lock()
	defer m.openMu.Unlock()
	for _, c := range m.open {
		c.CloseNow()
	}
}

// connectFollowers connects the followers, DialConcurrency at a time, each with its reader
// (follow), waits until every one has received the room's first run, and checks that the
// server counts them all. It returns the time from the start of the dials until every
// follower had the first run.
func (m *measure) connectFollowers(ctx context.Context) (time.Duration, error) {
	cfg := m.cfg
	versions := m.versions()
	began := time.Now()
	sem := make(chan struct{}, cfg.DialConcurrency)
	var dialErr atomic.Pointer[error]
	var dials sync.WaitGroup
	for i := range cfg.Followers {
		m.arrivals[i] = make([][numKinds]time.Time, versions)
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := m.join(ctx)
			if err != nil {
				err = fmt.Errorf("follower %d: %w", i, err)
				dialErr.CompareAndSwap(nil, &err)
				m.fail(err)
				return
			}
			m.conns[i] = c
			m.readers.Go(func() { m.follow(ctx, i, c) })
		})
	}
	dials.Wait()
	if p := dialErr.Load(); p != nil {
		return 0, m.orCause(ctx, *p) // a reader's failure may have cancelled the dials
	}
	if err := m.wait(ctx, 0, "the room's first run"); err != nil {
		return 0, err
	}
	connect := time.Since(began)
	m.progress("%d followers connected and served the first run in %v", cfg.Followers, connect.Round(time.Millisecond))
	if err := m.checkFollowers(ctx); err != nil {
		return 0, err
	}
	return connect, nil
}

// connectPresenter connects one more connection, makes it the room's presenter with the key
// of room r, and starts its reader (present).
func (m *measure) connectPresenter(ctx context.Context, r created) (*websocket.Conn, error) {
	pc, err := m.join(ctx)
	if err != nil {
		return nil, fmt.Errorf("presenter: %w", err)
	}
	if err := m.t.present(ctx, pc, r); err != nil {
		return nil, m.orCause(ctx, err)
	}
	m.readers.Go(func() { m.present(ctx, pc) })
	return pc, nil
}

// makeChanges has the presenter pc make the changes one at a time, Interval apart: each
// sends query q, with Vary set to a fresh value (q keeps the last), and waits until every
// follower has the change's room message and its run's end. It counts the followers' bytes
// and busy replies from the first change on, and returns the machine's CPU use over the
// changes.
func (m *measure) makeChanges(ctx context.Context, pc *websocket.Conn, q url.Values) (CPU, error) {
	cfg := m.cfg
	m.bytes.Store(0)
	m.busy.Store(0)
	m.sent = make([]time.Time, m.versions())
	varyBase := 1000000 * (1 + rand.IntN(900)) // below 1e9, within most parameters' bounds
	s0, ok0 := m.t.scrape(ctx)
	u0 := usageNow(s0, ok0 == nil)
	for v := 1; v <= cfg.Changes; v++ {
		if v > 1 && cfg.Interval > 0 {
			select {
			case <-time.After(cfg.Interval):
			case <-ctx.Done():
				return CPU{}, m.cause(ctx)
			}
		}
		if cfg.Vary != "" {
			q.Set(cfg.Vary, strconv.Itoa(varyBase+v))
		}
		m.sent[v] = time.Now()
		if err := m.t.send(ctx, pc, params{Type: "params", ID: int64(v), Query: q.Encode()}); err != nil {
			return CPU{}, fmt.Errorf("presenter: change %d: %w", v, err)
		}
		if err := m.wait(ctx, v, fmt.Sprintf("change %d", v)); err != nil {
			return CPU{}, err
		}
		m.progress("change %d of %d reached every follower", v, cfg.Changes)
	}
	s1, ok1 := m.t.scrape(ctx)
	u1 := usageNow(s1, ok1 == nil)
	return u1.since(u0), nil
}

// answer moves the room to the question (the room's version after the changes), waits until
// every follower has it, then has every follower answer at once, and times the presenter's
// tally until it counts them all.
func (m *measure) answer(ctx context.Context, pc *websocket.Conn, query string) (*AnswersResult, error) {
	cfg := m.cfg
	v := cfg.Changes + 1
	m.sent[v] = time.Now()
	m.answerStep.Store(&cfg.AnswerStep)
	if err := m.t.send(ctx, pc, params{Type: "params", ID: int64(v), Query: query, Step: cfg.AnswerStep}); err != nil {
		return nil, fmt.Errorf("presenter: the question: %w", err)
	}
	if err := m.wait(ctx, v, "the question "+cfg.AnswerStep); err != nil {
		return nil, err
	}
	m.progress("every follower has the question %s", cfg.AnswerStep)
	s0, ok0 := m.t.scrape(ctx)
	u0 := usageNow(s0, ok0 == nil)
	m.tallies.Store(0)
	began := time.Now()
	m.answersFrom.Store(&began)
	sem := make(chan struct{}, max(cfg.DialConcurrency, 1))
	var sends sync.WaitGroup
	var sendErr atomic.Pointer[error]
	for f, c := range m.conns {
		sem <- struct{}{}
		sends.Go(func() {
			defer func() { <-sem }()
			msg := map[string]any{"type": "answer", "id": 1, "step": cfg.AnswerStep, "answer": cfg.AnswerValues[f%len(cfg.AnswerValues)],
				"who": fmt.Sprintf("loadtest-%s-%08d", m.code, f)}
			if err := m.t.send(ctx, c, msg); err != nil {
				err = fmt.Errorf("follower %d: answering: %w", f, err)
				sendErr.CompareAndSwap(nil, &err)
			}
		})
	}
	sends.Wait()
	sent := time.Since(began)
	if p := sendErr.Load(); p != nil {
		return nil, m.orCause(ctx, *p)
	}
	t := time.NewTimer(cfg.Timeout)
	defer t.Stop()
	select {
	case <-m.tallied:
	case <-ctx.Done():
		return nil, m.cause(ctx)
	case <-t.C:
		return nil, fmt.Errorf("the presenter's tally counted %d of %d answers after %v", m.answered.Load(), cfg.Followers, cfg.Timeout)
	}
	counted := (*m.countedAt.Load()).Sub(began)
	s1, ok1 := m.t.scrape(ctx)
	u1 := usageNow(s1, ok1 == nil)
	m.progress("the presenter's tally counted %d answers %v after the first was sent", cfg.Followers, counted.Round(time.Millisecond))
	return &AnswersResult{Step: cfg.AnswerStep, Answered: int(m.answered.Load()), Sent: sent, Counted: counted,
		Tallies: m.tallies.Load(), CPU: u1.since(u0)}, nil
}

// roomStream is the path of the stream of the room with code.
func roomStream(code string) string { return "/api/v1/rooms/" + url.PathEscape(code) + "/stream" }

// created is the answer to POST /api/v1/rooms.
type created struct {
	Code         string `json:"code"`
	URL          string `json:"url"`
	JoinURL      string `json:"join_url"`
	PresenterURL string `json:"presenter_url"`
}

// key is the presenter's key, from the fragment of the presenter's URL.
func (c created) key() string {
	_, key, _ := strings.Cut(c.PresenterURL, "#key=")
	return key
}

// createRoom creates a room for scenario.
func (t *target) createRoom(ctx context.Context, scenario string) (created, error) {
	a, err := t.do(ctx, http.MethodPost, "/api/v1/rooms", map[string]string{"url": scenario}, 0, 1<<16)
	if err != nil {
		return created{}, fmt.Errorf("creating the room: %w", err)
	}
	if a.code != http.StatusCreated {
		return created{}, &statusError{code: a.code, err: fmt.Errorf("creating the room: %d %s: %s", a.code, http.StatusText(a.code), strings.TrimSpace(string(a.body)))}
	}
	var c created
	if err := json.Unmarshal(a.body, &c); err != nil || c.Code == "" || c.key() == "" {
		return created{}, fmt.Errorf("creating the room: unexpected answer %.200s", a.body)
	}
	return c, nil
}

// present makes connection c the presenter of room r: it sends the key and reads until the
// room message that says c presents.
func (t *target) present(ctx context.Context, c *websocket.Conn, r created) error {
	if err := t.send(ctx, c, map[string]string{"type": "present", "key": r.key()}); err != nil {
		return fmt.Errorf("presenter: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return fmt.Errorf("presenter: waiting to present: %w", err)
		}
		m, err := decode(b)
		switch {
		case err != nil:
			return fmt.Errorf("presenter: %w", err)
		case m.typ == "error":
			return fmt.Errorf("presenter: %s", m.err)
		case m.typ == "room" && m.presenter:
			return nil
		}
	}
}

// measure is the state of one measurement.
type measure struct {
	cfg  RoomConfig
	t    *target
	code string
	fail context.CancelCauseFunc

	// Every connection the measurement opened (join), closed together when it ends (closeAll);
	// the readers of the followers' and the presenter's connections (follow, present).
	open    []*websocket.Conn
	openMu  sync.Mutex
	readers sync.WaitGroup

	// arrivals[f][v][k] is when follower f received the message of kind k of version v,
	// written by f's reader only, read once every follower has completed v.
	arrivals [][][numKinds]time.Time
	pending  []atomic.Int32  // followers yet to complete each version
	complete []chan struct{} // closed when every follower has completed the version
	sent     []time.Time     // when each change was sent
	bytes    atomic.Int64    // bytes received by the followers
	busy     atomic.Int64    // busy replies received by the followers
	printMu  sync.Mutex      // keeps progress lines whole

	// The answers (RoomConfig.AnswerStep): each follower's connection; the question's step once
	// asked; when the answers began to be sent; the presenter's tally messages and its newest
	// count; when it counted every follower (tallied closed then).
	conns       []*websocket.Conn
	answerStep  atomic.Pointer[string]
	answersFrom atomic.Pointer[time.Time]
	tallies     atomic.Int64
	answered    atomic.Int64
	countedAt   atomic.Pointer[time.Time]
	tallied     chan struct{}
}

func (m *measure) progress(format string, args ...any) {
	m.printMu.Lock()
	fmt.Fprintf(m.t.Progress, format+"\n", args...)
	m.printMu.Unlock()
}

// cause is why ctx ended: the first failure, or the context's own error.
func (m *measure) cause(ctx context.Context) error {
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return ctx.Err()
}

// orCause is err, or the measurement's failure if that is what ended ctx.
func (m *measure) orCause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil && !errors.Is(c, context.Canceled) && !errors.Is(c, context.DeadlineExceeded) {
		return c
	}
	return err
}

// checkFollowers checks that the server counts every follower (GET /api/v1/rooms/{code}),
// waiting a little for the count to settle.
func (m *measure) checkFollowers(ctx context.Context) error {
	deadline := time.Now().Add(m.cfg.Timeout)
	for {
		a, err := m.t.do(ctx, http.MethodGet, "/api/v1/rooms/"+url.PathEscape(m.code), nil, 0, 1<<16)
		if err != nil {
			return fmt.Errorf("room info: %w", err)
		}
		var info struct {
			Followers int `json:"followers"`
		}
		if err := json.Unmarshal(a.body, &info); a.code != http.StatusOK || err != nil {
			return fmt.Errorf("room info: %d %s (%v)", a.code, http.StatusText(a.code), err)
		}
		if info.Followers == m.cfg.Followers {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server counts %d followers in the room, want %d", info.Followers, m.cfg.Followers)
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return m.cause(ctx)
		}
	}
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
				m.fail(fmt.Errorf("follower %d: %s", f, closeReason(err)))
			}
			return
		}
		m.bytes.Add(int64(len(b)))
		msg, err := decode(b)
		if err != nil {
			m.fail(fmt.Errorf("follower %d: %w", f, err))
			return
		}
		var k kind
		switch msg.typ {
		case "room":
			k = msgRoom
		case "start":
			k = msgStart
		case "frame":
			k = msgFrame
		case "done":
			k = msgDone
		case "busy":
			m.busy.Add(1)
			continue
		case "error":
			m.fail(fmt.Errorf("follower %d: error reply: %s", f, msg.err))
			return
		default:
			continue
		}
		v := msg.id
		if v < 0 || v >= int64(len(at)) {
			m.fail(fmt.Errorf("follower %d: %s message of version %d, which the presenter has not made", f, msg.typ, v))
			return
		}
		a := &at[v]
		if !a[k].IsZero() {
			continue
		}
		a[k] = now
		if (k == msgRoom || k == msgDone) && !a[msgRoom].IsZero() && !a[msgDone].IsZero() {
			if m.pending[v].Add(-1) == 0 {
				close(m.complete[v])
			}
		}
	}
}

// present reads the presenter's connection (it receives the run, too) until ctx ends; an
// error reply, such as a refused change, ends the measurement.
func (m *measure) present(ctx context.Context, c *websocket.Conn) {
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				m.fail(fmt.Errorf("presenter: %s", closeReason(err)))
			}
			return
		}
		msg, _ := decode(b)
		if msg.typ == "answers" {
			if step := m.answerStep.Load(); step != nil && msg.step == *step && m.answersFrom.Load() != nil {
				now := time.Now()
				m.tallies.Add(1)
				m.answered.Store(int64(msg.answered))
				if msg.answered >= m.cfg.Followers && m.countedAt.CompareAndSwap(nil, &now) {
					close(m.tallied)
				}
			}
			continue
		}
		if msg.typ == "error" {
			hint := ""
			if m.cfg.Vary != "" {
				hint = fmt.Sprintf(" (is %q a parameter of the lab?)", m.cfg.Vary)
			}
			m.fail(fmt.Errorf("presenter: the server refused a change%s: %s", hint, msg.err))
			return
		}
	}
}

// result summarizes the arrivals.
func (m *measure) result() *RoomResult {
	res := &RoomResult{Code: m.code, Followers: m.cfg.Followers, Changes: m.cfg.Changes, Busy: m.busy.Load(), Bytes: m.bytes.Load()}
	for k := range numKinds {
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
		res.Last[k], res.First[k], res.Each[k] = distOf(last), distOf(first), distOf(each)
	}
	return res
}

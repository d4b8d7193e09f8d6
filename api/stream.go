package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"runtime/debug"
	"slices"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// request is a decoded client message.
type request struct {
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	Query string `json:"query"`
}

// decodeMessage validates one client message: a JSON object with type "params", a
// non-negative id and a query no longer than param.MaxQueryLen. Unknown fields are an error.
func decodeMessage(b []byte) (request, error) {
	var m request
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return request{}, fmt.Errorf("message is not a valid params object: %v", err)
	}
	// Only whitespace may follow. (dec.More would miss a stray '}' or ']'.)
	if _, err := dec.Token(); err != io.EOF {
		return request{}, errors.New("message has data after the JSON object")
	}
	switch {
	case m.Type != "params":
		return request{}, fmt.Errorf("message type must be \"params\", got %q", clip(m.Type))
	case m.ID < 0:
		return request{}, errors.New("message id must not be negative")
	case len(m.Query) > param.MaxQueryLen:
		return request{}, fmt.Errorf("query is %d bytes long; the limit is %d", len(m.Query), param.MaxQueryLen)
	}
	return m, nil
}

// clip shortens s to about 40 bytes, cutting at a rune boundary: it may become a close
// reason, which must be valid UTF-8.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	i := 40
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// reply is a server message; see the package documentation.
type reply struct {
	Type     string          `json:"type"`
	ID       int64           `json:"id"`
	URL      string          `json:"url,omitempty"`
	Params   map[string]any  `json:"params,omitempty"`
	Progress *lab.Progress   `json:"progress,omitempty"`
	Refine   *lab.Refinement `json:"refine,omitempty"`
	Summary  map[string]any  `json:"summary,omitempty"`
	Series   []lab.Series    `json:"series,omitempty"`
	Error    string          `json:"error,omitempty"`
	Param    string          `json:"param,omitempty"`
	RetryMS  int64           `json:"retry_ms,omitempty"`
}

// busyPolicy paces a stream's retries when every slot is taken: practising what the
// backoff lab teaches, with full jitter so that retries of many viewers spread out.
var busyPolicy = backoff.FullJitter{Base: 20 * time.Millisecond, Cap: time.Second}

// stream upgrades to a websocket and serves runs until the connection ends.
func (s *Server) stream(w http.ResponseWriter, r *http.Request) {
	l, ok := s.lab(r)
	if !ok {
		s.writeError(w, r, errNotFound)
		return
	}
	if s.draining.Load() {
		s.writeError(w, r, hub.ErrDraining)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns: s.cfg.AllowedOrigins,
		// Frames are JSON full of similar numbers: deflate shrinks them several times. Without
		// context takeover, compressors are pooled rather than held per connection.
		CompressionMode: websocket.CompressionNoContextTakeover,
	})
	if err != nil {
		return // Accept has written the error response (403 for a foreign origin)
	}
	s.streams.Add(1)
	defer s.streams.Done()
	s.metrics.connections.Inc()
	defer s.metrics.connections.Dec()
	c.SetReadLimit(s.cfg.MaxMessage)

	ctx, cancel := context.WithCancel(context.Background()) // the request's context ends at hijack
	defer cancel()
	st := &streamConn{s: s, l: l, c: c, ctx: ctx, latest: make(chan request, 1)}
	defer func() {
		// The connection is hijacked: an HTTP error cannot be written any more, so a panic
		// closes the stream with 1011 instead (and is logged).
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic in stream", "lab", l.Name, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			c.Close(websocket.StatusInternalError, "internal error")
		}
	}()
	go st.read(cancel)
	go st.ping(cancel)
	code, reason := st.serve()
	c.Close(code, reason)
}

// streamConn is one websocket stream.
type streamConn struct {
	s      *Server
	l      *lab.Lab
	c      *websocket.Conn
	ctx    context.Context
	latest chan request // the newest unserved request; older ones are dropped
}

// read decodes client messages, keeping only the newest. A malformed message ends the
// connection with 1007.
func (st *streamConn) read(cancel context.CancelFunc) {
	defer cancel()
	for {
		typ, b, err := st.c.Read(st.ctx)
		if err != nil {
			return // closed, too big (the library closes with 1009), or ctx done
		}
		if typ != websocket.MessageText {
			st.c.Close(websocket.StatusUnsupportedData, "send JSON text messages")
			return
		}
		if !utf8.Valid(b) { // RFC 6455, section 8.1: text frames carry UTF-8
			st.c.Close(websocket.StatusInvalidFramePayloadData, "message is not valid UTF-8")
			return
		}
		m, err := decodeMessage(b)
		if err != nil {
			st.c.Close(websocket.StatusInvalidFramePayloadData, clip(err.Error()))
			return
		}
		select {
		case <-st.latest: // drop the older request: only the newest matters
		default:
		}
		st.latest <- m
	}
}

// ping checks the peer is alive; one that does not answer is dropped.
func (st *streamConn) ping(cancel context.CancelFunc) {
	t := time.NewTicker(st.s.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-st.ctx.Done():
			return
		case <-t.C:
			ctx, done := context.WithTimeout(st.ctx, st.s.cfg.PingInterval)
			err := st.c.Ping(ctx)
			done()
			if err != nil {
				cancel()
				return
			}
		}
	}
}

func (st *streamConn) write(m reply) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(st.ctx, st.s.cfg.WriteTimeout)
	defer cancel()
	return st.c.Write(ctx, websocket.MessageText, b)
}

// serve is the stream's main loop: it takes the newest request, paced by a token bucket, and
// streams its run until a newer request, the end of the run, the end of the connection or the
// server draining. It returns the close code and reason.
func (st *streamConn) serve() (websocket.StatusCode, string) {
	s := st.s
	bucket := ratelimit.NewTokenBucket(s.cfg.ParamRate, s.cfg.ParamBurst)
	jitter := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var (
		req     request
		have    bool
		busyTry int
	)
	for {
		if !have {
			idle := time.NewTimer(s.cfg.IdleTimeout)
			select {
			case req = <-st.latest:
			case <-s.drain:
				return websocket.StatusGoingAway, "server restarting; reconnect"
			case <-st.ctx.Done():
				return websocket.StatusNormalClosure, ""
			case <-idle.C:
				return StatusIdle, "idle"
			}
			idle.Stop()
		}
		have = false
		// Pace parameter changes: wait for a token, taking any newer request meanwhile.
		for !bucket.AllowN(time.Now(), 1) {
			s.metrics.rejected.WithLabelValues("rate_limited").Inc()
			select {
			case req = <-st.latest:
			case <-time.After(bucket.Delay(time.Now())):
			case <-st.ctx.Done():
				return websocket.StatusNormalClosure, ""
			case <-s.stop:
				return websocket.StatusGoingAway, "server restarting; reconnect"
			}
		}
		next, err := st.run(req, &busyTry, jitter)
		if err != nil {
			if st.ctx.Err() != nil {
				return websocket.StatusNormalClosure, ""
			}
			if errors.Is(err, errDrained) || s.draining.Load() {
				return websocket.StatusGoingAway, "server restarting; reconnect"
			}
			return websocket.StatusInternalError, "internal error"
		}
		if next != nil {
			req, have = *next, true
		}
	}
}

var errDrained = errors.New("drained")

// StatusIdle is the close code of a stream that sent no request for Config.IdleTimeout. The
// page reconnects when its viewer comes back.
const StatusIdle websocket.StatusCode = 4000

// run serves one request. It returns the newer request that interrupted it, if any.
func (st *streamConn) run(req request, busyTry *int, jitter *rand.Rand) (*request, error) {
	s, l := st.s, st.l
	v, err := l.Params.ParseQuery(req.Query)
	if err != nil {
		s.metrics.rejected.WithLabelValues("bad_params").Inc()
		return nil, st.writeErr(req.ID, err)
	}
	var sub *hub.Sub
	for {
		if s.draining.Load() {
			return nil, errDrained
		}
		sub, err = s.cfg.Hub.Subscribe(l, v)
		if err == nil {
			*busyTry = 0
			break
		}
		s.countRejection(err)
		if !errors.Is(err, hub.ErrBusy) {
			return nil, st.writeErr(req.ID, err)
		}
		*busyTry++
		wait := busyPolicy.Sleep(*busyTry, 0, jitter) + 20*time.Millisecond
		if err := st.write(reply{Type: "busy", ID: req.ID, RetryMS: wait.Milliseconds()}); err != nil {
			return nil, err
		}
		select {
		case next := <-st.latest:
			return &next, nil
		case <-time.After(wait):
		case <-st.ctx.Done():
			return nil, st.ctx.Err()
		case <-s.stop:
			return nil, errDrained
		}
	}
	defer sub.Close()
	if err := st.write(reply{Type: "start", ID: req.ID, URL: l.URL(v), Params: v.Map()}); err != nil {
		return nil, err
	}
	// A newer request supersedes this run at once — unless the lab is progressive and the
	// run has not yet shown a complete picture: then the run goes on until it has, so that a
	// viewer dragging a slider sees a picture at every step it takes time for, and the newest
	// request is served next.
	var (
		pending  *request
		pictured = !l.Progressive
		sent     = map[string]bool{} // series sent in full in this run
	)
	for {
		if pending != nil && pictured {
			return pending, nil
		}
		select {
		case next := <-st.latest:
			if pictured {
				return &next, nil
			}
			pending = &next
			continue
		case <-st.ctx.Done():
			return nil, st.ctx.Err()
		case <-s.stop:
			return nil, errDrained
		case <-sub.Ready():
		}
		u, done, runErr := sub.Take()
		if !u.Empty() {
			if err := st.write(reply{Type: "frame", ID: req.ID, Progress: u.Progress, Refine: u.Refine, Summary: u.Summary, Series: lean(u.Series, sent)}); err != nil {
				return nil, err
			}
			s.metrics.frames.Inc()
			pictured = pictured || u.Refine != nil
		}
		if done {
			if runErr != nil {
				return pending, st.writeErr(req.ID, runErr)
			}
			return pending, st.write(reply{Type: "done", ID: req.ID})
		}
		if pending != nil && pictured {
			return pending, nil
		}
		// At most one frame per interval; updates arriving meanwhile merge in the mailbox.
		select {
		case next := <-st.latest:
			if pictured {
				return &next, nil
			}
			pending = &next
		case <-st.ctx.Done():
			return nil, st.ctx.Err()
		case <-s.stop:
			return nil, errDrained
		case <-time.After(s.cfg.FrameInterval):
		}
	}
}

// lean returns series for the wire: an append or upsert to a series this run has already sent
// carries only its name and points, the rest being what was sent first. sent records the
// series sent.
func lean(series []lab.Series, sent map[string]bool) []lab.Series {
	out := series
	for i, s := range series {
		if (s.Append || s.Upsert) && sent[s.Name] {
			if &out[0] == &series[0] {
				out = slices.Clone(series)
			}
			out[i] = lab.Series{Name: s.Name, X: s.X, Y: s.Y, Append: s.Append, Upsert: s.Upsert}
		}
		sent[s.Name] = true
	}
	return out
}

// writeErr sends err as an error reply; unexpected errors are logged and not detailed.
func (st *streamConn) writeErr(id int64, err error) error {
	code, body := statusOf(err)
	if code == http.StatusInternalServerError {
		st.s.log.Error("stream run", "lab", st.l.Name, "err", err)
	}
	if code == 499 {
		return err
	}
	return st.write(reply{Type: "error", ID: id, Error: body.Error, Param: body.Param})
}

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
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// request is a decoded client message: "params" on a lab's stream; on a room's stream also
// "present" (with the presenter's key) and "step" (a tour step, with the params).
type request struct {
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	Query string `json:"query"`
	Key   string `json:"key,omitempty"`
	Step  string `json:"step,omitempty"`
	// Drag marks a step of a slider's gesture (dragged, or stepped by keys), and a room's
	// change: it waits for the run in flight to show its picture (see driver.run).
	Drag bool `json:"drag,omitempty"`
	// A room's presenter sends the reveal with the step (see rooms.go).
	Revealed   bool `json:"revealed,omitempty"`
	RevealOpen bool `json:"reveal_open,omitempty"`
	// A room's follower answers the step's question (see answers.go) as who, an anonymous id.
	Answer string `json:"answer,omitempty"`
	Who    string `json:"who,omitempty"`
}

// decodeMessage validates one client message of a lab's stream: a JSON object with type
// "params", a non-negative id and a query no longer than param.MaxQueryLen. Unknown fields are
// an error.
func decodeMessage(b []byte) (request, error) { return decodeOf(b, "params") }

// decodeOf validates one client message whose type must be one of types. Keys and steps are
// short strings.
func decodeOf(b []byte, types ...string) (request, error) {
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
	case !slices.Contains(types, m.Type):
		return request{}, fmt.Errorf("message type must be %s, got %q", quoted(types), clip(m.Type))
	case len(m.Key) > 64 || len(m.Step) > 64 || len(m.Who) > 64:
		return request{}, errors.New("key, step and who are at most 64 bytes long")
	case len(m.Answer) > 32:
		return request{}, errors.New("answer is at most 32 bytes long")
	case m.ID < 0:
		return request{}, errors.New("message id must not be negative")
	case len(m.Query) > param.MaxQueryLen:
		return request{}, fmt.Errorf("query is %d bytes long; the limit is %d", len(m.Query), param.MaxQueryLen)
	}
	return m, nil
}

func quoted(types []string) string {
	q := make([]string, len(types))
	for i, t := range types {
		q[i] = strconv.Quote(t)
	}
	return strings.Join(q, " or ")
}

// clip shortens s to about 40 bytes, cutting at a rune boundary: it may become a close
// reason, which must be valid UTF-8.
func clip(s string) string { return clipTo(s, 40) }

// clipTo shortens s to about n bytes, cutting at a rune boundary.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
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
	Params   any             `json:"params,omitempty"` // start: the scenario's values (a map); error: the parameters a rule spans (a list)
	Progress *lab.Progress   `json:"progress,omitempty"`
	Refine   *lab.Refinement `json:"refine,omitempty"`
	Summary  map[string]any  `json:"summary,omitempty"`
	Series   []lab.Series    `json:"series,omitempty"`
	Error    string          `json:"error,omitempty"`
	Param    string          `json:"param,omitempty"`
	Fit      string          `json:"fit,omitempty"` // error: a value of Param that is admitted (see param.Error)
	RetryMS  int64           `json:"retry_ms,omitempty"`
	Room     *roomState      `json:"room,omitempty"`
	// A room's answers: a follower's own (answer, with its step), the presenter's tally.
	Step    string        `json:"step,omitempty"`
	Answer  string        `json:"answer,omitempty"`
	Answers *answersState `json:"answers,omitempty"`
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
	if err := checkOrigin(r, s.cfg.AllowedOrigins); err != nil { // the rule of every stream
		s.writeError(w, r, err)
		return
	}
	release, err := s.open.open(clientOf(r))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	defer release()
	c, err := websocket.Accept(guardHijacker{w, s.cfg.MaxMessage}, r, &websocket.AcceptOptions{
		InsecureSkipVerify: true, // the origin is checked above
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
	ws := &wsConn{s: s, c: c, ctx: ctx}
	d := s.newDriver(ctx, l, ws.writeJSON)
	d.idle = s.cfg.IdleTimeout
	d.client = clientOf(r)
	defer ws.recoverPanic(l.Name)
	go ws.read(cancel, func(b []byte) error {
		m, err := decodeMessage(b)
		if err != nil {
			return err
		}
		d.offer(m)
		return nil
	})
	go ws.ping(cancel)
	code, reason := d.serve()
	c.Close(code, reason)
}

// wsConn is one accepted websocket: reading client messages, pinging, writing replies.
type wsConn struct {
	s   *Server
	c   *websocket.Conn
	ctx context.Context
}

// recoverPanic closes the connection with 1011 after a panic of its handler: the connection
// is hijacked, an HTTP error cannot be written any more. The panic is logged.
func (ws *wsConn) recoverPanic(what string) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		ws.s.log.Error("panic in stream", "of", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		ws.c.Close(websocket.StatusInternalError, "internal error")
	}
}

// read hands each client message to handle until the connection ends. A binary message
// closes the connection with 1003, one that is not valid UTF-8 or that handle refuses with
// 1007 and the error as reason, one over the read limit with 1009 as soon as its frame's header
// declares it.
func (ws *wsConn) read(cancel context.CancelFunc, handle func([]byte) error) {
	defer cancel()
	for {
		typ, b, err := ws.c.Read(ws.ctx)
		if reason, ok := tooBig(err); ok { // declared over the read limit (guardConn)
			ws.c.Close(websocket.StatusMessageTooBig, reason)
			return
		}
		if err != nil {
			return // closed, too big (the library closes with 1009), or ctx done
		}
		if typ != websocket.MessageText {
			ws.c.Close(websocket.StatusUnsupportedData, "send JSON text messages")
			return
		}
		if !utf8.Valid(b) { // RFC 6455, section 8.1: text frames carry UTF-8
			ws.c.Close(websocket.StatusInvalidFramePayloadData, "message is not valid UTF-8")
			return
		}
		if err := handle(b); err != nil {
			ws.c.Close(websocket.StatusInvalidFramePayloadData, clip(err.Error()))
			return
		}
	}
}

// ping checks the peer is alive; one that does not answer is dropped.
func (ws *wsConn) ping(cancel context.CancelFunc) {
	t := time.NewTicker(ws.s.cfg.PingInterval)
	defer t.Stop()
	for {
		select {
		case <-ws.ctx.Done():
			return
		case <-t.C:
			ctx, done := context.WithTimeout(ws.ctx, ws.s.cfg.PingInterval)
			err := ws.c.Ping(ctx)
			done()
			if err != nil {
				cancel()
				return
			}
		}
	}
}

// writeJSON encodes m and writes it.
func (ws *wsConn) writeJSON(m reply) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return ws.write(b)
}

// write writes one text message, within the write timeout.
func (ws *wsConn) write(b []byte) error {
	ctx, cancel := context.WithTimeout(ws.ctx, ws.s.cfg.WriteTimeout)
	defer cancel()
	return ws.c.Write(ctx, websocket.MessageText, b)
}

// driver serves the requests of one viewer's stream, or of a room: it takes the newest
// request, paced by a token bucket, and streams its run to out until a newer request, the end
// of the run, the end of ctx or the server draining.
type driver struct {
	s      *Server
	l      *lab.Lab
	ctx    context.Context
	latest chan request // the newest unserved request; older ones are dropped
	out    func(reply) error
	idle   time.Duration // with no request for this long, serve ends (0: never)
	client string        // whom its runs are for (see package hub's "Fair slots")
	// waiting is when the viewer started waiting for a complete picture: the start of the
	// first run since the last picture, error or end; zero when not waiting.
	waiting time.Time
}

// DefaultPatience is Config.Patience's default: a client sending values faster than
// pictures come, without marking them as a drag's steps, sees a new picture at least every
// ~150 ms at the defaults (100 ms, then the picture of the run in flight), and a single move
// is answered at once.
const DefaultPatience = 100 * time.Millisecond

func (s *Server) newDriver(ctx context.Context, l *lab.Lab, out func(reply) error) *driver {
	return &driver{s: s, l: l, ctx: ctx, latest: make(chan request, 1), out: out}
}

// offer hands the driver a request, replacing one it has not taken yet: only the newest
// matters.
func (d *driver) offer(m request) { offerNewest(d.latest, m) }

// offerNewest puts v in the one-place mailbox c, replacing a value not taken yet: only the
// newest matters. It never blocks, however many offer at once.
func offerNewest[T any](c chan T, v T) {
	for {
		select {
		case c <- v:
			return
		default:
		}
		select {
		case <-c:
		default:
		}
	}
}

// paced waits until bucket has a token for v, taking any newer value from latest meanwhile
// (only the newest matters), takes the token and returns the newest value. It returns false if
// done or stop closes first.
func paced[T any](s *Server, bucket *ratelimit.TokenBucket, latest <-chan T, v T, done, stop <-chan struct{}) (T, bool) {
	for !bucket.AllowN(time.Now(), 1) {
		s.metrics.rejected.WithLabelValues("rate_limited").Inc()
		select {
		case v = <-latest:
		case <-time.After(bucket.Delay(time.Now())):
		case <-done:
			return v, false
		case <-stop:
			return v, false
		}
	}
	return v, true
}

// serve is the driver's main loop. It returns the close code and reason of a stream.
func (d *driver) serve() (websocket.StatusCode, string) {
	s := d.s
	bucket := ratelimit.NewTokenBucket(s.cfg.ParamRate, s.cfg.ParamBurst)
	jitter := rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64()))
	var (
		req     request
		have    bool
		busyTry int
	)
	for {
		if !have {
			var (
				idle  <-chan time.Time
				timer *time.Timer
			)
			if d.idle > 0 {
				timer = time.NewTimer(d.idle)
				idle = timer.C
			}
			select {
			case req = <-d.latest:
			case <-s.drain:
				return websocket.StatusGoingAway, "server restarting; reconnect"
			case <-d.ctx.Done():
				return websocket.StatusNormalClosure, ""
			case <-idle:
				return StatusIdle, "idle"
			}
			if timer != nil {
				timer.Stop()
			}
		}
		have = false
		// Pace parameter changes: wait for a token, taking any newer request meanwhile.
		var ok bool
		if req, ok = paced(s, bucket, d.latest, req, d.ctx.Done(), s.stop); !ok {
			if d.ctx.Err() != nil {
				return websocket.StatusNormalClosure, ""
			}
			return websocket.StatusGoingAway, "server restarting; reconnect"
		}
		next, err := d.run(req, &busyTry, jitter)
		if err != nil {
			if d.ctx.Err() != nil {
				return websocket.StatusNormalClosure, ""
			}
			if errors.Is(err, errDrained) || s.draining.Load() {
				return websocket.StatusGoingAway, "server restarting; reconnect"
			}
			s.log.Warn("stream closed", "lab", d.l.Name, "query", req.Query, "err", err)
			return websocket.StatusInternalError, "internal error"
		}
		if next != nil {
			req, have = *next, true
		}
	}
}

var errDrained = errors.New("drained")

// errorReply is the error reply to request id: the message, the parameter to blame, for a
// rule across parameters all the parameters it spans, and for a refusal the value that fits.
func errorReply(id int64, body errorBody) reply {
	r := reply{Type: "error", ID: id, Error: body.Error, Param: body.Param, Fit: body.Fit}
	if len(body.Params) > 0 {
		r.Params = body.Params
	}
	return r
}

// StatusIdle is the close code of a stream that sent no request for Config.IdleTimeout. The
// page reconnects when its viewer comes back.
const StatusIdle websocket.StatusCode = 4000

// run serves one request. It returns the newer request that interrupted it, if any.
func (d *driver) run(req request, busyTry *int, jitter *rand.Rand) (*request, error) {
	s, l := d.s, d.l
	v, err := l.Parse(req.Query)
	if err != nil {
		s.metrics.rejected.WithLabelValues("bad_params").Inc()
		return nil, d.writeErr(req.ID, err)
	}
	var sub *hub.Sub
	for {
		if s.draining.Load() {
			return nil, errDrained
		}
		sub, err = s.cfg.Hub.SubscribeFor(d.ctx, d.client, l, v)
		if err == nil {
			*busyTry = 0
			break
		}
		s.countRejection(err)
		if !errors.Is(err, hub.ErrBusy) {
			return nil, d.writeErr(req.ID, err)
		}
		*busyTry++
		wait := busyPolicy.Sleep(*busyTry, 0, jitter) + 20*time.Millisecond
		if err := d.out(reply{Type: "busy", ID: req.ID, RetryMS: wait.Milliseconds()}); err != nil {
			return nil, err
		}
		select {
		case next := <-d.latest:
			return &next, nil
		case <-time.After(wait):
		case <-d.ctx.Done():
			return nil, d.ctx.Err()
		case <-s.stop:
			return nil, errDrained
		}
	}
	defer sub.Close()
	if err := d.out(reply{Type: "start", ID: req.ID, URL: l.URL(v), Params: v.Map()}); err != nil {
		return nil, err
	}
	// A newer request supersedes this run at once — unless the lab is progressive, the run
	// has not yet shown a complete picture, and the request is a step of a drag or the viewer
	// has been waiting for a picture for Config.Patience or more: then the run goes on until
	// it has shown its picture, and the newest request is served next. So a move starts at
	// once, whatever the old run was doing; a viewer dragging a slider sees a picture at every
	// step the server has time for; and a client sending values faster than pictures come,
	// drag or not, still sees one at least every Patience and a picture's computing.
	if d.waiting.IsZero() {
		d.waiting = time.Now()
	}
	var (
		pending  *request
		pictured = !l.Progressive
		sent     = map[string]bool{} // series sent in full in this run
	)
	keep := func(next request) bool {
		return !pictured && (next.Drag || time.Since(d.waiting) >= s.cfg.Patience)
	}
	for {
		if pending != nil && pictured {
			return pending, nil
		}
		select {
		case next := <-d.latest:
			if !keep(next) {
				return &next, nil
			}
			pending = &next
			continue
		case <-d.ctx.Done():
			return nil, d.ctx.Err()
		case <-s.stop:
			return nil, d.stopped(req.ID, sub, sent)
		case <-sub.Ready():
		}
		done, picture, err := d.take(req.ID, sub, sent)
		if picture {
			pictured = true
		}
		if done || err != nil {
			return pending, err
		}
		if pending != nil && pictured {
			return pending, nil
		}
		// At most one frame per interval; updates arriving meanwhile merge in the mailbox.
		select {
		case next := <-d.latest:
			if !keep(next) {
				return &next, nil
			}
			pending = &next
		case <-d.ctx.Done():
			return nil, d.ctx.Err()
		case <-s.stop:
			return nil, d.stopped(req.ID, sub, sent)
		case <-time.After(s.cfg.FrameInterval):
		}
	}
}

// take sends what the run of request id has produced since the last take: a frame of it, and
// when the run has finished, done or the run's error. It reports whether the run has finished
// and whether the frame completed a picture (a refinement).
func (d *driver) take(id int64, sub *hub.Sub, sent map[string]bool) (done, picture bool, err error) {
	u, done, runErr := sub.Take()
	if !u.Empty() {
		if err := d.out(reply{Type: "frame", ID: id, Progress: u.Progress, Refine: u.Refine, Summary: u.Summary, Series: lean(u.Series, sent)}); err != nil {
			return false, false, err
		}
		d.s.metrics.frames.Inc()
		if u.Refine != nil {
			picture, d.waiting = true, time.Time{}
		}
	}
	if !done {
		return false, picture, nil
	}
	d.waiting = time.Time{}
	if runErr != nil {
		return true, picture, d.writeErr(id, runErr)
	}
	return true, picture, d.out(reply{Type: "done", ID: id})
}

// stopped ends the run of request id when the server closes its streams
// ([Server.CloseStreams], the end of a drain): a run that has finished — every run the drain
// waited for has — is delivered first, its last frame and done, however the stream's wait and
// the close interleave; of a run still in flight (cancelled at the drain deadline) the viewer
// gets at most the frame produced so far. It returns errDrained, or the error of a failed write.
func (d *driver) stopped(id int64, sub *hub.Sub, sent map[string]bool) error {
	if _, _, err := d.take(id, sub, sent); err != nil {
		return err // a failed write, or the cancelled run's error: the stream closes all the same
	}
	return errDrained
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

// writeErr sends err as an error reply; unexpected errors are logged and not detailed. The
// viewer, answered, is no longer waiting for a picture.
func (d *driver) writeErr(id int64, err error) error {
	d.waiting = time.Time{}
	code, body := statusOf(err)
	if code == http.StatusInternalServerError {
		d.s.log.Error("stream run", "lab", d.l.Name, "err", err)
	}
	if code == 499 {
		return err
	}
	return d.out(errorReply(id, body))
}

package api_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/labs"
)

// small is a scenario that runs in milliseconds.
const small = "clients=20&trials=5&sweep=10:30:10"

// readTimeout bounds every wait on the server; generous for -race on a small machine. (In a
// synctest bubble it is fake time: a hung test fails at once.)
const readTimeout = 90 * time.Second

// Server is a playground server on an in-memory network, with the parts tests look into. The
// network is net.Pipe connections, so a server opened in a synctest bubble runs on the bubble's
// fake clock and synctest.Wait waits for it to settle; outside a bubble it works the same on
// real time.
type Server struct {
	URL     string // http://localhost: the Host every request names
	API     *api.Server
	Hub     *hub.Hub
	Metrics *api.Metrics
	Labs    *lab.Registry  // the real labs (the server also has Gated's)
	Gated   *labtest.Gated // /gated: runs advance only as the test steps them
	Free    *labtest.Gated // /free: the same lab, never waiting for a step
	Prog    *labtest.Gated // /prog: gated, and Progressive
	client  *http.Client
	net     *pipeNet
}

type serverOptions struct {
	hub hub.Config
	api api.Config
}

// Option changes the configuration MustOpenServer builds.
type Option func(*serverOptions)

// WithMaxRuns sets the hub's simulations at once.
func WithMaxRuns(n int) Option { return func(o *serverOptions) { o.hub.MaxRuns = n } }

// WithConfig edits the api.Config (Labs, Hub and Metrics are set afterwards).
func WithConfig(f func(*api.Config)) Option { return func(o *serverOptions) { f(&o.api) } }

// MustOpenServer starts a playground server with every lab of labs.Registry() plus the gated
// test labs, a hub of two slots, the default work budget and a fresh metrics registry. At
// cleanup it closes the server and waits for runs in flight to end, so that no test's
// simulation outlives it.
func MustOpenServer(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	o := serverOptions{hub: hub.Config{MaxRuns: 2, Budget: api.DefaultBudget, CacheSize: 64}}
	for _, opt := range opts {
		opt(&o)
	}
	m := api.NewMetrics(prometheus.NewRegistry())
	o.hub.Observe = m.ObserveRun
	h := hub.New(o.hub)
	gated, free, prog := labtest.NewGated("gated", true), labtest.NewGated("free", false), labtest.NewGated("prog", true)
	prog.Lab.Progressive = true
	o.api.Labs, o.api.Hub, o.api.Metrics = labs.Registry(gated.Lab, free.Lab, prog.Lab), h, m
	a := api.New(o.api)
	pn := newPipeNet()
	hs := &http.Server{Handler: a}
	if o.api.Log != nil {
		hs.ErrorLog = slog.NewLogLogger(o.api.Log.Handler(), slog.LevelWarn)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		_ = hs.Serve(pn)
	}()
	client := &http.Client{Transport: &http.Transport{DialContext: pn.DialContext, DisableCompression: true}}
	tb.Cleanup(func() {
		client.CloseIdleConnections()
		pn.closeAll()
		hs.Close()
		<-served
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := a.WaitStreams(ctx); err != nil {
			tb.Errorf("streams still open at cleanup: %v", err)
		}
		h.Drain(ctx) // waits for runs to end (every viewer has gone: they are cancelled)
		if n := h.Running(); n != 0 {
			tb.Errorf("%d runs still in flight at cleanup", n)
		}
	})
	return &Server{URL: "http://localhost", API: a, Hub: h, Metrics: m, Labs: labs.Registry(),
		Gated: gated, Free: free, Prog: prog, client: client, net: pn}
}

// Client returns an HTTP client of the server's network.
func (s *Server) Client() *http.Client { return s.client }

// newTestLogger returns a logger writing text lines to w, safe for concurrent use.
func newTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(&lockedWriter{w: w}, nil))
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// pipeNet is an in-memory network: every dial is one net.Pipe, whose server end Accept
// returns. Pipes are unbuffered, so a client that does not read blocks the server's writes at
// once, as a slow reader behind a full TCP window would.
type pipeNet struct {
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	mu     sync.Mutex
	open   []net.Conn
	read   atomic.Int64 // bytes clients have read: what went over the wire to them
}

func newPipeNet() *pipeNet {
	return &pipeNet{conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (p *pipeNet) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.closed:
		return nil, net.ErrClosed
	}
}

func (p *pipeNet) Close() error {
	p.once.Do(func() { close(p.closed) })
	return nil
}

func (p *pipeNet) Addr() net.Addr { return pipeAddr{} }

// DialContext connects to the server.
func (p *pipeNet) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		p.mu.Lock()
		p.open = append(p.open, client)
		p.mu.Unlock()
		return countingConn{client, &p.read}, nil
	case <-p.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// dialFrom connects to the server as a client at remote (an IP address and port): the
// server sees the connection's RemoteAddr as remote, as it sees a TCP client's.
func (p *pipeNet) dialFrom(ctx context.Context, remote string) (net.Conn, error) {
	ap, err := netip.ParseAddrPort(remote)
	if err != nil {
		return nil, err
	}
	client, server := net.Pipe()
	select {
	case p.conns <- remoteConn{server, net.TCPAddrFromAddrPort(ap)}:
		p.mu.Lock()
		p.open = append(p.open, client)
		p.mu.Unlock()
		return countingConn{client, &p.read}, nil
	case <-p.closed:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// remoteConn is a server end of a pipe that names its client's address.
type remoteConn struct {
	net.Conn
	remote net.Addr
}

func (c remoteConn) RemoteAddr() net.Addr { return c.remote }

// ClientFrom returns an HTTP client of the server's network whose connections come from
// remote (an IP address and port): for the limits and fair shares per address.
func (s *Server) ClientFrom(remote string) *http.Client {
	return &http.Client{Transport: &http.Transport{DisableCompression: true,
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return s.net.dialFrom(ctx, remote) }}}
}

// DialFrom opens a websocket of path (a lab's stream, a room's) from remote; it is closed at
// cleanup. The response is the server's answer when it refused the upgrade.
func (s *Server) DialFrom(tb testing.TB, remote, path string) (*websocket.Conn, *http.Response, error) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	c, resp, err := websocket.Dial(ctx, "ws://localhost"+path, &websocket.DialOptions{HTTPClient: s.ClientFrom(remote)})
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, resp, err
	}
	c.SetReadLimit(-1)
	tb.Cleanup(func() { c.CloseNow() })
	return c, resp, nil
}

// closeAll closes every client end, ending hijacked connections too.
func (p *pipeNet) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.open {
		c.Close()
	}
}

// countingConn counts the bytes read from it.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// BytesRead returns the bytes clients of the server have read so far.
func (s *Server) BytesRead() int64 { return s.net.read.Load() }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "localhost:80" }

// Get fetches path and returns the response (body closed) and its body.
func (s *Server) Get(tb testing.TB, path string) (*http.Response, []byte) {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	return s.GetContext(tb, ctx, path)
}

// GetContext is Get bounded by ctx instead of readTimeout.
func (s *Server) GetContext(tb testing.TB, ctx context.Context, path string) (*http.Response, []byte) {
	tb.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+path, nil)
	if err != nil {
		tb.Fatalf("GET %.80s: %v", path, err)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		tb.Fatalf("GET %.80s: %v", path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatalf("GET %.80s: reading body: %v", path, err)
	}
	return resp, b
}

// ErrorBody is the JSON body of an error response.
type ErrorBody struct {
	Error      string `json:"error"`
	Param      string `json:"param"`
	Fit        string `json:"fit"`
	RetryAfter int    `json:"retry_after"`
	URL        string `json:"url"` // an ended room's last scenario
}

// MustDecodeError checks resp is a JSON error response and returns its body.
func MustDecodeError(tb testing.TB, resp *http.Response, body []byte) ErrorBody {
	tb.Helper()
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		tb.Errorf("Content-Type = %q, want application/json", ct)
	}
	var e ErrorBody
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&e); err != nil {
		tb.Fatalf("error body %q: %v", body, err)
	}
	if e.Error == "" {
		tb.Errorf("error body %s has an empty error", body)
	}
	return e
}

// Metric returns the value of the sample whose line starts with series (name and labels as
// Prometheus prints them, e.g. `playground_runs_total{lab="backoff",outcome="ok"}`), and
// whether it is present.
func (s *Server) Metric(tb testing.TB, series string) (float64, bool) {
	tb.Helper()
	_, body := s.Get(tb, "/metrics")
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if ok && name == series {
			f, err := strconv.ParseFloat(value, 64)
			if err != nil {
				tb.Fatalf("metric %s: %v", series, err)
			}
			return f, true
		}
	}
	return 0, false
}

// Reply is a server message of the stream protocol.
type Reply struct {
	Type     string                     `json:"type"`
	ID       int64                      `json:"id"`
	URL      string                     `json:"url"`
	Params   ReplyParams                `json:"params"`
	Progress *lab.Progress              `json:"progress"`
	Refine   *lab.Refinement            `json:"refine"`
	Summary  map[string]json.RawMessage `json:"summary"`
	Series   []lab.Series               `json:"series"`
	Error    string                     `json:"error"`
	Param    string                     `json:"param"`
	Fit      string                     `json:"fit"`
	RetryMS  int64                      `json:"retry_ms"`
	Step     string                     `json:"step"`
	Answer   string                     `json:"answer"`
	Answers  *Answers                   `json:"answers"`
}

// Answers is a room's tally of a step: the presenter's answers message, a revealed room's.
type Answers struct {
	Step     string         `json:"step"`
	Answered int            `json:"answered"`
	Present  int            `json:"present"`
	Counts   map[string]int `json:"counts"`
	Truth    string         `json:"truth"`
}

// ReplyParams is a reply's "params": a start reply's scenario values, or an error reply's
// names of the parameters a rule across parameters spans.
type ReplyParams struct {
	Values map[string]json.RawMessage
	Names  []string
}

// UnmarshalJSON decodes an object into Values and a list into Names.
func (p *ReplyParams) UnmarshalJSON(b []byte) error {
	if bytes.HasPrefix(bytes.TrimSpace(b), []byte("[")) {
		return json.Unmarshal(b, &p.Names)
	}
	return json.Unmarshal(b, &p.Values)
}

// MarshalJSON encodes p as the server sent it.
func (p ReplyParams) MarshalJSON() ([]byte, error) {
	if p.Names != nil {
		return json.Marshal(p.Names)
	}
	return json.Marshal(p.Values)
}

// Stream is a websocket client of /api/v1/{lab}/stream.
type Stream struct {
	tb testing.TB
	C  *websocket.Conn
}

// StreamURL returns the websocket URL of lab's stream.
func (s *Server) StreamURL(labName string) string {
	return "ws" + strings.TrimPrefix(s.URL, "http") + "/api/v1/" + labName + "/stream"
}

// Dial opens a stream of lab.
func (s *Server) Dial(labName string, opts *websocket.DialOptions) (*websocket.Conn, *http.Response, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	o := websocket.DialOptions{}
	if opts != nil {
		o = *opts
	}
	o.HTTPClient = s.client
	c, resp, err := websocket.Dial(ctx, s.StreamURL(labName), &o)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		return nil, resp, err
	}
	c.SetReadLimit(-1) // frames carry whole series
	return c, resp, nil
}

// MustDial opens a stream of lab; the connection is closed at cleanup.
func (s *Server) MustDial(tb testing.TB, labName string, opts *websocket.DialOptions) *Stream {
	tb.Helper()
	c, _, err := s.Dial(labName, opts)
	if err != nil {
		tb.Fatalf("dial %s: %v", labName, err)
	}
	tb.Cleanup(func() { c.CloseNow() })
	return &Stream{tb: tb, C: c}
}

// With returns st reporting failures to tb, for use in a subtest.
func (st *Stream) With(tb testing.TB) *Stream { return &Stream{tb: tb, C: st.C} }

// Send sends a params message.
func (st *Stream) Send(id int64, query string) {
	st.tb.Helper()
	st.send(map[string]any{"type": "params", "id": id, "query": query})
}

// SendDrag sends a params message as a step of a slider's drag, as the page does while a
// slider is dragged.
func (st *Stream) SendDrag(id int64, query string) {
	st.tb.Helper()
	st.send(map[string]any{"type": "params", "id": id, "query": query, "drag": true})
}

func (st *Stream) send(m map[string]any) {
	st.tb.Helper()
	b, err := json.Marshal(m)
	if err != nil {
		st.tb.Fatal(err)
	}
	st.SendRaw(websocket.MessageText, b)
}

// SendRaw sends one message as it is.
func (st *Stream) SendRaw(typ websocket.MessageType, b []byte) {
	st.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	if err := st.C.Write(ctx, typ, b); err != nil {
		st.tb.Fatalf("write: %v", err)
	}
}

// Next reads one reply, or returns the error that ended the connection.
func (st *Stream) Next() (Reply, error) {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	typ, b, err := st.C.Read(ctx)
	if err != nil {
		return Reply{}, err
	}
	if typ != websocket.MessageText {
		return Reply{}, errors.New("server sent a binary message")
	}
	var r Reply
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return Reply{}, errors.New("undecodable reply " + string(b[:min(len(b), 200)]) + ": " + err.Error())
	}
	return r, nil
}

// MustNext reads one reply.
func (st *Stream) MustNext() Reply {
	st.tb.Helper()
	r, err := st.Next()
	if err != nil {
		st.tb.Fatalf("reading reply: %v", err)
	}
	return r
}

// Await reads replies until the first one for request id, skipping those of older requests.
func (st *Stream) Await(id int64) Reply {
	st.tb.Helper()
	for {
		r := st.MustNext()
		switch {
		case r.ID == id:
			return r
		case r.ID > id:
			st.tb.Fatalf("got %s reply for id %d while waiting for id %d", r.Type, r.ID, id)
		}
	}
}

// Run reads the replies to request id from its start: it returns the start reply, the frames
// and the done reply, failing on anything else (a busy reply is skipped: the server retries).
func (st *Stream) Run(id int64) (start Reply, frames []Reply, done Reply) {
	st.tb.Helper()
	start = st.Await(id)
	for start.Type == "busy" {
		start = st.Await(id)
	}
	if start.Type != "start" {
		st.tb.Fatalf("first reply to %d: %+v, want start", id, start)
	}
	for {
		r := st.MustNext()
		if r.ID != id {
			st.tb.Fatalf("reply for id %d during run %d: %+v", r.ID, id, r)
		}
		switch r.Type {
		case "frame":
			frames = append(frames, r)
		case "done":
			return start, frames, r
		default:
			st.tb.Fatalf("unexpected %s reply during run %d: %+v", r.Type, id, r)
		}
	}
}

// closeTimeout bounds the wait for a connection the server should close at once.
const closeTimeout = 20 * time.Second

// MustClosed reads until the connection ends and returns its close status and reason,
// failing if it ended without a close frame.
func (st *Stream) MustClosed() (websocket.StatusCode, string) {
	st.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	for {
		_, _, err := st.C.Read(ctx)
		if err == nil {
			continue
		}
		var ce websocket.CloseError
		if !errors.As(err, &ce) {
			st.tb.Fatalf("connection ended without a close frame: %v", err)
		}
		return ce.Code, ce.Reason
	}
}

// Fold is the client's view of a run: frames folded as the protocol says.
type Fold struct {
	Summary  map[string]json.RawMessage
	Series   []lab.Series
	Progress *lab.Progress
	Refine   *lab.Refinement
	Bands    int             // view-only band series seen (not folded into Series)
	bands    map[string]bool // names of band series: later frames send them lean, without "of"
}

// Apply folds one frame: summary entries replace those of the same key; a series replaces the
// one of the same name, or extends it when Append is set, or updates its points by x when
// Upsert is set; bands are counted and left out, as results leave them out; progress and
// refinement replace theirs.
func (f *Fold) Apply(r Reply) {
	if f.Summary == nil {
		f.Summary = map[string]json.RawMessage{}
	}
	for k, v := range r.Summary {
		f.Summary[k] = v
	}
	for _, s := range r.Series {
		if s.Of != "" || f.bands[s.Name] {
			if f.bands == nil {
				f.bands = map[string]bool{}
			}
			f.bands[s.Name] = true
			f.Bands++
			continue
		}
		i := slices.IndexFunc(f.Series, func(have lab.Series) bool { return have.Name == s.Name })
		switch {
		case i >= 0 && s.Append:
			f.Series[i].X = append(f.Series[i].X, s.X...)
			f.Series[i].Y = append(f.Series[i].Y, s.Y...)
		case i >= 0 && s.Upsert:
			for k, x := range s.X {
				j, found := slices.BinarySearch(f.Series[i].X, x)
				if found {
					f.Series[i].Y[j] = s.Y[k]
				} else {
					f.Series[i].X = slices.Insert(f.Series[i].X, j, x)
					f.Series[i].Y = slices.Insert(f.Series[i].Y, j, s.Y[k])
				}
			}
		case i >= 0:
			s.Append, s.Upsert = false, false
			f.Series[i] = s
		case s.Upsert:
			x, y := s.X, s.Y
			s.X, s.Y, s.Upsert = nil, nil, false
			f.Series = append(f.Series, s)
			f.Apply(Reply{Series: []lab.Series{{Name: s.Name, X: x, Y: y, Upsert: true}}})
		default:
			s.Append = false
			f.Series = append(f.Series, s)
		}
	}
	if r.Progress != nil {
		f.Progress = r.Progress
	}
	if r.Refine != nil {
		f.Refine = r.Refine
	}
}

// canon returns v as canonical JSON: marshalled, decoded into generic values and marshalled
// again, so that key order and encoder settings do not matter.
func canon(tb testing.TB, v any) string {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		tb.Fatal(err)
	}
	b, err = json.Marshal(x)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b)
}

// APIResult is the JSON API's result, decoded for comparison.
type APIResult struct {
	Lab     string                     `json:"lab"`
	URL     string                     `json:"url"`
	Params  map[string]json.RawMessage `json:"params"`
	Summary map[string]json.RawMessage `json:"summary"`
	Series  []lab.Series               `json:"series"`
}

// MustResult fetches a scenario's result from the JSON API.
func (s *Server) MustResult(tb testing.TB, labName, query string) (APIResult, []byte) {
	tb.Helper()
	resp, body := s.Get(tb, "/api/v1/"+labName+"?"+query)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET /api/v1/%s?%s: %d %s", labName, query, resp.StatusCode, body)
	}
	var r APIResult
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		tb.Fatalf("result body: %v", err)
	}
	return r, body
}

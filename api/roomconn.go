package api

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"runtime/debug"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"
	gws "github.com/gorilla/websocket"
)

// A room's stream is served with gorilla/websocket rather than coder/websocket (the lab
// stream's library) for one feature: prepared messages. A room sends the same frames to
// hundreds of followers, and with permessage-deflate most of the cost of a write is
// compressing it: coder/websocket compresses every message once per connection, gorilla's
// PreparedMessage once per message (without context takeover, the only mode gorilla
// negotiates, the deflated bytes are the same on every connection). Measured with 300
// followers, compression was more than half of the server's time between a presenter's change
// and the last follower's first frame (see docs/teaching.md).

// wire is a message for many connections: its JSON, encoded once, and its websocket frame,
// prepared once for each compression setting on first use.
type wire struct {
	b  []byte
	pm *gws.PreparedMessage
}

// newWire prepares the message of the JSON b.
func newWire(b []byte) *wire {
	pm, _ := gws.NewPreparedMessage(gws.TextMessage, b) // fails only for a bad message type
	return &wire{b: b, pm: pm}
}

// closeWait is how long a closing stream waits for the peer's close frame.
const closeWait = 5 * time.Second

// roomConn is one accepted websocket of a room's stream: reading client messages, pinging,
// writing replies. Its writes may come from several goroutines (the room's frames, the
// connection's own replies); gorilla/websocket takes one writer at a time, so they take turns
// (as coder/websocket's writes do), each within the write timeout.
type roomConn struct {
	s   *Server
	c   *gws.Conn
	nc  *corkConn // c's connection
	ctx context.Context
	wmu sync.Mutex
	// reading is set when the read loop starts; read is closed when it has returned.
	reading bool
	read    chan struct{}
	pong    chan struct{} // a pong has arrived
}

// acceptRoom upgrades a request to a room's stream. On failure it has written the HTTP
// error (403 for a foreign origin) and returns nil.
func (s *Server) acceptRoom(w http.ResponseWriter, r *http.Request, ctx context.Context) *roomConn {
	u := gws.Upgrader{
		EnableCompression: true, // frames are JSON full of similar numbers: deflate shrinks them several times
		CheckOrigin:       func(r *http.Request) bool { return checkOrigin(r, s.cfg.AllowedOrigins) == nil },
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			if err := checkOrigin(r, s.cfg.AllowedOrigins); err != nil {
				s.writeError(w, r, err)
				return
			}
			w.Header().Set("Sec-Websocket-Version", "13")
			writeJSON(w, status, errorBody{Error: reason.Error()})
		},
	}
	h := &corkHijacker{ResponseWriter: w, limit: s.cfg.MaxMessage}
	c, err := u.Upgrade(h, r, nil)
	if err != nil {
		return nil
	}
	c.SetReadLimit(s.cfg.MaxMessage)
	rc := &roomConn{s: s, c: c, nc: h.conn, ctx: ctx, read: make(chan struct{}), pong: make(chan struct{}, 1)}
	c.SetPongHandler(func(string) error {
		offerNewest(rc.pong, struct{}{})
		return nil
	})
	return rc
}

// originError refuses a page of a foreign origin.
type originError struct{ msg string }

func (e originError) Error() string { return e.msg }

// checkOrigin allows a stream to be opened by a request without an Origin (not a browser), by
// a page of the server's own host, or by one whose host (or scheme://host) matches one of
// patterns (path.Match patterns, case-insensitive, as Config.AllowedOrigins describes).
func checkOrigin(r *http.Request, patterns []string) error {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return nil
	}
	u, err := url.Parse(origin)
	if err != nil {
		return originError{fmt.Sprintf("the Origin header %q is not a URL", clip(origin))}
	}
	if strings.EqualFold(r.Host, u.Host) {
		return nil
	}
	for _, p := range patterns {
		target := u.Host
		if strings.Contains(p, "://") {
			target = u.Scheme + "://" + u.Host
		}
		if ok, _ := path.Match(strings.ToLower(p), strings.ToLower(target)); ok {
			return nil
		}
	}
	return originError{fmt.Sprintf("pages of %q may not open streams of this server", clip(origin))}
}

// recoverPanic closes the connection with 1011 after a panic of its handler; the panic is
// logged.
func (rc *roomConn) recoverPanic(what string) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		rc.s.log.Error("panic in stream", "of", what, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
		rc.close(websocket.StatusInternalError, "internal error")
	}
}

// readLoop hands each client message to handle until the connection ends, then cancels. A
// binary message closes the connection with 1003, one that is not valid UTF-8 or that handle
// refuses with 1007 and the error as reason; one over the read limit, with 1009 as soon as its
// frame's header declares it.
// It is started once, with go, after rc.reading is set.
func (rc *roomConn) readLoop(cancel context.CancelFunc, handle func([]byte) error) {
	defer close(rc.read)
	defer cancel()
	for {
		typ, b, err := rc.c.ReadMessage()
		if reason, ok := tooBig(err); ok { // declared over the read limit (guardConn)
			rc.sendClose(websocket.StatusMessageTooBig, reason)
			return
		}
		if err != nil {
			return // closed (gorilla answers a close frame), too big (closed with 1009), or cut
		}
		var code websocket.StatusCode
		var reason string
		switch {
		case typ != gws.TextMessage:
			code, reason = websocket.StatusUnsupportedData, "send JSON text messages"
		case !utf8.Valid(b): // RFC 6455, section 8.1: text frames carry UTF-8
			code, reason = websocket.StatusInvalidFramePayloadData, "message is not valid UTF-8"
		default:
			if err := handle(b); err != nil {
				code, reason = websocket.StatusInvalidFramePayloadData, clip(err.Error())
			}
		}
		if code != 0 {
			rc.sendClose(code, reason)
			rc.drain()
			return
		}
	}
}

// drain reads until the peer's close frame (or closeWait).
func (rc *roomConn) drain() {
	_ = rc.c.SetReadDeadline(time.Now().Add(closeWait))
	for {
		if _, _, err := rc.c.NextReader(); err != nil {
			return
		}
	}
}

// ping checks the peer is alive; one that does not answer within the ping interval is
// dropped.
func (rc *roomConn) ping(cancel context.CancelFunc) {
	every := rc.s.cfg.PingInterval
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-rc.ctx.Done():
			return
		case <-t.C:
		}
		select {
		case <-rc.pong: // a pong answering no ping of ours
		default:
		}
		if err := rc.c.WriteControl(gws.PingMessage, nil, time.Now().Add(every)); err != nil {
			cancel()
			return
		}
		select {
		case <-rc.pong:
		case <-time.After(every):
			cancel()
			return
		case <-rc.ctx.Done():
			return
		}
	}
}

// write writes prepared messages in one write to the network (the room message, the run's
// start and its first frame are often sent together), within the write timeout.
func (rc *roomConn) write(msgs []*wire) error {
	return rc.writing(func() error {
		rc.nc.hold()
		for _, m := range msgs {
			if err := rc.c.WritePreparedMessage(m.pm); err != nil {
				rc.nc.flush()
				return err
			}
		}
		return rc.nc.flush()
	})
}

// writeJSON encodes m and writes it.
func (rc *roomConn) writeJSON(m reply) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return rc.writing(func() error { return rc.c.WriteMessage(gws.TextMessage, b) })
}

// writing runs one write, its turn taken among the connection's writers.
func (rc *roomConn) writing(w func() error) error {
	rc.wmu.Lock()
	defer rc.wmu.Unlock()
	if err := rc.ctx.Err(); err != nil {
		return err
	}
	_ = rc.c.SetWriteDeadline(time.Now().Add(rc.s.cfg.WriteTimeout))
	return w()
}

// sendClose sends a close frame with code and reason.
func (rc *roomConn) sendClose(code websocket.StatusCode, reason string) {
	_ = rc.c.WriteControl(gws.CloseMessage, gws.FormatCloseMessage(int(code), reason), time.Now().Add(closeWait))
}

// close ends the connection with code and reason: it sends the close frame, waits for the
// peer's (or closeWait), and closes the connection.
func (rc *roomConn) close(code websocket.StatusCode, reason string) {
	rc.sendClose(code, reason)
	if !rc.reading {
		rc.drain()
		rc.c.Close()
		return
	}
	select {
	case <-rc.read:
	case <-time.After(closeWait):
	}
	rc.c.Close()
}

// corkHijacker hands the websocket library a corkConn as the hijacked connection, its reads
// guarded (guardConn).
type corkHijacker struct {
	http.ResponseWriter
	limit int64
	conn  *corkConn
}

func (h *corkHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	if brw.Reader.Buffered() > 0 {
		// gorilla refuses a client that sent data before the handshake was answered: let it.
		h.conn = &corkConn{Conn: c}
		return h.conn, brw, nil
	}
	h.conn = &corkConn{Conn: guard(c, brw, h.limit)}
	return h.conn, brw, nil
}

// corkConn is a connection whose writes can be held and then sent in one write: one system
// call for several messages to a follower instead of one each.
type corkConn struct {
	net.Conn
	mu   sync.Mutex
	held bool
	buf  []byte
	dl   time.Time // the write deadline last set
}

// Write writes p, or holds it.
func (c *corkConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held {
		c.buf = append(c.buf, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// SetWriteDeadline sets the deadline of the writes, held ones included.
func (c *corkConn) SetWriteDeadline(t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dl = t
	return c.Conn.SetWriteDeadline(t)
}

// hold holds the writes until flush.
func (c *corkConn) hold() {
	c.mu.Lock()
	c.held = true
	c.mu.Unlock()
}

// flush writes what was held, in one write, and writes through again.
func (c *corkConn) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.held = false
	if len(c.buf) == 0 {
		return nil
	}
	_ = c.Conn.SetWriteDeadline(c.dl)
	_, err := c.Conn.Write(c.buf)
	if cap(c.buf) > 64<<10 {
		c.buf = nil // a follower catching up: keep no large buffer for every follower
	} else {
		c.buf = c.buf[:0]
	}
	return err
}

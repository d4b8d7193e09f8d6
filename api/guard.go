package api

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
)

// A websocket library reads a frame's header, then its payload; one whose read limit counts
// the bytes as they come waits for the payload of a frame that declares more than the limit
// (coder/websocket does), and a client that sends only the header — 2^62 bytes, say — holds
// the connection open without a word (issue 33). guardConn sits under both streams' libraries
// and refuses such a frame at its header: the read loops then close the connection with 1009.

// errFrameTooBig is the read error of a connection whose client declared a message over the
// read limit.
type errFrameTooBig struct{ limit int64 }

func (e errFrameTooBig) Error() string {
	return fmt.Sprintf("message too big: at most %d bytes", e.limit)
}

// tooBig returns the close reason of a read error that is an errFrameTooBig, and whether it is
// one.
func tooBig(err error) (string, bool) {
	var e errFrameTooBig
	if errors.As(err, &e) {
		return e.Error(), true
	}
	return "", false
}

// guardConn is a hijacked connection whose reads follow the client's frames: a data frame
// whose declared length takes its message over limit bytes (limit plus deflate's overhead for
// a compressed message) is not handed on — neither its header nor its payload, which is
// dropped as it comes — and the read that reaches it fails with errFrameTooBig, after the bytes
// before it. The frames after it (the client's close frame) are handed on as they come.
type guardConn struct {
	net.Conn
	r     io.Reader // the connection, after what was buffered before the hijack
	limit int64

	buf     []byte // what was read last
	rest    []byte // of buf, not yet followed
	rerr    error  // the error of the last read, to return once rest is handed on
	pending []byte // bytes followed and admitted, to hand on
	hdr     []byte // a frame's header, until it is whole

	left     int64 // payload bytes of an admitted frame still to hand on
	skip     int64 // payload bytes of a refused frame still to drop
	msg      int64 // payload bytes of the message so far
	deflated bool  // the message is compressed (RSV1 on its first frame)
	refused  bool  // a frame was refused: the next read fails
}

// deflateSlack is what deflate may add to a message that does not compress.
const deflateSlack = 64

func (g *guardConn) Read(p []byte) (int, error) {
	for {
		if len(g.pending) > 0 {
			n := copy(p, g.pending)
			g.pending = g.pending[n:]
			return n, nil
		}
		if g.refused {
			g.refused = false
			return 0, errFrameTooBig{g.limit}
		}
		if len(g.rest) == 0 {
			if g.rerr != nil {
				return 0, g.rerr
			}
			if g.buf == nil {
				g.buf = make([]byte, 2048)
			}
			n, err := g.r.Read(g.buf)
			g.rest, g.rerr = g.buf[:n], err
			g.pending = g.pending[:0]
		}
		g.follow()
	}
}

// follow moves what it can of g.rest to g.pending, stopping at a refused frame.
func (g *guardConn) follow() {
	for len(g.rest) > 0 && !g.refused {
		switch {
		case g.skip > 0:
			k := min(int64(len(g.rest)), g.skip)
			g.rest, g.skip = g.rest[k:], g.skip-k
			continue
		case g.left > 0:
			k := min(int64(len(g.rest)), g.left)
			g.pending = append(g.pending, g.rest[:k]...)
			g.rest, g.left = g.rest[k:], g.left-k
			continue
		}
		g.hdr = append(g.hdr, g.rest[0])
		g.rest = g.rest[1:]
		if len(g.hdr) < 2 || len(g.hdr) < headerLen(g.hdr) {
			continue
		}
		n := uint64(g.hdr[1] & 0x7f)
		switch n {
		case 126:
			n = uint64(binary.BigEndian.Uint16(g.hdr[2:4]))
		case 127:
			n = binary.BigEndian.Uint64(g.hdr[2:10])
		}
		size := int64(min(n, math.MaxInt64))
		ok := true
		switch op := g.hdr[0] & 0x0f; op {
		case 1, 2: // text, binary: a new message
			g.msg, g.deflated = 0, g.hdr[0]&0x40 != 0
			fallthrough
		case 0: // continuation
			bound := g.limit
			if g.deflated {
				bound += deflateSlack
			}
			ok = n <= math.MaxInt64 && size <= bound-g.msg
			if ok {
				g.msg += size
			}
		}
		if !ok {
			g.refused, g.skip, g.hdr = true, size, g.hdr[:0]
			return
		}
		g.pending = append(g.pending, g.hdr...)
		g.left, g.hdr = size, g.hdr[:0]
	}
}

// headerLen is the length of the frame header whose first two bytes are h.
func headerLen(h []byte) int {
	n := 2
	switch h[1] & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if h[1]&0x80 != 0 {
		n += 4 // the mask
	}
	return n
}

// guard wraps a hijacked connection and its buffered reader: what was buffered before the
// hijack is read through the guard too.
func guard(c net.Conn, brw *bufio.ReadWriter, limit int64) *guardConn {
	g := &guardConn{Conn: c, r: c, limit: limit}
	if n := brw.Reader.Buffered(); n > 0 {
		b, _ := brw.Reader.Peek(n)
		g.r = io.MultiReader(bytes.NewReader(bytes.Clone(b)), c)
	}
	brw.Reader.Reset(g) // a library reading through brw (gorilla does) reads through the guard
	return g
}

// guardHijacker hands a websocket library a guarded connection when it hijacks.
type guardHijacker struct {
	http.ResponseWriter
	limit int64
}

func (h guardHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	c, brw, err := http.NewResponseController(h.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	return guard(c, brw, h.limit), brw, nil
}

package api_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/coder/websocket"
)

// TestHugeFrameHeader: a frame whose header declares 2^62 bytes — and then nothing — closes the
// stream with 1009 at once, on a lab's stream and a room's (issue 33: the lab stream waited for
// the payload, and the socket hung). Run on the fake clock: a stream that waited would leave the
// test deadlocked.
func TestHugeFrameHeader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		code := srv.roomFrom(t, "192.0.2.1:1000", "/free?n=3")
		for _, path := range []string{"/api/v1/backoff/stream", "/api/v1/rooms/" + code + "/stream"} {
			c, err := srv.net.DialContext(context.Background(), "", "")
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
				"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n", path)
			br := bufio.NewReader(c)
			resp, err := http.ReadResponse(br, nil)
			if err != nil || resp.StatusCode != http.StatusSwitchingProtocols {
				t.Fatalf("%s: handshake %v %v", path, resp, err)
			}
			go func() { // a text frame of 2^62 bytes, masked as a client's: its header only
				hdr := binary.BigEndian.AppendUint64([]byte{0x81, 0x80 | 127}, 1<<62)
				c.Write(append(hdr, 1, 2, 3, 4))
			}()
			closed := false
			for !closed {
				op, payload, err := readFrame(br)
				if err != nil {
					t.Fatalf("%s: the connection ended without a close frame: %v", path, err)
				}
				if op == 8 {
					closed = true
					if len(payload) < 2 || websocket.StatusCode(binary.BigEndian.Uint16(payload)) != websocket.StatusMessageTooBig {
						t.Errorf("%s: closed with %x, want 1009", path, payload)
					} else {
						t.Logf("%s: closed with 1009 %q", path, payload[2:])
					}
				}
			}
			c.Close()
		}
	})
}

// readFrame reads one unmasked frame of a server (payloads under 64 KiB) and returns its
// opcode and payload.
func readFrame(br *bufio.Reader) (byte, []byte, error) {
	var h [2]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return 0, nil, err
	}
	n := int(h[1] & 0x7f)
	switch n {
	case 126:
		var ext [2]byte
		if _, err := io.ReadFull(br, ext[:]); err != nil {
			return 0, nil, err
		}
		n = int(binary.BigEndian.Uint16(ext[:]))
	case 127:
		return 0, nil, fmt.Errorf("a frame of over 64 KiB")
	}
	p := make([]byte, n)
	_, err := io.ReadFull(br, p)
	return h[0] & 0x0f, p, err
}

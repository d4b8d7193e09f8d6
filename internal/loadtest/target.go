package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// Server is the playground server a mode loads, and the bounds on every exchange with it.
type Server struct {
	// URL is the server's base URL: http, https, ws or wss, on a loopback host (localhost,
	// 127.0.0.0/8 or ::1) only.
	URL string
	// Timeout bounds each dial, write and HTTP request, and each wait for a reply.
	Timeout time.Duration
	// Compress offers permessage-deflate on websockets, as browsers do.
	Compress bool
	// Progress, when set, receives progress lines.
	Progress io.Writer
}

// check validates s as Check methods of the modes' configurations do.
func (s Server) check() error {
	if _, err := loopbackURL(s.URL); err != nil {
		return err
	}
	if s.Timeout <= 0 {
		return errors.New("-timeout must be positive")
	}
	return nil
}

// loopbackURL parses raw as an http(s) or ws(s) URL and refuses it unless its host is
// localhost or a loopback address (127.0.0.0/8, ::1): the tool must never load a server
// elsewhere. ws and wss are returned as http and https, without query or fragment.
func loopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-url: %v", err)
	}
	switch u.Scheme {
	case "http", "https":
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	default:
		return nil, fmt.Errorf("-url must be an http, https, ws or wss URL, got %q", raw)
	}
	if u.User != nil {
		return nil, errors.New("-url must not carry credentials")
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("-url host %q is not loopback; this tool only loads localhost, 127.0.0.0/8 or ::1", u.Hostname())
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("-url port %q is not a port number", p)
		}
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, nil
}

// isLoopbackHost reports whether host (without port or brackets) is "localhost" or an IP
// address in 127.0.0.0/8 or ::1. Other names are refused even if they resolve to loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	if strings.Contains(host, "%") { // a zone: fe80::1%lo is not ::1
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// target is a Server ready to use: its base URL checked, and the one HTTP client every
// request and handshake of a mode goes through.
type target struct {
	Server
	base   *url.URL
	client *http.Client
}

// newTarget opens s for a mode that holds up to conns connections at once.
func newTarget(s Server, conns int) (*target, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	u, _ := loopbackURL(s.URL)
	if s.Progress == nil {
		s.Progress = io.Discard
	}
	return &target{Server: s, base: u, client: &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil, // never send loopback traffic through a proxy
			DialContext:           (&net.Dialer{Timeout: s.Timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   s.Timeout,
			ResponseHeaderTimeout: s.Timeout,
			MaxIdleConns:          conns,
			MaxIdleConnsPerHost:   conns,
			IdleConnTimeout:       30 * time.Second,
		},
		// No Timeout here: it would also bound the life of the websocket connections; each
		// request and dial has its own context deadline instead.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}, nil
}

// from is t with connections made from local address ip.
func (t *target) from(ip net.IP) *target {
	tr := t.client.Transport.(*http.Transport).Clone()
	tr.DialContext = (&net.Dialer{Timeout: t.Timeout, KeepAlive: 30 * time.Second, LocalAddr: &net.TCPAddr{IP: ip}}).DialContext
	c := *t.client
	c.Transport = tr
	return &target{Server: t.Server, base: t.base, client: &c}
}

// url is the server's URL for path, which may carry a query.
func (t *target) url(path string) string { return t.base.String() + path }

// labStream is the path of lab's websocket stream.
func labStream(lab string) string { return "/api/v1/" + url.PathEscape(lab) + "/stream" }

// dial opens the websocket at path within the timeout, as a page of the server's own origin
// does.
func (t *target) dial(ctx context.Context, path string) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	opts := &websocket.DialOptions{
		HTTPClient: t.client,
		HTTPHeader: http.Header{"Origin": {t.base.Scheme + "://" + t.base.Host}},
	}
	if t.Compress {
		opts.CompressionMode = websocket.CompressionNoContextTakeover
	}
	c, resp, err := websocket.Dial(ctx, t.url(path), opts)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			return nil, &statusError{code: resp.StatusCode, err: fmt.Errorf("dial %s: HTTP %s", path, resp.Status)}
		}
		return nil, fmt.Errorf("dial %s: %w", path, err)
	}
	c.SetReadLimit(64 << 20) // whole results arrive in one frame
	return c, nil
}

// statusError is a dial refused with an HTTP status.
type statusError struct {
	code int
	err  error
}

func (e *statusError) Error() string { return e.err.Error() }

// send writes msg as one JSON text message within the timeout.
func (t *target) send(ctx context.Context, c *websocket.Conn, msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	return c.Write(ctx, websocket.MessageText, b)
}

// params is a "params" message: the scenario query a page sends when a control changes.
type params struct {
	Type  string `json:"type"`
	ID    int64  `json:"id"`
	Query string `json:"query"`
	Step  string `json:"step,omitempty"`
}

// answer is an HTTP response the tool read: its status, Retry-After, and up to limit bytes of
// its body (the rest is read and discarded, so that the connection is reused).
type answer struct {
	code       int
	retryAfter string
	body       []byte
}

// do makes an HTTP request to path within timeout (the target's own when 0), with a JSON body
// when body is not nil.
func (t *target) do(ctx context.Context, method, path string, body any, timeout time.Duration, limit int64) (answer, error) {
	if timeout <= 0 {
		timeout = t.Timeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{}, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, t.url(path), rd)
	if err != nil {
		return answer{}, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	a := answer{code: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After")}
	if a.body, err = io.ReadAll(io.LimitReader(resp.Body, limit)); err != nil {
		return a, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return a, err
}

// errorBody is the JSON body of the server's error answers.
type errorBody struct {
	Error string `json:"error"`
	Param string `json:"param"`
}

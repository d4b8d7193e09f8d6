package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/go-chi/chi/v5"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/web/templates"
)

// Content-Security-Policy: scripts and styles from this origin only, no inline script, and no
// framing except for the embed view.
const (
	cspBase  = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"
	csp      = cspBase + "; frame-ancestors 'none'"
	cspEmbed = cspBase + "; frame-ancestors *"
)

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Cross-Origin-Opener-Policy", "same-origin")
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic into a 500 with no details for the client and the stack in the log.
// When the handler has already answered — a hijacked websocket, a response under way — it only
// logs: writing an error then would corrupt the connection. (Streams close themselves with
// 1011 when they panic; see stream.)
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw, ok := w.(*statusWriter); ok && sw.code != 0 {
					return
				}
				s.writeError(w, r, errors.New("panic"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// checkHost refuses requests whose Host header names a host the server does not serve (DNS
// rebinding): loopback names and IP literals always pass, other names only when allowed by
// Config.AllowedHosts. The operator's health checks pass whatever their Host.
func (s *Server) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || s.hostAllowed(r.Host) {
			next.ServeHTTP(w, r)
			return
		}
		err := hostError{host: clip(r.Host)}
		if isAPI(r) || r.URL.Path == "/metrics" {
			s.writeError(w, r, err)
			return
		}
		w.WriteHeader(http.StatusMisdirectedRequest)
		s.render(w, r, templates.ErrorPage(nil, http.StatusMisdirectedRequest, err.Error()))
	})
}

// hostAllowed reports whether a Host header value names this server.
func (s *Server) hostAllowed(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	switch {
	case host == "":
		return false
	case host == "localhost":
		return true
	case net.ParseIP(strings.Trim(host, "[]")) != nil:
		return true // an address, not a name: nothing to rebind
	}
	for _, p := range s.cfg.AllowedHosts {
		if ok, _ := path.Match(strings.ToLower(p), host); ok {
			return true
		}
	}
	return false
}

// statusWriter records the status and size of a response. It passes Hijack through so that
// websockets work behind it.
type statusWriter struct {
	http.ResponseWriter
	code  int
	bytes int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += n
	return n, err
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("api: response does not support hijacking")
	}
	if w.code == 0 {
		w.code = http.StatusSwitchingProtocols
	}
	return h.Hijack()
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logRequests writes one structured log line per request and counts it in the metrics.
func (s *Server) logRequests(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r)
		d := time.Since(start)
		route := chi.RouteContext(r.Context()).RoutePattern()
		if route == "" {
			route = "unmatched"
		}
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		s.metrics.requests.WithLabelValues(route, itoa(code)).Inc()
		if code != http.StatusSwitchingProtocols {
			s.metrics.latency.WithLabelValues(route).Observe(d.Seconds())
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("route", route),
			slog.Int("status", code), slog.Int("bytes", sw.bytes), slog.Duration("duration", d))
	})
}

// render writes a templ component as HTML.
func (s *Server) render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	if err := c.Render(r.Context(), w); err != nil && !errors.Is(err, context.Canceled) {
		s.log.Error("render", "path", r.URL.Path, "err", err)
	}
}

// countRejection counts a run the hub refused.
func (s *Server) countRejection(err error) {
	var pe *param.Error
	switch {
	case errors.As(err, &pe):
		s.metrics.rejected.WithLabelValues("over_budget").Inc()
	case errors.Is(err, hub.ErrBusy):
		s.metrics.rejected.WithLabelValues("busy").Inc()
	case errors.Is(err, hub.ErrDraining):
		s.metrics.rejected.WithLabelValues("draining").Inc()
	}
}

// clientOf names the client a request comes from, for the hub's fair share of slots (see
// package hub) and the rooms' limits: its remote address, an IPv6 address by its /64 (one
// host's usual allocation, which it may spread its connections over). A connection holds at
// most one run at a time (a stream serves its newest request, HTTP/1.1 one request at a time),
// so the address groups a client's connections. A remote address that is not an IP address (a
// Unix socket, an in-memory pipe) names no client: "".
func clientOf(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return ""
	}
	a := ap.Addr().Unmap()
	if a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

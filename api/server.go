package api

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/web"
	"github.com/resilience-playground/playground/web/templates"
)

// Config is what a Server needs. Zero limits take the defaults noted.
type Config struct {
	Labs *lab.Registry
	Hub  *hub.Hub
	Log  *slog.Logger // default: discard

	// AllowedHosts are host name patterns (as AllowedOrigins; matched without the port) that
	// requests may name in their Host header. Loopback names ("localhost") and IP literals
	// are always accepted; any other name is refused with 421, so that a page on a domain
	// rebound to this server's address (DNS rebinding) cannot drive it.
	AllowedHosts []string

	// AllowedOrigins are extra host patterns (as in coder/websocket's OriginPatterns, e.g.
	// "slides.example.com" or "*.example.com") whose pages may open streams. Same-origin
	// connections are always accepted.
	AllowedOrigins []string

	ParamRate     float64       // parameter changes per second per connection (default 20)
	ParamBurst    int           // burst of parameter changes (default 20)
	MaxMessage    int64         // largest websocket message read, in bytes (default 4096)
	FrameInterval time.Duration // least time between frames (default 33ms)
	// Patience is how long a viewer may wait for a complete picture before a newer value on
	// the stream waits for the run in flight to show its picture (default 100ms; see
	// driver.run).
	Patience     time.Duration
	PingInterval time.Duration // how often streams are pinged (default 20s)
	WriteTimeout time.Duration // longest a frame write may block (default 10s)
	IdleTimeout  time.Duration // a stream with no request for this long is closed (default 30m)
	// MaxStreams is the most streams, labs' and rooms', open at once (default
	// DefaultMaxStreams; keep it well under the process's descriptor limit), and
	// MaxClientStreams the most one client (see clientOf) may hold (default
	// DefaultMaxClientStreams). A stream beyond them is refused before the upgrade, 503 and
	// 429, with Retry-After.
	MaxStreams       int
	MaxClientStreams int

	// Rooms keeps the rooms of live sessions (default: in this process's memory); Replica
	// names this server among the replicas sharing it (default: random).
	Rooms   room.Store
	Replica string
	// RoomCheck is how often a server checks that the store still has each room it has
	// participants in, and keeps it alive (default 5s).
	RoomCheck time.Duration

	// Metrics receives the server's metrics and /metrics serves them; default: NewMetrics of
	// a new registry. Pass the same Metrics' ObserveRun to the hub's Config.Observe.
	Metrics *Metrics
}

// Server is the playground's HTTP handler. Create it with New.
type Server struct {
	cfg     Config
	log     *slog.Logger
	router  chi.Router
	metrics *Metrics

	static *staticFiles

	rooms    *roomServer
	open     *openStreams // the streams open, in all and by client
	previews previews     // drawn at start-up (WarmPreviews)

	draining atomic.Bool
	drain    chan struct{}   // closed when draining starts
	drainCtx context.Context // done when draining starts
	drained  context.CancelFunc
	stop     chan struct{} // closed when streams must end now
	once     sync.Once
	stopOnce sync.Once
	streams  sync.WaitGroup
}

// New returns a server for cfg.
func New(cfg Config) *Server {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.ParamRate <= 0 {
		// 20 a second: a hand dragging a slider (an input every 30 ms or so) gets a run at
		// least every 50 ms, well inside the 150 ms a drag may go without a new picture;
		// at 10, drags of cheap scenarios were paced at 100 ms and drew every 100–160 ms.
		cfg.ParamRate = 20
	}
	if cfg.ParamBurst <= 0 {
		cfg.ParamBurst = 20
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = 4096
	}
	if cfg.FrameInterval <= 0 {
		cfg.FrameInterval = 33 * time.Millisecond
	}
	if cfg.Patience <= 0 {
		cfg.Patience = DefaultPatience
	}
	if cfg.PingInterval <= 0 {
		cfg.PingInterval = 20 * time.Second
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 10 * time.Second
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = 30 * time.Minute
	}
	if cfg.MaxStreams <= 0 {
		cfg.MaxStreams = DefaultMaxStreams
	}
	if cfg.MaxClientStreams <= 0 {
		cfg.MaxClientStreams = DefaultMaxClientStreams
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics(prometheus.NewRegistry())
	}
	static, err := newStaticFiles(web.Static)
	if err != nil {
		panic("api: reading the embedded static files: " + err.Error()) // a broken build
	}
	if cfg.Rooms == nil {
		cfg.Rooms = room.NewMemory(room.Limits{})
	}
	if cfg.RoomCheck <= 0 {
		cfg.RoomCheck = 5 * time.Second
	}
	if cfg.Replica == "" {
		cfg.Replica = room.NewKey()[:12]
	}
	s := &Server{cfg: cfg, log: cfg.Log, drain: make(chan struct{}), stop: make(chan struct{}), metrics: cfg.Metrics, static: static}
	s.drainCtx, s.drained = context.WithCancel(context.Background())
	s.open = newOpenStreams(cfg.MaxStreams, cfg.MaxClientStreams)
	s.rooms = newRoomServer(s, cfg.Rooms, cfg.Replica)
	s.metrics.watch(cfg.Hub)
	s.router = s.routes()
	return s
}

// ServeHTTP serves a request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.router.ServeHTTP(w, r) }

func (s *Server) routes() chi.Router {
	r := chi.NewRouter()
	r.Use(s.logRequests, s.recoverer, securityHeaders, middleware.GetHead, s.checkHost)
	r.MethodNotAllowed(s.methodNotAllowed)
	r.NotFound(s.notFound)
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", func(w http.ResponseWriter, r *http.Request) {
		if s.draining.Load() {
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "draining"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	r.Method(http.MethodGet, "/metrics", promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
	r.Get("/static/*", func(w http.ResponseWriter, r *http.Request) { s.static.serve(w, r, "/static/", s.notFound) })
	r.Group(func(r chi.Router) {
		r.Use(middleware.Compress(5, "text/html", "application/json"))
		r.Get("/", s.index)
		r.Get("/api/v1/rooms/{code}", s.rooms.getRoom)
		r.Get("/api/v1/rooms/{code}/answers.csv", s.rooms.answersCSV)
		r.Post("/api/v1/rooms", s.rooms.createRoom)
		r.Get("/join/{code}", s.rooms.joinPage)
		r.Get("/api/v1/{lab}", s.result)
		r.Get("/api/v1/{lab}.csv", s.resultCSV)
		r.Get("/preview/{lab}.svg", s.preview)
		r.Get("/compare", s.compare)
		r.Get("/embed/{lab}", s.page(true))
		r.Get("/{lab}", s.page(false))
	})
	r.Get("/api/v1/{lab}/stream", s.stream)
	r.Get("/api/v1/rooms/{code}/stream", s.rooms.stream)
	r.Get("/join/{code}/qr.svg", s.rooms.qr)
	return r
}

// notFound answers a path that names nothing: JSON under /api/, a page elsewhere.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	if isAPI(r) {
		s.writeError(w, r, errNotFound)
		return
	}
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusNotFound)
	s.render(w, r, templates.ErrorPage(s.cfg.Labs.All(), http.StatusNotFound, "There is no such page."))
}

// methodNotAllowed answers a method a route does not serve, with the Allow header: JSON under
// /api/, a page elsewhere.
func (s *Server) methodNotAllowed(w http.ResponseWriter, r *http.Request) {
	rctx := chi.RouteContext(r.Context())
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions} {
		if rctx.Routes.Match(chi.NewRouteContext(), m, r.URL.Path) || (m == http.MethodHead && slices.Contains(allow, http.MethodGet)) {
			allow = append(allow, m)
		}
	}
	w.Header().Set("Allow", strings.Join(allow, ", "))
	err := methodError{method: r.Method, allow: allow}
	if isAPI(r) {
		s.writeError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusMethodNotAllowed)
	s.render(w, r, templates.ErrorPage(s.cfg.Labs.All(), http.StatusMethodNotAllowed, err.Error()+"."))
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// lab returns the lab the request's path names.
func (s *Server) lab(r *http.Request) (*lab.Lab, bool) {
	return s.cfg.Labs.Lookup(chi.URLParam(r, "lab"))
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, templates.Index(s.cfg.Labs.All()))
}

func (s *Server) page(embed bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		l, ok := s.lab(r)
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			s.render(w, r, templates.ErrorPage(s.cfg.Labs.All(), http.StatusNotFound, "There is no such lab."))
			return
		}
		query, theme := r.URL.RawQuery, ""
		var themeErr *param.Error
		if embed {
			w.Header().Set("Content-Security-Policy", cspEmbed)
			w.Header().Del("X-Frame-Options")
			query, theme, themeErr = embedTheme(query)
		}
		v, errs := l.Salvage(query)
		if themeErr != nil {
			errs = append(errs, themeErr)
		}
		p := templates.NewPage(s.cfg.Labs.All(), l, v, errs, embed)
		p.Theme = theme
		s.render(w, r, templates.LabPage(p))
	}
}

// result serves a scenario's whole result as JSON.
func (s *Server) result(w http.ResponseWriter, r *http.Request) {
	if _, res, ok := s.finalResult(w, r); ok {
		writeJSON(w, http.StatusOK, res)
	}
}

// resultCSV answers GET /api/v1/{lab}.csv: the series of the scenario's final result as CSV
// (as `playground run -format csv` prints them), offered as a download.
func (s *Server) resultCSV(w http.ResponseWriter, r *http.Request) {
	_, res, ok := s.finalResult(w, r)
	if !ok {
		return
	}
	var b bytes.Buffer
	if err := lab.WriteCSV(&b, res); err != nil {
		s.writeError(w, r, fmt.Errorf("writing CSV: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+lab.FileName(res.URL, "csv")+`"`)
	w.WriteHeader(http.StatusOK)
	w.Write(b.Bytes())
}

// finalResult computes the final result of the scenario the request names, or answers the
// request with the error and returns false.
func (s *Server) finalResult(w http.ResponseWriter, r *http.Request) (*lab.Lab, *lab.Result, bool) {
	l, ok := s.lab(r)
	if !ok {
		s.writeError(w, r, errNotFound)
		return nil, nil, false
	}
	v, err := l.Parse(r.URL.RawQuery)
	if err != nil {
		s.metrics.rejected.WithLabelValues("bad_params").Inc()
		s.writeError(w, r, err)
		return nil, nil, false
	}
	res, err := s.cfg.Hub.ResultFor(r.Context(), clientOf(r), l, v)
	if err != nil {
		s.countRejection(err)
		s.writeError(w, r, err)
		return nil, nil, false
	}
	return l, res, true
}

func itoa(n int) string { return strconv.Itoa(n) }

// Drain starts lame-duck mode: /readyz reports not ready, no new runs start, and every stream
// finishes its run in flight and closes with 1001. It returns at once; [Server.WaitStreams]
// waits for the streams to close.
func (s *Server) Drain() {
	s.once.Do(func() {
		s.draining.Store(true)
		close(s.drain)
		s.drained()
	})
}

// CloseStreams ends every stream now: runs still in flight lose their viewer (and so are
// cancelled) and each stream is closed with 1001 (going away), which pages take as a cue to
// reconnect. It is the end of [Server.Drain] when the drain deadline has passed.
func (s *Server) CloseStreams() {
	s.Drain()
	s.stopOnce.Do(func() { close(s.stop) })
}

// WaitStreams waits until every stream has closed or ctx is done.
func (s *Server) WaitStreams(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		s.streams.Wait()
		close(done)
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// embedTheme takes an embed's theme out of its query: theme=light or theme=dark fixes the
// embed's colours whatever the viewer's setting (a chart framed in light slides stays light),
// absent it follows the viewer's. It is the view's, not the scenario's: the rest of the query
// is the scenario, parsed as any other. A theme other than light or dark is an error on the
// page, and the viewer's setting holds.
func embedTheme(rawQuery string) (query, theme string, err *param.Error) {
	var keep []string
	for _, part := range strings.Split(rawQuery, "&") {
		name, value, _ := strings.Cut(part, "=")
		if name != "theme" {
			if part != "" {
				keep = append(keep, part)
			}
			continue
		}
		value, _ = url.QueryUnescape(value)
		switch value {
		case "light", "dark":
			theme, err = value, nil
		default:
			theme, err = "", &param.Error{Param: "theme", Msg: fmt.Sprintf("theme must be light or dark, got %q", value)}
		}
	}
	return strings.Join(keep, "&"), theme, err
}

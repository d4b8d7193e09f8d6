package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/web/templates"
)

// Rooms (live teaching sessions). A presenter creates a room for a scenario
// (POST /api/v1/rooms); followers open its join page and see, live, the scenario the presenter
// drives from the presenter page. A room's state is its current URL and tour step, kept in a
// room.Store shared by every replica; each server with participants in a room runs one
// driver for it — it computes the room's scenario once, through the hub — and fans the
// frames out to its local participants through a broadcast: encoded once, the same bytes to
// every follower.
//
// The room stream (GET /api/v1/rooms/{code}/stream) speaks the lab stream's protocol, plus:
//
//	{"type": "room", "code", "lab", "url", "step", "version", "followers", "presenter"}
//
// sent first and whenever the room changes (presenter is true on the presenter's own
// connection); the run frames' ids are the room's version. A connection becomes the
// presenter by sending {"type": "present", "key": "..."}; then its params messages
// ({"type": "params", "id", "query", "step"}) move the room. A follower's params message is
// answered with an error and changes nothing.

// errNotPresenter answers a follower's attempt to drive the room.
var errNotPresenter = &param.Error{Msg: "only the presenter can change the room's scenario; detach to explore on your own"}

// roomServer is this server's side of the rooms it has participants in.
type roomServer struct {
	s       *Server
	store   room.Store
	replica string

	mu    sync.Mutex
	rooms map[string]*liveRoom
}

// liveRoom is a room with participants on this server.
type liveRoom struct {
	code      string
	lab       *lab.Lab
	b         *broadcast
	cancel    context.CancelFunc
	d         *driver
	followers int // local followers (presenters not counted)
	members   int // local connections
	room      room.Room
	total     int // followers over every server, as last read
}

func newRoomServer(s *Server, store room.Store, replica string) *roomServer {
	return &roomServer{s: s, store: store, replica: replica, rooms: map[string]*liveRoom{}}
}

// createRoomRequest is the body of POST /api/v1/rooms.
type createRoomRequest struct {
	URL string `json:"url"`
}

// createRoomReply is its answer.
type createRoomReply struct {
	Code         string `json:"code"`
	URL          string `json:"url"`
	JoinURL      string `json:"join_url"`
	PresenterURL string `json:"presenter_url"`
}

// roomInfo is GET /api/v1/rooms/{code}.
type roomInfo struct {
	Code      string `json:"code"`
	Lab       string `json:"lab"`
	URL       string `json:"url"`
	Step      string `json:"step"`
	Version   int64  `json:"version"`
	Followers int    `json:"followers"`
}

// errRoomNotFound is an unknown or expired room.
var errRoomNotFound = fmt.Errorf("%w: there is no room with that code (it has ended or never existed)", errNotFound)

// createRoom serves POST /api/v1/rooms.
func (rs *roomServer) createRoom(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.writeError(w, r, &param.Error{Param: "url", Msg: "send the room as JSON: {\"url\": \"/backoff?clients=50\"} with Content-Type application/json"})
		return
	}
	var req createRoomRequest
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		s.writeError(w, r, &param.Error{Param: "url", Msg: "the body must be {\"url\": \"/backoff?clients=50\"}: " + clip(err.Error())})
		return
	}
	l, v, err := Resolve(s.cfg.Labs, req.URL)
	if err != nil {
		if pe := (*param.Error)(nil); errors.As(err, &pe) && pe.Param == "" {
			pe.Param = "url"
		}
		if errors.Is(err, errNotFound) {
			err = &param.Error{Param: "url", Msg: err.Error()}
		}
		s.writeError(w, r, err)
		return
	}
	key := room.NewKey()
	rm := room.Room{Lab: l.Name, URL: l.URL(v)}
	for range 10 {
		rm.Code = room.NewCode()
		if err = rs.store.Create(r.Context(), rm, room.HashKey(key)); !errors.Is(err, room.ErrExists) {
			break
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, createRoomReply{
		Code: rm.Code, URL: rm.URL,
		JoinURL: "/join/" + rm.Code,
		// The key rides in the fragment: browsers send it to no server and no Referer.
		PresenterURL: "/join/" + rm.Code + "#key=" + key,
	})
}

// getRoom serves GET /api/v1/rooms/{code}.
func (rs *roomServer) getRoom(w http.ResponseWriter, r *http.Request) {
	rm, err := rs.lookup(r.Context(), chi.URLParam(r, "code"))
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	n, err := rs.store.Followers(r.Context(), rm.Code)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, roomInfo{Code: rm.Code, Lab: rm.Lab, URL: rm.URL, Step: rm.Step, Version: rm.Version, Followers: n})
}

// lookup returns the room of a code as typed, or errRoomNotFound.
func (rs *roomServer) lookup(ctx context.Context, code string) (room.Room, error) {
	code = room.NormalizeCode(code)
	if code == "" {
		return room.Room{}, errRoomNotFound
	}
	rm, err := rs.store.Get(ctx, code)
	if errors.Is(err, room.ErrNotFound) {
		return room.Room{}, errRoomNotFound
	}
	return rm, err
}

// joinPage serves /join/{code}: the room's lab page at its current scenario, following it
// (or driving it, with the presenter key in the fragment).
func (rs *roomServer) joinPage(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	rm, err := rs.lookup(r.Context(), chi.URLParam(r, "code"))
	if err != nil {
		code := http.StatusNotFound
		msg := "There is no room with that code: it has ended or never existed."
		if !errors.Is(err, errNotFound) {
			code, msg = http.StatusServiceUnavailable, "Rooms are not available right now; try again shortly."
			s.log.Error("room lookup", "err", err)
		}
		w.WriteHeader(code)
		s.render(w, r, templates.ErrorPage(s.cfg.Labs.All(), code, msg))
		return
	}
	l, v, err := Resolve(s.cfg.Labs, rm.URL)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	p := templates.NewPage(s.cfg.Labs.All(), l, v, nil, false)
	p.Room = rm.Code
	p.Spec["room"] = rm.Code
	s.render(w, r, templates.LabPage(p))
}

// stream serves a room's websocket.
func (rs *roomServer) stream(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	rm, err := rs.lookup(r.Context(), chi.URLParam(r, "code"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	if s.draining.Load() {
		s.writeError(w, r, hub.ErrDraining)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		OriginPatterns:  s.cfg.AllowedOrigins,
		CompressionMode: websocket.CompressionNoContextTakeover,
	})
	if err != nil {
		return
	}
	s.streams.Add(1)
	defer s.streams.Done()
	s.metrics.connections.Inc()
	defer s.metrics.connections.Dec()
	c.SetReadLimit(s.cfg.MaxMessage)
	ctx, cancelCause := context.WithCancelCause(context.Background())
	defer cancelCause(nil)
	cancel := func() { cancelCause(nil) }
	ws := &wsConn{s: s, c: c, ctx: ctx}
	defer ws.recoverPanic("room " + rm.Code)
	// Draining, a room's participants are sent away at once: the room lives on in the store,
	// and they reconnect to another server.
	stopDrain := context.AfterFunc(s.drainCtx, func() { cancelCause(errRoomClosing) })
	defer stopDrain()

	lr, err := rs.join(rm)
	if err != nil {
		s.log.Error("room join", "room", rm.Code, "err", err)
		c.Close(websocket.StatusInternalError, "internal error")
		return
	}
	// presenter is set by the reader; websocket writes may be concurrent, so this
	// connection's own replies and the room's frames need no lock of their own: a write
	// blocked on a slow reader must not stop the presenter's next change.
	var presenter atomic.Bool
	defer func() { rs.leave(lr, presenter.Load()) }()
	own := func(m reply) error { return ws.writeJSON(m) }
	go ws.read(cancel, func(b []byte) error {
		m, err := decodeOf(b, "params", "present")
		if err != nil {
			return err
		}
		switch m.Type {
		case "present":
			ok, err := rs.store.Present(ctx, lr.code, m.Key)
			if err != nil || !ok {
				return own(reply{Type: "error", Error: "that is not this room's presenter key", Param: "key"})
			}
			if first := !presenter.Swap(true); first {
				rs.becamePresenter(lr)
			}
			return own(rs.roomReply(lr, true))
		case "params":
			if !presenter.Load() {
				return own(reply{Type: "error", ID: m.ID, Error: errNotPresenter.Msg})
			}
			v, err := lr.lab.Parse(m.Query)
			if err != nil {
				_, body := statusOf(err)
				return own(errorReply(m.ID, body))
			}
			if _, _, ok := lr.lab.FindStep(m.Step); m.Step != "" && !ok {
				return own(reply{Type: "error", ID: m.ID, Error: fmt.Sprintf("step %q is not a step of the %s lab's tours", m.Step, lr.lab.Name), Param: "step"})
			}
			if _, err := rs.store.Update(ctx, lr.code, lr.lab.URL(v), m.Step); err != nil {
				s.log.Error("room update", "room", lr.code, "err", err)
				return own(reply{Type: "error", ID: m.ID, Error: "the room could not be updated; try again"})
			}
		}
		return nil
	})
	go ws.ping(cancel)
	_ = lr.b.follow(ctx, ws.write) // how it ended is told by ctx below
	switch {
	case errors.Is(context.Cause(ctx), errRoomClosing):
		c.Close(websocket.StatusGoingAway, "server restarting; reconnect")
	case ctx.Err() != nil:
		c.Close(websocket.StatusNormalClosure, "")
	default:
		c.CloseNow()
	}
}

// errRoomClosing ends a room's streams when the server drains.
var errRoomClosing = errors.New("room closing")

// roomReply is the room message for lr, as the presenter or a follower sees it.
func (rs *roomServer) roomReply(lr *liveRoom, presenter bool) reply {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return reply{Type: "room", Room: &roomState{Code: lr.code, Lab: lr.lab.Name, URL: lr.room.URL, Step: lr.room.Step,
		Version: lr.room.Version, Followers: lr.total, Presenter: presenter}}
}

// roomState is the body of a room message.
type roomState struct {
	Code      string `json:"code"`
	Lab       string `json:"lab"`
	URL       string `json:"url"`
	Step      string `json:"step"`
	Version   int64  `json:"version"`
	Followers int    `json:"followers"`
	Presenter bool   `json:"presenter"`
}

// join adds a participant (a follower until it presents) to the room, starting the room's
// driver on this server if it is the first.
func (rs *roomServer) join(rm room.Room) (*liveRoom, error) {
	rs.mu.Lock()
	lr, ok := rs.rooms[rm.Code]
	if ok {
		lr.members++
		lr.followers++
		rs.mu.Unlock()
		rs.countFollowers(lr)
		return lr, nil
	}
	l, v, err := Resolve(rs.s.cfg.Labs, rm.URL)
	if err != nil {
		rs.mu.Unlock()
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	lr = &liveRoom{code: rm.Code, lab: l, b: newBroadcast(), cancel: cancel, members: 1, followers: 1, room: rm}
	rs.rooms[rm.Code] = lr
	rs.mu.Unlock()

	watch, err := rs.store.Watch(ctx, rm.Code)
	if err != nil {
		cancel()
		rs.mu.Lock()
		delete(rs.rooms, rm.Code)
		rs.mu.Unlock()
		return nil, err
	}
	lr.b.setRoom(rs.roomReply(lr, false))
	lr.d = rs.s.newDriver(ctx, l, lr.b.publish)
	lr.d.offer(request{Type: "params", ID: rm.Version, Query: v.Encode()})
	go lr.d.serve()
	go rs.watch(ctx, lr, watch)
	rs.countFollowers(lr)
	return lr, nil
}

// watch follows the room's changes in the store: a new URL or step is a new request for the
// driver; every change refreshes the room message (follower counts, too). It also keeps the
// room alive while it has participants here.
func (rs *roomServer) watch(ctx context.Context, lr *liveRoom, changes <-chan room.Room) {
	touch := time.NewTicker(room.TTL / 8)
	defer touch.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-touch.C:
			_ = rs.store.Touch(ctx, lr.code)
		case rm, ok := <-changes:
			if !ok {
				return
			}
			n, _ := rs.store.Followers(ctx, lr.code)
			rs.mu.Lock()
			newer := rm.Version > lr.room.Version
			if rm.Version >= lr.room.Version {
				lr.room, lr.total = rm, n
			}
			rs.mu.Unlock()
			if newer {
				if l, v, err := Resolve(rs.s.cfg.Labs, rm.URL); err == nil && l == lr.lab {
					lr.d.offer(request{Type: "params", ID: rm.Version, Query: v.Encode()})
				}
			}
			lr.b.setRoom(rs.roomReply(lr, false))
		}
	}
}

// becamePresenter takes a follower off the room's follower count.
func (rs *roomServer) becamePresenter(lr *liveRoom) {
	rs.mu.Lock()
	lr.followers--
	rs.mu.Unlock()
	rs.countFollowers(lr)
}

// leave removes a participant, and the room's driver with the last.
func (rs *roomServer) leave(lr *liveRoom, presenter bool) {
	rs.mu.Lock()
	lr.members--
	if !presenter {
		lr.followers--
	}
	last := lr.members == 0
	if last {
		delete(rs.rooms, lr.code)
	}
	rs.mu.Unlock()
	rs.countFollowers(lr)
	if last {
		lr.cancel()
	}
}

// countFollowers records this server's followers of lr in the store, which tells every
// server's watchers.
func (rs *roomServer) countFollowers(lr *liveRoom) {
	rs.mu.Lock()
	n := lr.followers
	rs.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := rs.store.SetFollowers(ctx, lr.code, rs.replica, n); err != nil && !errors.Is(err, room.ErrNotFound) {
		rs.s.log.Warn("room followers", "room", lr.code, "err", err)
	}
}

// qr serves /join/{code}/qr.svg: the absolute join link as a QR code for the projector.
func (rs *roomServer) qr(w http.ResponseWriter, r *http.Request) {
	rm, err := rs.lookup(r.Context(), chi.URLParam(r, "code"))
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	link := (&url.URL{Scheme: scheme, Host: r.Host, Path: "/join/" + rm.Code}).String()
	svg, err := qrSVG(link)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(svg)
}

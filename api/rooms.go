package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/go-chi/chi/v5"
	jsonv2 "github.com/go-json-experiment/json"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/web/templates"
)

// errNotPresenter answers a follower's attempt to drive the room.
var errNotPresenter = &param.Error{Msg: "only the presenter can change the room's scenario; detach to explore on your own"}

// roomServer is this server's side of the rooms it has participants in.
type roomServer struct {
	s       *Server
	store   room.Store
	replica string
	creates *perClient // rooms one client may open
	misses  *perClient // lookups of codes that name no room: guesses

	mu    sync.Mutex
	rooms map[string]*liveRoom
}

// Rooms' rate limits per client (see clientOf); the store bounds how many rooms there are.
const (
	createBurst = 5                // rooms opened at once
	createEvery = 10 * time.Second // then one per
	missBurst   = 20               // unknown codes tried at once (typos)
	missEvery   = 5 * time.Second  // then one per: about 17,000 guesses a day, of 887 million codes
)

// liveRoom is a room with participants on this server.
type liveRoom struct {
	code       string
	lab        *lab.Lab
	b          *broadcast
	ctx        context.Context // ends, with its cause, when the room ends here
	cancel     context.CancelCauseFunc
	d          *driver
	followers  int // local followers (presenters not counted)
	presenters int // local presenter connections
	members    int // local connections
	room       room.Room
	total      int           // followers over every server, as last read
	changes    chan change   // the presenters' newest change not yet stored
	counts     chan struct{} // the follower count has changed
	counted    chan struct{} // closed when countFollowers has returned
	tally      tally         // the answers to the step on show, as last read (rs.mu)
	tallies    chan struct{} // the answers may have changed (see countAnswers)
	board      *answerBoard  // the presenters' tally
	revealed   int64         // the room's version when its step was revealed (rs.mu)
	showing    sync.Mutex    // held while the room message is read and set (showRoom)
}

// change is a presenter's change of the room, and where to tell its outcome.
type change struct {
	id    int64
	state room.State
	reply func(reply) error
}

func newRoomServer(s *Server, store room.Store, replica string) *roomServer {
	return &roomServer{s: s, store: store, replica: replica, rooms: map[string]*liveRoom{},
		creates: newPerClient("rooms opened", createBurst, createEvery),
		misses:  newPerClient("unknown room codes tried", missBurst, missEvery)}
}

// createRoomRequest is the body of POST /api/v1/rooms.
type createRoomRequest struct {
	URL string `json:"url"`
}

// maxRoomBody is the largest body of POST /api/v1/rooms.
const maxRoomBody = 4096

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
	// The reveal of the step on show, and the presenter connections (0: the presenter has
	// gone).
	Revealed   bool `json:"revealed"`
	RevealOpen bool `json:"reveal_open"`
	Presenters int  `json:"presenters"`
}

// errRoomNotFound is an unknown or expired room.
var errRoomNotFound = fmt.Errorf("%w: there is no room with that code (it has ended or never existed)", errNotFound)

// endedError is a room that has ended, whose last scenario the store still keeps (its
// tombstone, room.Store.Ended): a 404 that names the scenario (see statusOf), and on the join
// page a redirect to it (joinPage).
type endedError struct{ room room.Room }

func (e *endedError) Error() string {
	return fmt.Sprintf("%v: the room %s has ended; the scenario it showed last is %s", errNotFound, e.room.Code, e.room.URL)
}

func (e *endedError) Unwrap() error { return errNotFound }

// createRoom serves POST /api/v1/rooms.
func (rs *roomServer) createRoom(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	client := clientOf(r)
	// An address that has opened its allowance of rooms is refused before anything is read;
	// but a request refused for what it asks (a bad body, a scenario the server will not run)
	// takes nothing of the allowance: only a room made does.
	if err := rs.creates.check(client, time.Now()); err != nil {
		s.writeError(w, r, err)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		s.writeError(w, r, &param.Error{Param: "url", Msg: "send the room as JSON: {\"url\": \"/backoff?clients=50\"} with Content-Type application/json"})
		return
	}
	var req createRoomRequest
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRoomBody))
	if err == nil {
		// One object with one "url", nothing after it: a member given twice (which one would
		// count?) or trailing data is refused, not guessed at.
		err = jsonv2.Unmarshal(body, &req, jsonv2.RejectUnknownMembers(true))
	}
	if err != nil {
		s.writeError(w, r, &param.Error{Param: "url", Msg: fmt.Sprintf("the body must be one JSON object, {\"url\": \"/backoff?clients=50\"}, of at most %d bytes, with no other member, no member twice and nothing after it: %s", maxRoomBody, clipTo(err.Error(), 120))})
		return
	}
	l, v, err := Resolve(s.cfg.Labs, req.URL)
	if err == nil {
		err = s.cfg.Hub.Admit(r.Context(), client, l, v) // a room's scenario must run
	}
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
	if err := rs.creates.allow(client, time.Now()); err != nil {
		s.writeError(w, r, err)
		return
	}
	key := room.NewKey()
	rm := room.Room{Lab: l.Name, URL: l.URL(v)}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	for range 10 {
		rm.Code = room.NewCode()
		if err = rs.store.Create(ctx, rm, room.HashKey(key), client); !errors.Is(err, room.ErrExists) {
			break
		}
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store") // the reply carries the presenter's key
	writeJSON(w, http.StatusCreated, createRoomReply{
		Code: rm.Code, URL: rm.URL,
		JoinURL: "/join/" + rm.Code,
		// The key rides in the fragment: browsers send it to no server and no Referer.
		PresenterURL: "/join/" + rm.Code + "#key=" + key,
	})
}

// getRoom serves GET /api/v1/rooms/{code}.
func (rs *roomServer) getRoom(w http.ResponseWriter, r *http.Request) {
	rm, err := rs.lookup(r)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	n, err := rs.store.Followers(ctx, rm.Code)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, roomInfo{Code: rm.Code, Lab: rm.Lab, URL: rm.URL, Step: rm.Step, Version: rm.Version, Followers: n,
		Revealed: rm.Revealed, RevealOpen: rm.RevealOpen, Presenters: rm.Presenters})
}

// lookup returns the room of the code a request's path names, as typed; an *endedError for a
// room that has ended and left its tombstone; or errRoomNotFound. A client that has tried too
// many codes naming no room, live or ended, is refused (a *rateError) before the store is
// asked: join codes are short, and must not be found by trying them all.
func (rs *roomServer) lookup(r *http.Request) (room.Room, error) {
	client := clientOf(r)
	if err := rs.misses.check(client, time.Now()); err != nil {
		return room.Room{}, err
	}
	code := room.NormalizeCode(chi.URLParam(r, "code"))
	if code == "" {
		_ = rs.misses.allow(client, time.Now())
		return room.Room{}, errRoomNotFound
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	rm, err := rs.store.Get(ctx, code)
	if errors.Is(err, room.ErrNotFound) {
		ended, err := rs.store.Ended(ctx, code)
		if err == nil {
			return room.Room{}, &endedError{ended}
		}
		if !errors.Is(err, room.ErrNotFound) {
			return room.Room{}, err
		}
		_ = rs.misses.allow(client, time.Now())
		return room.Room{}, errRoomNotFound
	}
	return rm, err
}

// joinPage serves /join/{code}: the room's lab page at its current scenario, following it
// (or driving it, with the presenter key in the fragment). A room that has ended sends its
// people to its scenario (endedPage).
func (rs *roomServer) joinPage(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	rm, err := rs.lookup(r)
	if ended := (*endedError)(nil); errors.As(err, &ended) && rs.endedPage(w, ended.room) {
		return
	}
	if err != nil {
		code, body := statusOf(err)
		msg := "There is no room with that code: it has ended or never existed."
		switch {
		case code == http.StatusInternalServerError:
			code, msg = http.StatusServiceUnavailable, "Rooms are not available right now; try again shortly."
			body.RetryAfter = busyRetrySeconds
			s.log.Error("room lookup", "err", err)
		case code != http.StatusNotFound:
			msg = strings.ToUpper(body.Error[:1]) + body.Error[1:] + "."
		}
		if body.RetryAfter > 0 {
			w.Header().Set("Retry-After", itoa(body.RetryAfter))
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

// endedPage answers the join page of a room that has ended with a redirect (303 See Other) to
// the scenario it showed last, on the lab's own page — the link that outlives the room — with
// its tour step and "ended=CODE" in the fragment: the page says the room has ended and takes
// ended=… out of its address, which is then the scenario's canonical URL, the same bit for bit
// as any other link to it. It reports false, writing nothing, when the scenario no longer
// resolves (a lab since removed): the room is then as unknown.
func (rs *roomServer) endedPage(w http.ResponseWriter, rm room.Room) bool {
	l, v, err := Resolve(rs.s.cfg.Labs, rm.URL)
	if err != nil {
		return false
	}
	fragment := "ended=" + rm.Code
	if _, _, ok := l.FindStep(rm.Step); ok && rm.Step != "" {
		// As the page writes a step (js/fragment.js): escaped, its slash kept.
		fragment = "tour=" + strings.ReplaceAll(url.QueryEscape(rm.Step), "%2F", "/") + "&" + fragment
	}
	w.Header().Set("Location", l.URL(v)+"#"+fragment)
	w.Header().Set("Cache-Control", "no-store") // the code may name a new room later
	w.WriteHeader(http.StatusSeeOther)
	return true
}

// stream serves a room's websocket. Its stages: the request is admitted (admitStream) and
// upgraded; the connection joins the room (joinStream); its reader hands the participant's
// messages to their loops (participant.handle) while the room's frames are written to it
// (broadcast.follow); and when the following ends, the stream is closed with the code of why
// (endStream). What the stages take is given back by the defers here, in the reverse of the
// order taken: the room left; the watches of the room's end and of draining stopped; a panic
// answered with 1011; the following stopped; the connection uncounted and cut; its context
// cancelled; the client's slot of open streams released.
func (rs *roomServer) stream(w http.ResponseWriter, r *http.Request) {
	s := rs.s
	rm, release, ok := rs.admitStream(w, r)
	if !ok {
		return
	}
	defer release()
	// ctx is the connection's: its reader, pinger and writes. The server's reasons to end
	// the stream — draining, the room ending, the store failing — end only the following
	// (follow), with their cause, and the stream then closes with the code of its cause
	// (closeOf).
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ws := s.acceptRoom(w, r, ctx)
	if ws == nil {
		return // acceptRoom has written the error response (403 for a foreign origin)
	}
	defer ws.c.Close()
	s.streams.Add(1)
	defer s.streams.Done()
	s.metrics.connections.Inc()
	defer s.metrics.connections.Dec()
	following, stopFollowing := context.WithCancelCause(ctx)
	defer stopFollowing(nil)
	defer ws.recoverPanic("room " + rm.Code)
	// Draining, a room's participants are sent away at once: the room lives on in the store,
	// and they reconnect to another server.
	stopDrain := context.AfterFunc(s.drainCtx, func() { stopFollowing(errRoomClosing) })
	defer stopDrain()

	lr, ok := rs.joinStream(ws, rm)
	if !ok {
		return
	}
	stopRoom := context.AfterFunc(lr.ctx, func() { stopFollowing(context.Cause(lr.ctx)) })
	defer stopRoom()
	p := rs.newParticipant(ctx, lr, ws, clientOf(r))
	defer func() { rs.leave(lr, p.presenter.Load()) }()
	go rs.presenting(ctx, lr, p.keys, &p.presenter, p.own, p.promote, stopFollowing)
	ws.reading = true
	go ws.readLoop(cancel, p.handle)
	go ws.ping(cancel)
	_ = lr.b.follow(following, ws.write, p.side) // how it ended is told by the contexts
	rs.endStream(ctx, following, ws, rm.Code)
}

// admitStream admits a request for a room's stream, before it is upgraded: it takes a slot
// of the client's open streams (before the store is asked), looks the room up, and refuses a
// server that is draining. It returns the room and the slot's release; refused, it has
// written the error response and released the slot, and reports false.
func (rs *roomServer) admitStream(w http.ResponseWriter, r *http.Request) (_ room.Room, release func(), ok bool) {
	s := rs.s
	free, err := s.open.open(clientOf(r))
	if err != nil {
		s.writeError(w, r, err)
		return room.Room{}, nil, false
	}
	defer func() {
		if !ok { // refused, or a panic: the slot is not kept
			free()
		}
	}()
	rm, err := rs.lookup(r)
	if err != nil {
		s.writeError(w, r, err)
		return room.Room{}, nil, false
	}
	if s.draining.Load() {
		s.writeError(w, r, hub.ErrDraining)
		return room.Room{}, nil, false
	}
	return rm, free, true
}

// joinStream joins the stream's participant to rm's room on this server (join). A room that
// could not start here is left at once and the stream closed with its cause's code
// (closeStream); joinStream then reports false.
func (rs *roomServer) joinStream(ws *roomConn, rm room.Room) (*liveRoom, bool) {
	lr := rs.join(rm)
	if lr.ctx.Err() != nil { // the room could not start here
		rs.leave(lr, false)
		rs.closeStream(ws, rm.Code, context.Cause(lr.ctx))
		return nil, false
	}
	return lr, true
}

// endStream closes the stream of the room roomCode once its following has ended. The server
// ended it (its cause: draining, the room ending, the store failing) while the connection
// lived: closed with the cause's code (closeStream). The connection ended (the participant
// closed it, sent what it may not, or stopped answering pings): closed normally. Neither — a
// write failed — it is left to the stream's deferred Close, which cuts the connection.
func (rs *roomServer) endStream(ctx, following context.Context, ws *roomConn, roomCode string) {
	if cause := context.Cause(following); following.Err() != nil && ctx.Err() == nil {
		rs.closeStream(ws, roomCode, cause)
		return
	}
	if ctx.Err() != nil {
		ws.close(websocket.StatusNormalClosure, "")
	}
}

// closeStream closes the stream of the room roomCode with the close code and reason of cause
// (closeOf), logging a cause that has none of its own (1011).
func (rs *roomServer) closeStream(ws *roomConn, roomCode string, cause error) {
	code, reason := closeOf(cause)
	if code == websocket.StatusInternalError {
		rs.s.log.Warn("room stream closed", "room", roomCode, "cause", cause)
	}
	ws.close(code, reason)
}

// participant is one connection's part in a live room: what its reader hands on, and to
// whom. The reader never waits for the store — a stalled store must not keep it from reading
// the pongs that keep the connection alive — nor does it parse or estimate a presenter's
// scenarios, and no message it reads starts work of its own: presenter keys are checked by
// their own loop (presenting; the newest key first); a presenter's changes wait, unparsed,
// the newest replacing older ones, for a loop that paces them before it parses and estimates
// them (proposing) and has the room's loop store them (storeChanges); a follower's answers
// wait likewise for theirs (answering); an end is sent to the store by one goroutine at a
// time, further ends while it is in flight being the same request.
type participant struct {
	rs     *roomServer
	lr     *liveRoom
	ctx    context.Context // the connection's: it ends the participant's loops
	client string          // whom its presenter's changes are charged to (clientOf)
	// own writes the connection's own replies. They and the room's frames take turns to
	// write (roomConn.writing), each within the write timeout.
	own func(reply) error
	// presenter is set by the presenting loop, which then closes promoted: a presenter is
	// sent the live tally of answers beside the room's broadcast (side), and promoted wakes
	// the follow loop to send it.
	presenter atomic.Bool
	promoted  chan struct{}
	keys      chan string  // presenter keys, for presenting
	proposals chan request // a presenter's changes, for proposing
	answers   chan request // a follower's answers, for answering
	// proposing and answering start their loops on the first message each is for; ending
	// is set while an end is in flight.
	proposing, answering sync.Once
	ending               atomic.Bool
}

// newParticipant returns the part in lr of the connection ws (whose context is ctx), opened
// by client. Its loops are started as its messages come (handle), but for presenting, which
// the stream starts.
func (rs *roomServer) newParticipant(ctx context.Context, lr *liveRoom, ws *roomConn, client string) *participant {
	return &participant{rs: rs, lr: lr, ctx: ctx, client: client, own: ws.writeJSON,
		promoted: make(chan struct{}), keys: make(chan string, 1),
		proposals: make(chan request, 1), answers: make(chan request, 1)}
}

// promote tells the follow loop that the connection has become the room's presenter (side).
// The presenting loop calls it once.
func (p *participant) promote() { close(p.promoted) }

// side is what broadcast.follow sends beside the room's frames: a presenter's live tally of
// answers, and for a follower nothing, until promoted.
func (p *participant) side() (*wire, <-chan struct{}) {
	if !p.presenter.Load() {
		return nil, p.promoted
	}
	return p.lr.board.view()
}

// handle is the reader's handler of one message b (roomConn.readLoop): it hands a presenter
// key, a presenter's change or end, or a follower's answer on to its loop, and answers with an
// error what the connection may not send as the presenter or follower it is. An error it
// returns — a message that is none of these, or a reply that could not be written — closes
// the connection with 1007 (readLoop).
func (p *participant) handle(b []byte) error {
	m, err := decodeOf(b, "params", "present", "end", "answer")
	if err != nil {
		return err
	}
	rs, lr, own := p.rs, p.lr, p.own
	switch m.Type {
	case "present":
		offerNewest(p.keys, m.Key)
	case "end":
		if !p.presenter.Load() {
			return own(reply{Type: "error", ID: m.ID, Error: "only the presenter can end the room"})
		}
		if p.ending.CompareAndSwap(false, true) {
			go func() {
				defer p.ending.Store(false)
				rs.endRoom(lr, own)
			}()
		}
	case "answer":
		if p.presenter.Load() {
			return own(reply{Type: "error", ID: m.ID, Param: "answer", Error: "the presenter does not answer: followers do"})
		}
		p.answering.Do(func() { go rs.answering(p.ctx, lr, p.answers, own) })
		offerNewest(p.answers, m)
	case "params":
		if !p.presenter.Load() {
			return own(reply{Type: "error", ID: m.ID, Error: errNotPresenter.Msg})
		}
		p.proposing.Do(func() { go rs.proposing(p.ctx, lr, p.client, p.proposals, own) })
		offerNewest(p.proposals, m)
	}
	return nil
}

// Why a room's stream ends, besides its participant leaving.
var (
	errRoomClosing = errors.New("room closing")        // the server drains
	errRoomEnded   = errors.New("the room has ended")  // the store no longer has it
	errRoomLeft    = errors.New("the room has no one") // its last participant here left
)

// StatusRoomEnded is the close code of a room's stream when the room has ended (expired, or
// lost by its store): the page asks for the room, is told it is gone, and says so.
const StatusRoomEnded websocket.StatusCode = 4004

// closeOf returns the close code and reason of a room stream ended by cause.
func closeOf(cause error) (websocket.StatusCode, string) {
	switch {
	case errors.Is(cause, errRoomClosing):
		return websocket.StatusGoingAway, "server restarting; reconnect"
	case errors.Is(cause, errRoomEnded):
		return StatusRoomEnded, "the room has ended"
	case errors.Is(cause, room.ErrUnavailable):
		return websocket.StatusTryAgainLater, "rooms are unavailable right now; reconnect shortly"
	}
	return websocket.StatusInternalError, "internal error"
}

// presenting checks the presenter keys a connection sends (the newest first), off its reader:
// a right key makes it the presenter, which is sent the live tally of answers from then on, a wrong one is answered with an error naming the key.
// A store that does not answer ends the stream with 1013 (the page reconnects and presents
// again); a store that has lost the room ends it.
func (rs *roomServer) presenting(ctx context.Context, lr *liveRoom, keys <-chan string, presenter *atomic.Bool, own func(reply) error, promote func(), stop context.CancelCauseFunc) {
	for {
		var key string
		select {
		case key = <-keys:
		case <-ctx.Done():
			return
		}
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		ok, err := rs.store.Present(sctx, lr.code, key)
		cancel()
		switch {
		case errors.Is(err, room.ErrNotFound):
			rs.end(lr, errRoomEnded)
			return
		case err != nil:
			if ctx.Err() == nil {
				rs.s.log.Warn("room present", "room", lr.code, "err", err)
				stop(err)
			}
			return
		case !ok:
			_ = own(reply{Type: "error", Error: "that is not this room's presenter key", Param: "key"})
			continue
		}
		if first := !presenter.Swap(true); first {
			rs.becamePresenter(lr)
			_ = own(rs.roomReply(lr, true))
			promote() // the live tally follows
			continue
		}
		_ = own(rs.roomReply(lr, true))
	}
}

// proposing checks a presenter's changes of lr, the newest first, at most Config.ParamRate a
// second (as a viewer's own changes are paced) before any is parsed or estimated: a change
// that is no scenario of the room's lab, names no step of its tours or is over the work
// budget (estimated as client's, see hub.Hub.Admit) is refused to the presenter, and the room
// does not move; the others go to the room's loop to be stored (storeChanges).
func (rs *roomServer) proposing(ctx context.Context, lr *liveRoom, client string, proposals <-chan request, own func(reply) error) {
	s := rs.s
	bucket := ratelimit.NewTokenBucket(s.cfg.ParamRate, s.cfg.ParamBurst)
	for {
		var m request
		select {
		case m = <-proposals:
		case <-ctx.Done():
			return
		}
		m, ok := paced(s, bucket, proposals, m, ctx.Done(), nil)
		if !ok {
			return
		}
		v, err := rs.propose(ctx, lr, client, m)
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			_, body := statusOf(err)
			if own(errorReply(m.ID, body)) != nil {
				return
			}
			continue
		}
		offerNewest(lr.changes, change{id: m.ID, reply: own,
			state: room.State{URL: lr.lab.URL(v), Step: m.Step, Revealed: m.Revealed, RevealOpen: m.RevealOpen}})
	}
}

// propose returns the scenario of a presenter's change m of lr, or why it is refused: not a
// scenario of the room's lab, no step of its tours, over the budget — or a panic of the lab's
// code, logged, and refused as an internal error, as a stream's request is.
func (rs *roomServer) propose(ctx context.Context, lr *liveRoom, client string, m request) (v param.Values, err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				panic(p)
			}
			rs.s.log.Error("panic in a presenter's change", "room", lr.code, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
			err = errors.New("panic")
		}
	}()
	if v, err = lr.lab.Parse(m.Query); err != nil {
		return v, err
	}
	if _, _, ok := lr.lab.FindStep(m.Step); m.Step != "" && !ok {
		return v, &param.Error{Param: "step", Msg: fmt.Sprintf("step %q is not a step of the %s lab's tours", m.Step, lr.lab.Name)}
	}
	return v, rs.s.cfg.Hub.Admit(ctx, client, lr.lab, v) // refused to the presenter, not to the room
}

// showRoom sets lr's room message for every participant here, as the room now stands. Its
// callers — the watch, the tally, the recheck — each show the room after changing it, on
// goroutines of their own: the message is read and set under lr.showing, so that the last one
// set is the last one read, never one read earlier and set late (a follower shown the room of
// three changes ago, and a presenter rejoining it taking that room for the newest).
func (rs *roomServer) showRoom(lr *liveRoom) {
	lr.showing.Lock()
	defer lr.showing.Unlock()
	lr.b.setRoom(rs.roomReply(lr, false))
}

// roomReply is the room message for lr, as the presenter or a follower sees it.
func (rs *roomServer) roomReply(lr *liveRoom, presenter bool) reply {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	m := reply{Type: "room", Room: &roomState{Code: lr.code, Lab: lr.lab.Name, URL: lr.room.URL, Step: lr.room.Step,
		Revealed: lr.room.Revealed, RevealOpen: lr.room.RevealOpen,
		Version: lr.room.Version, Followers: lr.total, Presenters: lr.room.Presenters, Presenter: presenter}}
	if lr.room.Revealed { // the class's answers beside the truth, for everyone
		m.Room.Answers = rs.answersOf(lr, true)
	}
	return m
}

// endRoom ends lr at its presenter's request: the store forgets it, and its watches — on
// every server — end the room's streams with StatusRoomEnded.
func (rs *roomServer) endRoom(lr *liveRoom, own func(reply) error) {
	ctx, cancel := context.WithTimeout(lr.ctx, storeTimeout)
	defer cancel()
	if err := rs.store.End(ctx, lr.code); err != nil && !errors.Is(err, room.ErrNotFound) && lr.ctx.Err() == nil {
		rs.s.log.Warn("room end", "room", lr.code, "err", err)
		_ = own(reply{Type: "error", Error: "the room's store is unavailable, and the room was not ended; try again shortly"})
	}
}

// roomState is the body of a room message.
type roomState struct {
	Code       string `json:"code"`
	Lab        string `json:"lab"`
	URL        string `json:"url"`
	Step       string `json:"step"`
	Revealed   bool   `json:"revealed"`
	RevealOpen bool   `json:"reveal_open"`
	Version    int64  `json:"version"`
	Followers  int    `json:"followers"`
	Presenters int    `json:"presenters"`
	Presenter  bool   `json:"presenter"`
	// Answers is the class's tally of the step, with its truth, once it is revealed.
	Answers *answersState `json:"answers,omitempty"`
}

// storeTimeout bounds the store's answer to a request (and to a participant joining or
// presenting): past it, the request is answered 503. A presenter's changes are not bounded —
// see storeChanges.
const storeTimeout = 5 * time.Second

// join adds a participant (a follower until it presents) to the room, starting the room's
// loops on this server if it is the first. The room returned may have ended already (its
// ctx done, with the cause): then the participant is sent away with the cause's close code.
func (rs *roomServer) join(rm room.Room) *liveRoom {
	rs.mu.Lock()
	lr, ok := rs.rooms[rm.Code]
	if ok {
		lr.members++
		lr.followers++
		rs.mu.Unlock()
		rs.recount(lr)
		return lr
	}
	l, v, err := Resolve(rs.s.cfg.Labs, rm.URL)
	ctx, cancel := context.WithCancelCause(context.Background())
	lr = &liveRoom{code: rm.Code, lab: l, b: newBroadcast(), ctx: ctx, cancel: cancel, members: 1, followers: 1, room: rm,
		changes: make(chan change, 1), counts: make(chan struct{}, 1), counted: make(chan struct{}),
		tallies: make(chan struct{}, 1), board: newAnswerBoard()}
	if err != nil { // a room's URL was checked when it was made: a store holding garbage
		rs.mu.Unlock()
		rs.s.log.Error("room join", "room", rm.Code, "url", rm.URL, "err", err)
		close(lr.counted)
		lr.cancel(errRoomEnded)
		return lr
	}
	rs.rooms[rm.Code] = lr
	rs.mu.Unlock()

	watch, err := rs.store.Watch(ctx, rm.Code)
	if err != nil {
		close(lr.counted)
		if errors.Is(err, room.ErrNotFound) {
			err = errRoomEnded
		}
		rs.end(lr, err)
		return lr
	}
	rs.showRoom(lr)
	lr.d = rs.s.newDriver(ctx, l, lr.b.publish)
	lr.d.client = rm.Owner // a room's runs are charged to the address that made it (hub's "Fair slots")
	lr.d.offer(request{Type: "params", ID: rm.Version, Query: v.Encode()})
	go lr.d.serve()
	go rs.watch(ctx, lr, watch)
	go rs.keep(ctx, lr)
	go rs.storeChanges(ctx, lr)
	go rs.countFollowers(ctx, lr)
	go rs.countAnswers(ctx, lr)
	rs.recount(lr)
	offerNewest(lr.tallies, struct{}{})
	return lr
}

// end ends a live room on this server with a cause: its participants are sent away with the
// cause's close code, and a new participant starts it afresh.
func (rs *roomServer) end(lr *liveRoom, cause error) {
	rs.mu.Lock()
	if rs.rooms[lr.code] == lr {
		delete(rs.rooms, lr.code)
	}
	rs.mu.Unlock()
	lr.cancel(cause)
}

// watch follows the room's changes in the store: every change refreshes the room message
// (follower counts, too), and a new URL or step is then a new request for the driver. A store
// that closes the changes (the memory store, when the room expires) has ended the room.
func (rs *roomServer) watch(ctx context.Context, lr *liveRoom, changes <-chan room.Room) {
	for {
		var rm room.Room
		select {
		case <-ctx.Done():
			return
		case r, ok := <-changes:
			if !ok {
				if ctx.Err() == nil {
					rs.end(lr, errRoomEnded)
				}
				return
			}
			rm = r
		}
		rs.mu.Lock()
		newer := rm.Version > lr.room.Version
		// An answer's announcement (the room unchanged but for its answers) goes to the tally
		// alone (countAnswers), not to every participant: a class answering at once would
		// otherwise send each of them a room message per answer.
		answered := rm.Version == lr.room.Version && rm.Answers > lr.room.Answers && rm.Presenters == lr.room.Presenters
		if rm.Version >= lr.room.Version {
			if rm.Revealed && (!lr.room.Revealed || rm.Step != lr.room.Step) {
				lr.revealed = rm.Version
			}
			lr.room = rm
		}
		rs.mu.Unlock()
		if newer || answered {
			offerNewest(lr.tallies, struct{}{})
		}
		if answered {
			continue
		}
		if newer {
			// The room message first, then the run it announces: once the broadcast has the
			// message of version N, it sends it ahead of any run it has not sent yet, so no
			// participant is shown version N's run before it is told the room is at version N.
			// A new scenario goes out at once, with the follower count last read: asking the
			// store for it first would put a round trip before every follower's first frame.
			rs.showRoom(lr)
			// Like a drag's steps, a room's changes let the run in flight show its picture
			// first (see driver.run): the presenter's moves come through the store without
			// the page's gesture, and an audience is to see a picture of every change the
			// server has time for.
			if l, v, err := Resolve(rs.s.cfg.Labs, rm.URL); err == nil && l == lr.lab {
				lr.d.offer(request{Type: "params", ID: rm.Version, Query: v.Encode(), Drag: true})
			}
		}
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		n, err := rs.store.Followers(sctx, lr.code)
		cancel()
		rs.mu.Lock()
		counted := err == nil && rm.Version >= lr.room.Version && n != lr.total
		if counted {
			lr.total = n
		}
		rs.mu.Unlock()
		if counted || !newer {
			rs.showRoom(lr)
		}
		if counted {
			rs.showAnswers(lr) // answered of present
		}
	}
}

// keep keeps the room alive in the store while it has participants here, and checks every
// Config.RoomCheck that the store still has it: a Redis restarted empty has lost every room,
// and its participants must be told the room has ended rather than wait in it for good. A
// store that does not answer for a while is not taken for one that lost the room.
func (rs *roomServer) keep(ctx context.Context, lr *liveRoom) {
	t := time.NewTicker(rs.s.cfg.RoomCheck)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		err := rs.store.Touch(sctx, lr.code, rs.replica)
		if errors.Is(err, room.ErrNotFound) {
			cancel()
			rs.end(lr, errRoomEnded)
			return
		}
		if err == nil {
			rs.recheck(sctx, lr)
		}
		cancel()
	}
}

// recheck reads lr's presenters and followers from the store, and tells this server's
// participants if they changed without a word from the store: the counts of a server that
// stopped without clearing them lapse (room.CountLease) and nobody announces it.
func (rs *roomServer) recheck(ctx context.Context, lr *liveRoom) {
	rm, err := rs.store.Get(ctx, lr.code)
	if err != nil {
		return
	}
	n, err := rs.store.Followers(ctx, lr.code)
	if err != nil {
		return
	}
	rs.mu.Lock()
	changed := rm.Version == lr.room.Version && (rm.Presenters != lr.room.Presenters || n != lr.total)
	if changed {
		lr.room.Presenters, lr.total = rm.Presenters, n
	}
	rs.mu.Unlock()
	if changed {
		rs.showRoom(lr)
		rs.showAnswers(lr) // answered of present
	}
}

// storeChanges stores the presenters' changes of lr one at a time, at most Config.ParamRate a
// second (as a viewer's own changes are paced), the newest first: changes sent meanwhile
// replace each other, so a presenter flooding changes moves the room — and its followers —
// only as often as the rate allows.
//
// What the presenter is told is what happened. A change is stored without a deadline: a
// store that stalls (Redis paused for 20 s) delays it, and it is reported — or not, having
// succeeded — once the store has answered; one given up on after a timeout could still be
// applied when the store resumes, after the presenter was told it failed. A change the store
// refuses, or cannot be sent to it (Redis down), is reported failed: it was not made. A room
// the store no longer has has ended.
func (rs *roomServer) storeChanges(ctx context.Context, lr *liveRoom) {
	bucket := ratelimit.NewTokenBucket(rs.s.cfg.ParamRate, rs.s.cfg.ParamBurst)
	for {
		var c change
		select {
		case c = <-lr.changes:
		case <-ctx.Done():
			return
		}
		c, ok := paced(rs.s, bucket, lr.changes, c, ctx.Done(), nil)
		if !ok {
			return
		}
		_, err := rs.store.Update(ctx, lr.code, c.state)
		switch {
		case err == nil, ctx.Err() != nil:
		case errors.Is(err, room.ErrNotFound):
			rs.end(lr, errRoomEnded)
			return
		default:
			rs.s.log.Warn("room update", "room", lr.code, "err", err)
			_ = c.reply(reply{Type: "error", ID: c.id, Error: "the room's store is unavailable, and this change was not made; try again shortly"})
		}
	}
}

// becamePresenter takes a follower off the room's follower count, onto its presenters'.
func (rs *roomServer) becamePresenter(lr *liveRoom) {
	rs.mu.Lock()
	lr.followers--
	lr.presenters++
	rs.mu.Unlock()
	rs.recount(lr)
}

// leave removes a participant, and the room's loops with the last, recording that this
// server has no more followers in the room.
func (rs *roomServer) leave(lr *liveRoom, presenter bool) {
	rs.mu.Lock()
	lr.members--
	if !presenter {
		lr.followers--
	} else {
		lr.presenters--
	}
	last := lr.members == 0
	if last && rs.rooms[lr.code] == lr {
		delete(rs.rooms, lr.code)
	}
	rs.mu.Unlock()
	if !last {
		rs.recount(lr)
		return
	}
	lr.cancel(errRoomLeft)
	<-lr.counted // no older count can overwrite the last
	if lr.ctx.Err() != nil && !errors.Is(context.Cause(lr.ctx), errRoomLeft) {
		return // the room has ended: nothing to record
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	if err := rs.store.SetFollowers(ctx, lr.code, rs.replica, 0); err != nil && !errors.Is(err, room.ErrNotFound) {
		rs.s.log.Warn("room followers", "room", lr.code, "err", err)
	}
	if err := rs.store.SetPresenters(ctx, lr.code, rs.replica, 0); err != nil && !errors.Is(err, room.ErrNotFound) {
		rs.s.log.Warn("room presenters", "room", lr.code, "err", err)
	}
}

// recount asks for this server's followers of lr to be recorded.
func (rs *roomServer) recount(lr *liveRoom) { offerNewest(lr.counts, struct{}{}) }

// countFollowers records this server's followers of lr in the store, which tells every
// server's watchers, each time they change (the newest count first), off the participants'
// goroutines.
func (rs *roomServer) countFollowers(ctx context.Context, lr *liveRoom) {
	defer close(lr.counted)
	stored := 0 // presenters last recorded
	for {
		select {
		case <-lr.counts:
		case <-ctx.Done():
			return
		}
		rs.mu.Lock()
		n, p := lr.followers, lr.presenters
		rs.mu.Unlock()
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		err := rs.store.SetFollowers(sctx, lr.code, rs.replica, n)
		if err == nil && p != stored {
			if err = rs.store.SetPresenters(sctx, lr.code, rs.replica, p); err == nil {
				stored = p
			}
		}
		cancel()
		if err != nil && ctx.Err() == nil && !errors.Is(err, room.ErrNotFound) {
			rs.s.log.Warn("room followers", "room", lr.code, "err", err)
		}
	}
}

// qr serves /join/{code}/qr.svg: the absolute join link as a QR code for the projector.
func (rs *roomServer) qr(w http.ResponseWriter, r *http.Request) {
	rm, err := rs.lookup(r)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	link, err := joinLink(r, rm.Code)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	svg, err := qrSVG(link)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(svg)
}

// joinLink returns the absolute join link of a room for its QR code, on the host the request
// names, written afresh from its name and port: a Host with an empty port ("127.0.0.1:") is
// encoded without the colon, as a browser writes it. The Host header has passed checkHost (an
// allowed name, or an address), but its port has not: a port that is not one, or a name longer
// than DNS allows, is refused (400) rather than encoded — the QR code is what a class will scan.
func joinLink(r *http.Request, code string) (string, error) {
	host, port := r.Host, ""
	if h, p, err := net.SplitHostPort(r.Host); err == nil {
		host, port = h, p
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	if n, err := strconv.ParseUint(port, 10, 16); port != "" && (err != nil || n == 0) {
		return "", &param.Error{Param: "Host", Msg: fmt.Sprintf("the Host header's port %q is not a port number (1 to 65535)", clip(port))}
	}
	if len(host) > 253 {
		return "", &param.Error{Param: "Host", Msg: fmt.Sprintf("the Host header's name is %d bytes long; names are at most 253", len(host))}
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]" // an IPv6 address
	}
	if port != "" {
		host += ":" + port
	}
	return (&url.URL{Scheme: scheme, Host: host, Path: "/join/" + code}).String(), nil
}

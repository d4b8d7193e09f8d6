package api

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
	"github.com/resilience-playground/playground/room"
)

// A room's class answers the predictions of its tour (issue 31): a follower sends its answer
// to the step on show ({"type": "answer", "step", "answer", "who"}: who is an anonymous id the
// page keeps, so that a reload or a reconnection replaces the follower's answer and never adds
// one); a message without "answer" asks for the follower's own. The store counts them, once
// per follower and step whichever server takes them, until the presenter reveals the step. The
// presenter's connections are sent the live tally ({"type": "answers"}: answered of present,
// and the count of each answer) — never the truth; followers see nobody's answers but their
// own until Reveal, when the room message carries the tally and the truth for everyone. The
// presenter may download the tally of every step as CSV (answersCSV).

// Rate of one connection's answers: a follower changing its mind is sent to the store at most
// this often (the newest answer first).
const (
	answerRate  = 4 // a second
	answerBurst = 8
)

// answersState is the tally of a room's step: the body of an answers message, and of a room
// message's answers once the step is revealed (then with its truth).
type answersState struct {
	Step     string         `json:"step"`
	Answered int            `json:"answered"` // followers who answered
	Present  int            `json:"present"`  // followers in the room, over every server
	Counts   map[string]int `json:"counts"`   // followers by answer (an option's ID, or a number)
	Truth    string         `json:"truth,omitempty"`
}

// tally is a live room's answers to its step, as last read from the store.
type tally struct {
	step    string
	counts  map[string]int
	read    bool
	version int64 // the room's version when the store was read: it holds every answer before it
}

// answerOf returns the answer space of lr's step, nil for a step that asks nothing.
func answerOf(l *lab.Lab, step string) *lab.Answer {
	t, n, ok := l.FindStep(step)
	if !ok {
		return nil
	}
	return t.Steps[n-1].Answer
}

// answersOf returns lr's tally of its step for a message, with the truth if truth is set, or
// nil if the step asks nothing or its tally is not read yet; rs.mu is held. The tally shown
// beside the truth is one read since the step was revealed — answers close with the reveal,
// so it is the final one — never one read before, which may lack the last answers: the class
// is not shown a spread that then changes (countAnswers reads it on the reveal and shows it).
func (rs *roomServer) answersOf(lr *liveRoom, truth bool) *answersState {
	a := answerOf(lr.lab, lr.room.Step)
	if a == nil || !lr.tally.read || lr.tally.step != lr.room.Step || truth && lr.tally.version < lr.revealed {
		return nil
	}
	st := &answersState{Step: lr.room.Step, Present: lr.total, Counts: lr.tally.counts}
	for _, n := range lr.tally.counts {
		st.Answered += n
	}
	if truth {
		st.Truth = a.Truth
	}
	return st
}

// showAnswers sets the presenters' tally of lr.
func (rs *roomServer) showAnswers(lr *liveRoom) {
	rs.mu.Lock()
	m := reply{Type: "answers", Answers: rs.answersOf(lr, false)}
	if m.Answers == nil {
		m.Answers = &answersState{Step: lr.room.Step, Present: lr.total} // a step that asks nothing, or not yet read
	}
	rs.mu.Unlock()
	lr.board.set(m)
}

// countAnswers reads lr's tally of its step from the store each time it may have changed
// (lr.tallies: an answer, a new step, a reveal), the newest first, and shows it: to the
// presenters always, to everyone once the step is revealed. It reads the follower count too,
// since an answer's announcement may stand for a change of it as well (a watcher is sent the
// newest change only).
func (rs *roomServer) countAnswers(ctx context.Context, lr *liveRoom) {
	for {
		select {
		case <-lr.tallies:
		case <-ctx.Done():
			return
		}
		rs.mu.Lock()
		step, revealed, version := lr.room.Step, lr.room.Revealed, lr.room.Version
		rs.mu.Unlock()
		var counts []room.Count
		sctx, cancel := context.WithTimeout(ctx, storeTimeout)
		var err error
		if answerOf(lr.lab, step) != nil {
			counts, err = rs.store.Answers(sctx, lr.code, step)
		}
		n, ferr := rs.store.Followers(sctx, lr.code)
		cancel()
		if err != nil {
			if ctx.Err() == nil {
				rs.s.log.Warn("room answers", "room", lr.code, "err", err)
			}
			continue
		}
		t := tally{step: step, counts: map[string]int{}, read: true, version: version}
		for _, c := range counts {
			t.counts[c.Value] = c.N
		}
		rs.mu.Lock()
		lr.tally = t
		recount := ferr == nil && lr.room.Version == version && n != lr.total
		if recount {
			lr.total = n
		}
		rs.mu.Unlock()
		rs.showAnswers(lr)
		if revealed || recount {
			rs.showRoom(lr)
		}
	}
}

// answering sends a follower connection's answers to the store, the newest first, at most
// answerRate a second, and tells the follower its answer as stored. A connection answers for
// one follower: the first id it sends.
func (rs *roomServer) answering(ctx context.Context, lr *liveRoom, answers <-chan request, own func(reply) error) {
	bucket := ratelimit.NewTokenBucket(answerRate, answerBurst)
	who := ""
	for {
		var m request
		select {
		case m = <-answers:
		case <-ctx.Done():
			return
		}
		m, ok := paced(rs.s, bucket, answers, m, ctx.Done(), nil)
		if !ok {
			return
		}
		v, err := rs.answer(ctx, lr, &who, m)
		switch {
		case errors.Is(err, room.ErrNotFound):
			rs.end(lr, errRoomEnded)
			return
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			_, body := statusOf(err)
			if own(errorReply(m.ID, body)) != nil {
				return
			}
		default:
			if own(reply{Type: "answer", ID: m.ID, Step: m.Step, Answer: v}) != nil {
				return
			}
		}
	}
}

// answer stores a follower's answer m (none: asks for it) and returns the follower's answer as
// stored. who is the follower the connection answers for, "" until its first answer.
func (rs *roomServer) answer(ctx context.Context, lr *liveRoom, who *string, m request) (string, error) {
	if !validWho(m.Who) {
		return "", &param.Error{Param: "who", Msg: "who must be the page's anonymous id: 16 to 64 letters, digits, '-' or '_'"}
	}
	if *who == "" {
		*who = m.Who
	} else if *who != m.Who {
		return "", &param.Error{Param: "who", Msg: "a connection answers for one follower only"}
	}
	a := answerOf(lr.lab, m.Step)
	if a == nil {
		return "", &param.Error{Param: "step", Msg: fmt.Sprintf("step %q asks no question of the %s lab's tours", m.Step, lr.lab.Name)}
	}
	sctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	if m.Answer != "" {
		v, ok := a.Value(m.Answer)
		if !ok {
			return "", &param.Error{Param: "answer", Msg: describeAnswer(a, m.Answer)}
		}
		if err := rs.store.Answer(sctx, lr.code, m.Step, m.Who, v); err != nil {
			return "", err
		}
	}
	return rs.store.Mine(sctx, lr.code, m.Step, m.Who)
}

// describeAnswer says what answers a allows, for the error of a follower's answer got.
func describeAnswer(a *lab.Answer, got string) string {
	if len(a.Options) > 0 {
		ids := make([]string, len(a.Options))
		for i, o := range a.Options {
			ids[i] = strconv.Quote(o.ID)
		}
		return fmt.Sprintf("answer must be one of %s, got %q", strings.Join(ids, ", "), clip(got))
	}
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return fmt.Sprintf("answer must be a number from %s to %s (%s), got %q", f(a.Min), f(a.Max), a.Unit, clip(got))
}

// validWho reports whether id can be a page's anonymous id.
func validWho(id string) bool {
	if len(id) < 16 || len(id) > 64 {
		return false
	}
	return strings.Trim(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_") == ""
}

// answerBoard holds the newest tally message for a room's presenters on this server, replaced
// whole: a presenter that reads slowly is sent the newest, never a queue.
type answerBoard struct {
	mu      sync.Mutex
	msg     *wire
	changed chan struct{}
}

func newAnswerBoard() *answerBoard { return &answerBoard{changed: make(chan struct{})} }

// set replaces the board's message and wakes its followers.
func (b *answerBoard) set(m reply) {
	enc, _ := json.Marshal(m)
	w := newWire(enc)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msg = w
	close(b.changed)
	b.changed = make(chan struct{})
}

// view returns the board's message (nil before the first) and a channel closed when it
// changes: a presenter's side of the room's broadcast (see broadcast.follow).
func (b *answerBoard) view() (*wire, <-chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msg, b.changed
}

// forbiddenError refuses a request that needs the presenter's key: 403.
type forbiddenError struct{ msg string }

func (e forbiddenError) Error() string { return e.msg }

// answersCSV serves GET /api/v1/rooms/{code}/answers.csv to the room's presenter (the key as
// "Authorization: Bearer KEY"): the tally of every step the class answered, one line per step
// and answer ("step,answer,count"), and nothing of who answered.
func (rs *roomServer) answersCSV(w http.ResponseWriter, r *http.Request) {
	rm, err := rs.lookup(r)
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), storeTimeout)
	defer cancel()
	key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if ok {
		ok, err = rs.store.Present(ctx, rm.Code, key)
	}
	if err == nil && !ok {
		err = forbiddenError{"the answers are the presenter's: send the presenter key as \"Authorization: Bearer KEY\""}
	}
	var counts []room.Count
	if err == nil {
		counts, err = rs.store.Answers(ctx, rm.Code, "")
	}
	if err != nil {
		rs.s.writeError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=\"room-%s-answers.csv\"", rm.Code))
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"step", "answer", "count"})
	for _, c := range counts {
		_ = cw.Write([]string{c.Step, c.Value, strconv.Itoa(c.N)})
	}
	cw.Flush()
}

package api_test

import (
	"context"
	"io"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/coder/websocket"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// Anonymous ids of followers, as a page keeps them.
const (
	who0 = "follower-0-aaaaaaaaaaaa"
	who1 = "follower-1-bbbbbbbbbbbb"
	who2 = "follower-2-cccccccccccc"
)

// MustPresent joins a room as its presenter.
func (s *Server) MustPresent(tb testing.TB, c Created) *RoomStream {
	tb.Helper()
	p := s.MustJoin(tb, c.Code)
	p.Send(map[string]any{"type": "present", "key": strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")})
	p.Until("the presenter's room", func(r RoomReply) bool { return r.Type == "room" && r.Room.Presenter })
	return p
}

// MustAnswer sends a follower's answer to step and returns the answer the server stored.
func (rs *RoomStream) MustAnswer(who, step, answer string) string {
	rs.tb.Helper()
	rs.Send(map[string]any{"type": "answer", "step": step, "answer": answer, "who": who})
	r := rs.Until("the answer's reply", func(r RoomReply) bool { return r.Type == "answer" || r.Type == "error" })
	if r.Type == "error" {
		rs.tb.Fatalf("answer %q to %s: %s", answer, step, r.Error)
	}
	return r.Answer
}

// AnswerError sends an answer and returns the error it is refused with.
func (rs *RoomStream) AnswerError(m map[string]any) RoomReply {
	rs.tb.Helper()
	m["type"] = "answer"
	rs.Send(m)
	return rs.Until("the answer's reply", func(r RoomReply) bool { return r.Type == "answer" || r.Type == "error" })
}

// blind reports whether a follower's reply shows it anyone's answers: a tally, or a room
// message with one before the reveal.
func blind(r RoomReply) bool {
	return r.Type != "answers" && (r.Type != "room" || r.Room.Answers == nil || r.Room.Revealed)
}

// MustCSV downloads a room's answers as its presenter, with key.
func (s *Server) MustCSV(tb testing.TB, code, key string) (int, string) {
	tb.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, s.URL+"/api/v1/rooms/"+code+"/answers.csv", nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := s.Client().Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestRoomAnswers: followers answer the step on show, one answer each however often they
// change it or reconnect; the presenter sees the tally live without the truth, followers see
// nobody's answers until the presenter reveals, and then everyone sees the tally beside the
// truth; answers end at the reveal; the presenter downloads the tally as CSV.
func TestRoomAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		c := srv.MustCreateRoom(t, "/free?n=2&steps=2")
		key := strings.TrimPrefix(c.PresenterURL, c.JoinURL+"#key=")
		presenter := srv.MustPresent(t, c)
		followers := []*RoomStream{srv.MustJoin(t, c.Code), srv.MustJoin(t, c.Code), srv.MustJoin(t, c.Code)}

		// Before the step asks, an answer is refused.
		if r := followers[0].AnswerError(map[string]any{"step": "intro/3", "answer": "three", "who": who0}); r.Type != "error" || r.Param != "step" {
			t.Errorf("an answer to a step not on show: %+v", r)
		}
		ask(presenter)
		for i, f := range followers {
			f.Until("the question", func(r RoomReply) bool {
				if !blind(r) {
					t.Errorf("follower %d sees answers before the reveal: %+v", i, r)
				}
				return r.Type == "room" && r.Room.Step == "intro/3"
			})
		}
		if v := followers[0].MustAnswer(who0, "intro/3", "three"); v != "three" {
			t.Errorf("stored answer %q", v)
		}
		followers[1].MustAnswer(who1, "intro/3", "two")
		followers[2].MustAnswer(who2, "intro/3", "four")
		if v := followers[2].MustAnswer(who2, "intro/3", "three"); v != "three" { // a change of mind
			t.Errorf("changed answer stored as %q", v)
		}
		want := map[string]int{"three": 2, "two": 1}
		a := presenter.Until("the tally", func(r RoomReply) bool {
			return r.Type == "answers" && r.Answers.Step == "intro/3" && maps.Equal(r.Answers.Counts, want)
		}).Answers
		if a.Answered != 3 || a.Present != 3 || a.Truth != "" {
			t.Errorf("presenter's tally %+v, want 3 answered of 3 present, no truth", a)
		}

		// A reconnected follower (the same anonymous id) replaces its answer, never adds one.
		followers[0].C.Close(websocket.StatusNormalClosure, "")
		back := srv.MustJoin(t, c.Code)
		back.Send(map[string]any{"type": "answer", "step": "intro/3", "who": who0})
		if r := back.Until("its answer", func(r RoomReply) bool { return r.Type == "answer" }); r.Answer != "three" {
			t.Errorf("a reconnected follower's answer: %q, want three", r.Answer)
		}
		back.MustAnswer(who0, "intro/3", "two")
		want = map[string]int{"three": 1, "two": 2}
		a = presenter.Until("the tally", func(r RoomReply) bool {
			return r.Type == "answers" && maps.Equal(r.Answers.Counts, want)
		}).Answers
		if a.Answered != 3 {
			t.Errorf("after a reconnection: %+v, want 3 answered", a)
		}
		followers[0] = back

		// Refusals: answers off the question, ids that are none, a second id on one
		// connection, the presenter answering, a follower revealing.
		for _, tc := range []struct {
			m     map[string]any
			param string
		}{
			{map[string]any{"step": "intro/3", "answer": "five", "who": who1}, "answer"},
			{map[string]any{"step": "intro/3", "answer": "two", "who": "short"}, "who"},
			{map[string]any{"step": "intro/3", "answer": "two", "who": who2}, "who"},
			{map[string]any{"step": "intro/1", "answer": "two", "who": who1}, "step"},
		} {
			if r := followers[1].AnswerError(tc.m); r.Type != "error" || r.Param != tc.param {
				t.Errorf("answer %v: %+v, want an error naming %s", tc.m, r, tc.param)
			}
		}
		if r := presenter.AnswerError(map[string]any{"step": "intro/3", "answer": "two", "who": who1}); r.Type != "error" || r.Param != "answer" {
			t.Errorf("the presenter answering: %+v", r)
		}
		followers[1].Send(map[string]any{"type": "params", "id": 5, "query": "n=3", "step": "intro/3", "revealed": true})
		if r := followers[1].Until("an error", func(r RoomReply) bool { return r.Type == "error" }); !strings.Contains(r.Error, "only the presenter") {
			t.Errorf("a follower revealing: %+v", r)
		}

		// Reveal: the tally and the truth, for everyone.
		presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=3", "step": "intro/3", "revealed": true})
		for i, f := range followers {
			r := f.Until("the reveal with the tally", func(r RoomReply) bool {
				if !blind(r) {
					t.Errorf("follower %d: %+v", i, r)
				}
				return r.Type == "room" && r.Room.Revealed && r.Room.Answers != nil
			})
			if a := r.Room.Answers; a.Truth != "three" || !maps.Equal(a.Counts, want) || a.Answered != 3 {
				t.Errorf("follower %d: revealed tally %+v, want %v and the truth, three", i, a, want)
			}
		}
		if r := followers[1].AnswerError(map[string]any{"step": "intro/3", "answer": "three", "who": who1}); r.Type != "error" || !strings.Contains(r.Error, "revealed") {
			t.Errorf("an answer after the reveal: %+v", r)
		}

		// The next step asks its own question: a number on its scale.
		presenter.Send(map[string]any{"type": "params", "id": 3, "query": "n=7", "step": "intro/4"})
		followers[1].Until("the next question", func(r RoomReply) bool { return r.Type == "room" && r.Room.Step == "intro/4" })
		if v := followers[1].MustAnswer(who1, "intro/4", "6.6"); v != "7" {
			t.Errorf("a number is stored on its scale's grid: %q, want 7", v)
		}

		// The presenter's CSV; nobody else's.
		for _, k := range []string{"", "not-the-key"} {
			if code, body := srv.MustCSV(t, c.Code, k); code != http.StatusForbidden {
				t.Errorf("CSV with key %q: %d %s, want 403", k, code, body)
			}
		}
		code, body := srv.MustCSV(t, c.Code, key)
		if wantCSV := "step,answer,count\nintro/3,three,1\nintro/3,two,2\nintro/4,7,1\n"; code != http.StatusOK || body != wantCSV {
			t.Errorf("CSV: %d %q, want %q", code, body, wantCSV)
		}
	})
}

// TestRoomAnswersAcrossReplicas: followers on two servers sharing a real Redis answer; each
// answer counts once, and the presenter on one server sees them all.
func TestRoomAnswersAcrossReplicas(t *testing.T) {
	url := roomtest.MustStartRedis(t)
	open := func(replica string) *Server {
		store, err := room.NewRedis(context.Background(), url, room.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		return MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms, c.Replica = store, replica }))
	}
	a, b := open("a"), open("b")
	c := a.MustCreateRoom(t, "/free?n=3")
	presenter := a.MustPresent(t, c)
	ask(presenter)
	fa, fb := a.MustJoin(t, c.Code), b.MustJoin(t, c.Code)
	for _, f := range []*RoomStream{fa, fb} {
		f.untilQuestion()
	}
	fa.MustAnswer(who0, "intro/3", "three")
	fb.MustAnswer(who1, "intro/3", "two")
	// The same follower, reconnected to the other server, changes its answer.
	fb2 := b.MustJoin(t, c.Code)
	fb2.MustAnswer(who0, "intro/3", "two")
	want := map[string]int{"two": 2}
	r := presenter.Until("the tally of both servers", func(r RoomReply) bool {
		return r.Type == "answers" && maps.Equal(r.Answers.Counts, want) && r.Answers.Present == 3
	})
	if r.Answers.Answered != 2 {
		t.Errorf("tally %+v, want 2 answered", r.Answers)
	}
	presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=3", "step": "intro/3", "revealed": true})
	for i, f := range []*RoomStream{fa, fb, fb2} {
		r := f.Until("the reveal with the tally", func(r RoomReply) bool { return r.Type == "room" && r.Room.Revealed && r.Room.Answers != nil })
		if !maps.Equal(r.Room.Answers.Counts, want) || r.Room.Answers.Truth != "three" {
			t.Errorf("follower %d: %+v", i, r.Room.Answers)
		}
	}
}

// heldAnswers is a room store whose reads of a tally wait, while held, until released.
type heldAnswers struct {
	room.Store
	mu   sync.Mutex
	gate chan struct{} // nil: reads go through
}

func (h *heldAnswers) hold() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.gate = make(chan struct{})
}

func (h *heldAnswers) release() {
	h.mu.Lock()
	defer h.mu.Unlock()
	close(h.gate)
	h.gate = nil
}

func (h *heldAnswers) Answers(ctx context.Context, code, step string) ([]room.Count, error) {
	h.mu.Lock()
	g := h.gate
	h.mu.Unlock()
	if g != nil {
		select {
		case <-g:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return h.Store.Answers(ctx, code, step)
}

// TestRevealShowsTheFinalTally: the tally shown beside the truth is the class's final one,
// never one read before the last answers (which a follower on another server, whose server had
// not read the last answer yet, was shown with the reveal, then the right one: issue 32's
// flaky TestRoomAnswersAcrossReplicas). The store's tally reads are held from the second answer
// on: the reveal goes out without a tally, and the tally read after it follows.
func TestRevealShowsTheFinalTally(t *testing.T) {
	st := &heldAnswers{Store: room.NewMemory(room.Limits{})}
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms = st }))
	c := srv.MustCreateRoom(t, "/free?n=3")
	presenter := srv.MustPresent(t, c)
	ask(presenter)
	f0, f1 := srv.MustJoin(t, c.Code), srv.MustJoin(t, c.Code)
	for _, f := range []*RoomStream{f0, f1} {
		f.untilQuestion()
	}
	f0.MustAnswer(who0, "intro/3", "three")
	presenter.Until("the first answer's tally", func(r RoomReply) bool {
		return r.Type == "answers" && maps.Equal(r.Answers.Counts, map[string]int{"three": 1})
	})
	st.hold()
	f1.MustAnswer(who1, "intro/3", "two")
	presenter.Send(map[string]any{"type": "params", "id": 2, "query": "n=3", "step": "intro/3", "revealed": true})
	r := f0.Until("the reveal", func(r RoomReply) bool { return r.Type == "room" && r.Room.Revealed })
	if r.Room.Answers != nil {
		t.Errorf("the reveal came with a tally read before the last answer: %+v", r.Room.Answers)
	}
	st.release()
	r = f0.Until("the tally beside the truth", func(r RoomReply) bool { return r.Type == "room" && r.Room.Revealed && r.Room.Answers != nil })
	if want := map[string]int{"three": 1, "two": 1}; !maps.Equal(r.Room.Answers.Counts, want) || r.Room.Answers.Truth != "three" {
		t.Errorf("revealed tally %+v, want %v and the truth, three", r.Room.Answers, want)
	}
}

// TestTallyFollowsTheCount: the presenter's tally (answered of present) follows the follower
// count however the server learns of it — the store's announcement, or the periodic recheck
// that catches counts nobody announced (a lapsed server's). The recheck told the room message
// and left the tally at the count before: TestRoomAnswersAcrossReplicas waited for "present 3"
// for good when the recheck read the third follower before the announcement did. Here the
// store announces no change of the count alone, so only the recheck can see it.
func TestTallyFollowsTheCount(t *testing.T) {
	st := quietCounts{room.NewMemory(room.Limits{})}
	srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.Rooms, c.RoomCheck = st, 20*time.Millisecond }))
	c := srv.MustCreateRoom(t, "/free?n=3")
	presenter := srv.MustPresent(t, c)
	ask(presenter)
	f0 := srv.MustJoin(t, c.Code)
	f0.untilQuestion()
	f0.MustAnswer(who0, "intro/3", "three")
	presenter.Until("one answered of one", func(r RoomReply) bool {
		return r.Type == "answers" && r.Answers.Answered == 1 && r.Answers.Present == 1
	})
	f1 := srv.MustJoin(t, c.Code)
	f1.untilQuestion()
	presenter.Until("the recheck's count", func(r RoomReply) bool { return r.Type == "room" && r.Room.Followers == 2 })
	presenter.Until("one answered of two", func(r RoomReply) bool {
		return r.Type == "answers" && r.Answers.Answered == 1 && r.Answers.Present == 2
	})
}

// quietCounts is a room store that announces no change of a room's follower count alone.
type quietCounts struct{ room.Store }

func (q quietCounts) Watch(ctx context.Context, code string) (<-chan room.Room, error) {
	in, err := q.Store.Watch(ctx, code)
	if err != nil {
		return nil, err
	}
	out := make(chan room.Room)
	go func() {
		defer close(out)
		var last *room.Room
		for r := range in {
			if last != nil && r.Version == last.Version && r.Answers == last.Answers && r.Presenters == last.Presenters && r.Revealed == last.Revealed {
				continue
			}
			last = &r
			select {
			case out <- r:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// ask moves the presenter's room to the free lab's question (step intro/3, at n=3).
func ask(presenter *RoomStream) {
	presenter.Send(map[string]any{"type": "params", "id": 1, "query": "n=3", "step": "intro/3"})
}

// untilQuestion reads until the room shows the question ask moves it to.
func (rs *RoomStream) untilQuestion() RoomReply {
	rs.tb.Helper()
	return rs.Until("the question", func(r RoomReply) bool { return r.Type == "room" && r.Room.Step == "intro/3" })
}

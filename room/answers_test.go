package room_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/room"
)

// TestAnswers is the contract of a store's answers: one per follower and step, a change
// replacing it, taken only for the step on show until its Reveal, announced to watchers,
// tallied by step and value, and forgotten with the room.
func TestAnswers(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := open(t)
			const code = "ANS234"
			if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), ""); err != nil {
				t.Fatal(err)
			}
			if err := s.Answer(ctx, code, "jitter/3", "f1", "full"); !errors.Is(err, room.ErrClosed) {
				t.Errorf("an answer to a step not on show = %v, want ErrClosed", err)
			}
			if _, err := s.Update(ctx, code, room.State{URL: "/backoff", Step: "jitter/3"}); err != nil {
				t.Fatal(err)
			}
			watch, err := s.Watch(ctx, code)
			if err != nil {
				t.Fatal(err)
			}
			answer := func(f, v string) {
				t.Helper()
				if err := s.Answer(ctx, code, "jitter/3", f, v); err != nil {
					t.Fatalf("Answer(%s, %s) = %v", f, v, err)
				}
			}
			answer("f1", "full")
			select { // an answer is announced, the room's answers grown
			case r := <-watch:
				if r.Answers < 1 || r.Version != 1 {
					t.Errorf("watcher got %+v after an answer, want answers ≥ 1 at version 1", r)
				}
			case <-ctx.Done():
				t.Fatal("no announcement of an answer")
			}
			answer("f2", "full")
			answer("f3", "equal")
			answer("f1", "equal") // a change of mind replaces
			answer("f1", "equal") // and the same answer again adds nothing
			want := []room.Count{{Step: "jitter/3", Value: "equal", N: 2}, {Step: "jitter/3", Value: "full", N: 1}}
			if got, err := s.Answers(ctx, code, "jitter/3"); err != nil || !slices.Equal(got, want) {
				t.Errorf("Answers = %v, %v; want %v", got, err, want)
			}
			if v, err := s.Mine(ctx, code, "jitter/3", "f1"); err != nil || v != "equal" {
				t.Errorf("Mine(f1) = %q, %v; want equal", v, err)
			}
			if v, err := s.Mine(ctx, code, "jitter/3", "nobody"); err != nil || v != "" {
				t.Errorf("Mine(nobody) = %q, %v; want none", v, err)
			}
			r, err := s.Get(ctx, code)
			if err != nil || r.Answers != 4 {
				t.Errorf("Get = %+v, %v; want 4 answers given", r, err)
			}

			// Revealed, the step takes no more answers; the next step takes its own.
			if _, err := s.Update(ctx, code, room.State{URL: "/backoff", Step: "jitter/3", Revealed: true}); err != nil {
				t.Fatal(err)
			}
			if err := s.Answer(ctx, code, "jitter/3", "f4", "full"); !errors.Is(err, room.ErrClosed) {
				t.Errorf("an answer after Reveal = %v, want ErrClosed", err)
			}
			if _, err := s.Update(ctx, code, room.State{URL: "/backoff?strategies=none,exponential", Step: "jitter/1"}); err != nil {
				t.Fatal(err)
			}
			if err := s.Answer(ctx, code, "jitter/1", "f1", "cluster"); err != nil {
				t.Fatal(err)
			}
			want = []room.Count{{Step: "jitter/1", Value: "cluster", N: 1}, want[0], want[1]}
			if got, err := s.Answers(ctx, code, ""); err != nil || !slices.Equal(got, want) {
				t.Errorf("Answers of every step = %v, %v; want %v", got, err, want)
			}

			// Ended, the room's answers are gone with it.
			if err := s.End(ctx, code); err != nil {
				t.Fatal(err)
			}
			if err := s.Answer(ctx, code, "jitter/1", "f1", "spread"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("an answer in an ended room = %v, want ErrNotFound", err)
			}
			if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), ""); err != nil {
				t.Fatal(err)
			}
			if got, err := s.Answers(ctx, code, ""); err != nil || len(got) != 0 {
				t.Errorf("a new room of the same code has answers %v, %v", got, err)
			}
		})
	}
}

// TestAnswersBounded: a room keeps at most MaxAnswers answers; a follower who answered may
// still change theirs.
func TestAnswersBounded(t *testing.T) {
	ctx := context.Background()
	s := room.NewMemory(room.Limits{})
	const code = "FUL234"
	if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff", Step: "jitter/3"}, room.HashKey("k"), ""); err != nil {
		t.Fatal(err)
	}
	for i := range room.MaxAnswers {
		if err := s.Answer(ctx, code, "jitter/3", fmt.Sprint("f", i), "full"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Answer(ctx, code, "jitter/3", "one-more", "full"); !errors.Is(err, room.ErrAnswersFull) {
		t.Errorf("answer %d = %v, want ErrAnswersFull", room.MaxAnswers+1, err)
	}
	if err := s.Answer(ctx, code, "jitter/3", "f0", "equal"); err != nil {
		t.Errorf("a change of mind at the limit = %v", err)
	}
}

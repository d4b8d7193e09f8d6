package room_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/resilience-playground/playground/room"
)

// TestStoreLesson is what a lesson needs of every Store: the reveal is room state like the
// step, the presenters are counted over servers, and the presenter can end the room.
func TestStoreLesson(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := open(t)
			if err := s.Create(ctx, room.Room{Code: "ABC234", Lab: "backoff", URL: "/backoff"}, room.HashKey(room.NewKey()), "me"); err != nil {
				t.Fatal(err)
			}
			watch, err := s.Watch(ctx, "ABC234")
			if err != nil {
				t.Fatal(err)
			}
			next := func(what string) room.Room {
				t.Helper()
				select {
				case r, ok := <-watch:
					if !ok {
						t.Fatalf("%s: the watch closed", what)
					}
					return r
				case <-ctx.Done():
					t.Fatalf("%s: no change came", what)
				}
				return room.Room{}
			}
			up, err := s.Update(ctx, "ABC234", room.State{URL: "/backoff?clients=60", Step: "jitter/1", Revealed: true, RevealOpen: true})
			if err != nil || !up.Revealed || !up.RevealOpen {
				t.Fatalf("Update = %+v, %v; want revealed and open", up, err)
			}
			if r := next("reveal"); !r.Revealed || !r.RevealOpen || r.Step != "jitter/1" {
				t.Errorf("watched %+v, want revealed, open, step jitter/1", r)
			}
			if r, _ := s.Get(ctx, "ABC234"); !r.Revealed || !r.RevealOpen {
				t.Errorf("Get = %+v, want revealed and open", r)
			}
			if err := s.SetPresenters(ctx, "ABC234", "a", 1); err != nil {
				t.Fatal(err)
			}
			next("one presenter")
			if err := s.SetPresenters(ctx, "ABC234", "b", 2); err != nil {
				t.Fatal(err)
			}
			if r := next("three presenters"); r.Presenters != 3 || !r.Revealed {
				t.Errorf("watched %+v, want 3 presenters and the reveal kept", r)
			}
			if err := s.SetPresenters(ctx, "ABC234", "a", 0); err != nil {
				t.Fatal(err)
			}
			if r := next("two presenters"); r.Presenters != 2 {
				t.Errorf("watched %d presenters, want 2", r.Presenters)
			}
			if r, _ := s.Get(ctx, "ABC234"); r.Presenters != 2 {
				t.Errorf("Get: %d presenters, want 2", r.Presenters)
			}
			if err := s.End(ctx, "ABC234"); err != nil {
				t.Fatal(err)
			}
			for closed := false; !closed; {
				select {
				case _, ok := <-watch:
					closed = !ok
				case <-ctx.Done():
					t.Fatal("the watch did not close when the room ended")
				}
			}
			if _, err := s.Get(ctx, "ABC234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Get after End = %v, want ErrNotFound", err)
			}
			if err := s.End(ctx, "ABC234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("End again = %v, want ErrNotFound", err)
			}
			// The owner's room is freed: its count no longer holds it.
			if err := s.Create(ctx, room.Room{Code: "ABC234", Lab: "backoff", URL: "/backoff"}, room.HashKey(room.NewKey()), "me"); err != nil {
				t.Errorf("a new room of the ended room's code: %v", err)
			}
		})
	}
}

package room_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// stores returns every Store implementation, each fresh: in memory, and on a real Redis.
func stores(t *testing.T) map[string]func(t *testing.T) room.Store {
	return map[string]func(t *testing.T) room.Store{
		"memory": func(t *testing.T) room.Store { return room.NewMemory(room.Limits{}) },
		"redis": func(t *testing.T) room.Store {
			s, err := room.NewRedis(context.Background(), roomtest.MustStartRedis(t), room.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	}
}

// TestStore is the contract every Store keeps.
func TestStore(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := open(t)
			key := room.NewKey()
			r := room.Room{Code: "ABC234", Lab: "backoff", URL: "/backoff?clients=50"}
			if err := s.Create(ctx, r, room.HashKey(key), ""); err != nil {
				t.Fatal(err)
			}
			if err := s.Create(ctx, r, room.HashKey(key), ""); !errors.Is(err, room.ErrExists) {
				t.Errorf("second Create = %v, want ErrExists", err)
			}
			got, err := s.Get(ctx, "ABC234")
			if err != nil || got.URL != r.URL || got.Lab != "backoff" || got.Version != 0 {
				t.Errorf("Get = %+v, %v", got, err)
			}
			if _, err := s.Get(ctx, "ZZZZZZ"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Get of an unknown code = %v, want ErrNotFound", err)
			}
			for k, want := range map[string]bool{key: true, room.NewKey(): false, "": false, key + "x": false} {
				if ok, err := s.Present(ctx, "ABC234", k); err != nil || ok != want {
					t.Errorf("Present(%.8q…) = %v, %v; want %v", k, ok, err, want)
				}
			}

			watch, err := s.Watch(ctx, "ABC234")
			if err != nil {
				t.Fatal(err)
			}
			up, err := s.Update(ctx, "ABC234", room.State{URL: "/backoff?clients=60", Step: "tour:1"})
			if err != nil || up.Version != 1 || up.URL != "/backoff?clients=60" || up.Step != "tour:1" {
				t.Fatalf("Update = %+v, %v", up, err)
			}
			if w := <-watch; w.Version != 1 || w.URL != up.URL {
				t.Errorf("watcher got %+v, want version 1", w)
			}
			// A watcher that falls behind gets the newest change, not a queue.
			for i := range 5 {
				if _, err := s.Update(ctx, "ABC234", room.State{URL: "/backoff?clients=7" + string(rune('0'+i))}); err != nil {
					t.Fatal(err)
				}
			}
			last := room.Room{}
			for last.Version < 6 {
				select {
				case last = <-watch:
				case <-ctx.Done():
					t.Fatalf("watcher stopped at version %d", last.Version)
				}
			}
			if last.URL != "/backoff?clients=74" {
				t.Errorf("newest change %+v", last)
			}

			for _, f := range []struct {
				replica string
				n       int
			}{{"a", 3}, {"b", 4}, {"a", 1}} {
				if err := s.SetFollowers(ctx, "ABC234", f.replica, f.n); err != nil {
					t.Fatal(err)
				}
			}
			if n, err := s.Followers(ctx, "ABC234"); err != nil || n != 5 {
				t.Errorf("Followers = %d, %v; want 5", n, err)
			}
			select { // follower counts are announced to watchers
			case <-watch:
			case <-ctx.Done():
				t.Errorf("no announcement of followers")
			}
			if err := s.SetFollowers(ctx, "ABC234", "b", 0); err != nil {
				t.Fatal(err)
			}
			if n, _ := s.Followers(ctx, "ABC234"); n != 1 {
				t.Errorf("Followers = %d after b left, want 1", n)
			}
			if err := s.Touch(ctx, "ABC234", "r1"); err != nil {
				t.Errorf("Touch = %v", err)
			}
			if _, err := s.Update(ctx, "NOPE23", room.State{URL: "/backoff"}); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Update of an unknown room = %v", err)
			}
		})
	}
}

func TestCodes(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		c := room.NewCode()
		if room.NormalizeCode(c) != c {
			t.Fatalf("code %q does not normalise to itself", c)
		}
		seen[c] = true
	}
	if len(seen) < 999 {
		t.Errorf("%d distinct codes of 1000", len(seen))
	}
	for in, want := range map[string]string{"abc-234": "ABC234", " ab c234": "ABC234", "ABC23": "", "ABC2340": "", "ABCD10": "", "ABCDEO": ""} {
		if got := room.NormalizeCode(in); got != want {
			t.Errorf("NormalizeCode(%q) = %q, want %q", in, got, want)
		}
	}
	if k1, k2 := room.NewKey(), room.NewKey(); k1 == k2 || len(k1) < 40 {
		t.Errorf("keys %q %q", k1, k2)
	}
}

// TestMemoryExpires: a room nobody has touched for TTL is gone; one kept alive stays.
func TestMemoryExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := room.NewMemory(room.Limits{})
		for _, code := range []string{"AAAAAA", "BBBBBB"} {
			if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), ""); err != nil {
				t.Fatal(err)
			}
			if err := s.Touch(ctx, code, "r1"); err != nil { // joined
				t.Fatal(err)
			}
		}
		time.Sleep(room.TTL - time.Minute)
		if err := s.Touch(ctx, "BBBBBB", "r1"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Minute)
		if _, err := s.Get(ctx, "AAAAAA"); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("an untouched room after its TTL: %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "BBBBBB"); err != nil {
			t.Errorf("a touched room: %v", err)
		}
	})
}

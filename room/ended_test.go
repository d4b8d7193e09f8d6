package room_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// TestEnded is the tombstone's contract in every store (issue 30, item 13): a room that has
// ended — by End, or by a code taken again — answers Ended with what it showed last (its
// scenario and tour step), a live room and a code that never named one do not.
func TestEnded(t *testing.T) {
	for name, open := range stores(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s := open(t)
			if err := s.Create(ctx, room.Room{Code: "END234", Lab: "backoff", URL: "/backoff?clients=50"}, room.HashKey("k"), "o"); err != nil {
				t.Fatal(err)
			}
			if r, err := s.Ended(ctx, "END234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Ended of a live room = %+v, %v; want ErrNotFound", r, err)
			}
			if r, err := s.Ended(ctx, "NEVER2"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Ended of a code that never named a room = %+v, %v; want ErrNotFound", r, err)
			}
			if _, err := s.Update(ctx, "END234", room.State{URL: "/backoff?clients=60", Step: "jitter/2", Revealed: true}); err != nil {
				t.Fatal(err)
			}
			if err := s.End(ctx, "END234"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Get(ctx, "END234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Get of an ended room = %v, want ErrNotFound", err)
			}
			want := room.Room{Code: "END234", Lab: "backoff", URL: "/backoff?clients=60", Step: "jitter/2"}
			if r, err := s.Ended(ctx, "END234"); err != nil || r != want {
				t.Errorf("Ended = %+v, %v; want %+v", r, err, want)
			}
			if err := s.End(ctx, "END234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("End of an ended room = %v, want ErrNotFound", err)
			}
			// The code taken again names the new room only.
			if err := s.Create(ctx, room.Room{Code: "END234", Lab: "backoff", URL: "/backoff?clients=70"}, room.HashKey("k"), "o"); err != nil {
				t.Fatal(err)
			}
			if r, err := s.Ended(ctx, "END234"); !errors.Is(err, room.ErrNotFound) {
				t.Errorf("Ended of a code taken again = %+v, %v; want ErrNotFound", r, err)
			}
			if err := s.End(ctx, "END234"); err != nil {
				t.Fatal(err)
			}
			if r, err := s.Ended(ctx, "END234"); err != nil || r.URL != "/backoff?clients=70" || r.Step != "" {
				t.Errorf("Ended of the second room = %+v, %v; want its own scenario", r, err)
			}
		})
	}
}

// TestMemoryTombstones: in memory, a tombstone lasts EndedTTL after its room ended — by End,
// or by expiring (then from its expiry) — and is swept away after; the store keeps no more than
// twice Limits.Rooms rooms and tombstones, the oldest tombstones giving way.
func TestMemoryTombstones(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		s := room.NewMemory(room.Limits{})
		defer s.Close()
		for _, code := range []string{"ENDED2", "EXPIR2"} {
			if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff?clients=5"}, room.HashKey("k"), ""); err != nil {
				t.Fatal(err)
			}
			if err := s.Touch(ctx, code, "r1"); err != nil { // joined: it lives TTL
				t.Fatal(err)
			}
		}
		if err := s.End(ctx, "ENDED2"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(room.TTL + time.Second) // EXPIR2 has expired a second ago
		for _, code := range []string{"ENDED2", "EXPIR2"} {
			if r, err := s.Ended(ctx, code); err != nil || r.URL != "/backoff?clients=5" {
				t.Errorf("%s after %v: Ended = %+v, %v; want its scenario", code, room.TTL+time.Second, r, err)
			}
		}
		time.Sleep(room.EndedTTL - room.TTL - 2*time.Second) // a second before ENDED2's tombstone lapses
		if _, err := s.Ended(ctx, "ENDED2"); err != nil {
			t.Errorf("ENDED2 a second before EndedTTL: %v", err)
		}
		time.Sleep(2 * time.Second)
		if r, err := s.Ended(ctx, "ENDED2"); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("ENDED2 a second after EndedTTL: %+v, %v; want ErrNotFound", r, err)
		}
		if _, err := s.Ended(ctx, "EXPIR2"); err != nil {
			t.Errorf("EXPIR2, EndedTTL after it ended less %v: %v", room.TTL, err)
		}
		time.Sleep(room.TTL)
		if r, err := s.Ended(ctx, "EXPIR2"); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("EXPIR2 past EndedTTL after its expiry: %+v, %v; want ErrNotFound", r, err)
		}
		time.Sleep(room.SweepEvery)
		synctest.Wait()
		if n := s.Buried(); n != 0 {
			t.Errorf("%d tombstones held after they lapsed and a sweep, want 0", n)
		}
	})
	t.Run("bounded", func(t *testing.T) {
		ctx := context.Background()
		s := room.NewMemory(room.Limits{Rooms: 2})
		defer s.Close()
		for i := range 6 {
			code := fmt.Sprintf("BOUND%d", i+2)
			if err := s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), ""); err != nil {
				t.Fatal(err)
			}
			if err := s.End(ctx, code); err != nil {
				t.Fatal(err)
			}
		}
		if n := s.Buried(); n != 4 {
			t.Errorf("%d tombstones of 6 ended rooms at Limits.Rooms 2, want 4", n)
		}
		for i := range 6 {
			code := fmt.Sprintf("BOUND%d", i+2)
			if _, err := s.Ended(ctx, code); (err == nil) != (i >= 2) {
				t.Errorf("%s, ended %d of 6: Ended = %v; want only the newest 4 kept", code, i+1, err)
			}
		}
	})
}

// TestRedisTombstones: on Redis, a tombstone lasts EndedTTL on the store's clock after its room
// ended, and Redis forgets it then (its key's expiry); a room Redis expires leaves one too (its
// tomb outlives its hash by EndedTTL); two servers sharing Redis agree; Redis keeps no more than
// twice Limits.Rooms rooms' tombs, the oldest giving way.
func TestRedisTombstones(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	url := roomtest.MustStartRedis(t)
	open := func() *room.Redis {
		s, err := room.NewRedis(ctx, url, room.Limits{Rooms: 2})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	a, b := open(), open()
	clock := &fakeClock{t: time.Now()}
	a.SetClock(clock.now)
	b.SetClock(clock.now)
	mustCreate(t, a, "ENDED2", "")
	if _, err := a.Update(ctx, "ENDED2", room.State{URL: "/backoff?clients=9", Step: "jitter/1"}); err != nil {
		t.Fatal(err)
	}
	if err := a.End(ctx, "ENDED2"); err != nil {
		t.Fatal(err)
	}
	want := room.Room{Code: "ENDED2", Lab: "backoff", URL: "/backoff?clients=9", Step: "jitter/1"}
	if r, err := b.Ended(ctx, "ENDED2"); err != nil || r != want {
		t.Errorf("ended on one server, Ended on the other = %+v, %v; want %+v", r, err, want)
	}
	if d, _, err := a.TombTTL(ctx, "ENDED2"); err != nil || d <= room.EndedTTL-time.Minute || d > room.EndedTTL {
		t.Errorf("Redis keeps the tomb %v (%v), want EndedTTL, %v", d, err, room.EndedTTL)
	}
	clock.add(room.EndedTTL - time.Second)
	if _, err := b.Ended(ctx, "ENDED2"); err != nil {
		t.Errorf("a second before EndedTTL: %v", err)
	}
	clock.add(2 * time.Second)
	if r, err := b.Ended(ctx, "ENDED2"); !errors.Is(err, room.ErrNotFound) {
		t.Errorf("a second after EndedTTL: %+v, %v; want ErrNotFound", r, err)
	}

	// A room Redis expires: its hash goes at its TTL, its tomb EndedTTL later.
	mustCreate(t, a, "EXPIR2", "")
	if err := a.Touch(ctx, "EXPIR2", "r1"); err != nil {
		t.Fatal(err)
	}
	roomTTL, err := a.RoomTTL(ctx, "EXPIR2")
	if err != nil {
		t.Fatal(err)
	}
	tombTTL, _, err := a.TombTTL(ctx, "EXPIR2")
	if err != nil {
		t.Fatal(err)
	}
	if d := tombTTL - roomTTL; d < room.EndedTTL-time.Second || d > room.EndedTTL+time.Second {
		t.Errorf("the tomb outlives the room in Redis by %v, want EndedTTL", d)
	}
	if err := a.Expire(ctx, "EXPIR2"); err != nil { // as Redis does at the room's TTL
		t.Fatal(err)
	}
	if r, err := b.Ended(ctx, "EXPIR2"); err != nil || r.URL != "/backoff" {
		t.Errorf("an expired room: Ended = %+v, %v; want its scenario", r, err)
	}
	clock.add(room.TTL + room.EndedTTL + time.Second)
	if r, err := b.Ended(ctx, "EXPIR2"); !errors.Is(err, room.ErrNotFound) {
		t.Errorf("EndedTTL after an expired room's TTL: %+v, %v; want ErrNotFound", r, err)
	}

	// Bounded: six rooms ended at Limits.Rooms 2 leave four tombs, the newest.
	for i := range 6 {
		code := fmt.Sprintf("BOUND%d", i+2)
		mustCreate(t, a, code, "")
		if err := a.End(ctx, code); err != nil {
			t.Fatal(err)
		}
	}
	if _, n, err := a.TombTTL(ctx, "BOUND7"); err != nil || n != 4 {
		t.Errorf("Redis counts %d tombs (%v) after 6 rooms ended at Limits.Rooms 2, want 4", n, err)
	}
	for i := range 6 {
		code := fmt.Sprintf("BOUND%d", i+2)
		if _, err := b.Ended(ctx, code); (err == nil) != (i >= 2) {
			t.Errorf("%s, ended %d of 6: Ended = %v; want only the newest 4 kept", code, i+1, err)
		}
		if d, _, _ := a.TombTTL(ctx, code); (d > 0) != (i >= 2) {
			t.Errorf("%s, ended %d of 6: its tomb expires in %v; want the oldest 2 deleted", code, i+1, d)
		}
	}
}

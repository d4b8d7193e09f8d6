package room_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestCountLease: on Redis, a server's presenters and followers count for CountLease after it
// recorded or renewed (Touch) them, and no longer once it has stopped renewing them — a server
// killed without clearing its counts does not leave its presenter "present" for good — while
// the other servers' counts, renewed, still count; the room's published state agrees.
func TestCountLease(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := room.NewRedis(ctx, roomtest.MustStartRedis(t), room.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	clock := &fakeClock{t: time.Now()}
	s.SetClock(clock.now)
	const lease = room.CountLease
	if err := s.Create(ctx, room.Room{Code: "LEASE2", Lab: "backoff", URL: "/backoff"}, room.HashKey(room.NewKey()), ""); err != nil {
		t.Fatal(err)
	}
	// Server a has the presenter and 3 followers; server b 2 followers.
	for _, err := range []error{
		s.SetPresenters(ctx, "LEASE2", "a", 1), s.SetFollowers(ctx, "LEASE2", "a", 3),
		s.SetFollowers(ctx, "LEASE2", "b", 2),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	counts := func() (presenters, followers int) {
		t.Helper()
		r, err := s.Get(ctx, "LEASE2")
		if err != nil {
			t.Fatal(err)
		}
		n, err := s.Followers(ctx, "LEASE2")
		if err != nil {
			t.Fatal(err)
		}
		return r.Presenters, n
	}
	if p, f := counts(); p != 1 || f != 5 {
		t.Fatalf("at first: %d presenters, %d followers; want 1, 5", p, f)
	}
	// Both renew within the lease: everything still counts past the first lease.
	clock.add(lease * 2 / 3)
	for _, r := range []string{"a", "b"} {
		if err := s.Touch(ctx, "LEASE2", r); err != nil {
			t.Fatal(err)
		}
	}
	clock.add(lease * 2 / 3)
	if p, f := counts(); p != 1 || f != 5 {
		t.Errorf("renewed: %d presenters, %d followers; want 1, 5", p, f)
	}
	// Server a stops (no clearing, no renewal); b goes on renewing.
	if err := s.Touch(ctx, "LEASE2", "b"); err != nil {
		t.Fatal(err)
	}
	clock.add(lease / 2)
	if err := s.Touch(ctx, "LEASE2", "b"); err != nil {
		t.Fatal(err)
	}
	clock.add(lease / 2)
	if p, f := counts(); p != 0 || f != 2 {
		t.Errorf("server a's counts lapsed: %d presenters, %d followers; want 0, 2", p, f)
	}
	// What a change publishes agrees.
	watch, err := s.Watch(ctx, "LEASE2")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, "LEASE2", room.State{URL: "/backoff?clients=7"}); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-watch:
		if r.Presenters != 0 {
			t.Errorf("published %d presenters after server a's lapsed, want 0", r.Presenters)
		}
	case <-ctx.Done():
		t.Fatal("no change published")
	}
	// Server a comes back and records its presenter again: it counts.
	if err := s.SetPresenters(ctx, "LEASE2", "a", 1); err != nil {
		t.Fatal(err)
	}
	if p, _ := counts(); p != 1 {
		t.Errorf("server a back: %d presenters, want 1", p)
	}
}

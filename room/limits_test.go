package room_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

func mustCreate(tb testing.TB, s room.Store, code, owner string) {
	tb.Helper()
	if err := s.Create(context.Background(), room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), owner); err != nil {
		tb.Fatalf("Create(%s) by %q: %v", code, owner, err)
	}
}

// code returns the i-th code of a test.
func code(prefix string, i int) string { return fmt.Sprintf("%s%04d", prefix, i)[:room.CodeLen] }

// TestMemorySweeps: rooms nobody looks up again are freed once past their TTL (issue 18: a
// flood of rooms was still held after three times the TTL), on the sweeper's own schedule;
// a room kept alive stays, and its owner's count frees with the rest.
func TestMemorySweeps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := room.NewMemory(room.Limits{PerOwner: 1000})
		defer s.Close()
		for i := range 1000 { // joined once, then left: each lives TTL
			mustCreate(t, s, code("AA", i), "flood")
			if err := s.Touch(context.Background(), code("AA", i), "r1"); err != nil {
				t.Fatal(err)
			}
		}
		mustCreate(t, s, "KEEP22", "teacher")
		if err := s.Touch(context.Background(), "KEEP22", "r1"); err != nil {
			t.Fatal(err)
		}
		// The teacher's room has a participant: its server touches it every TTL/8.
		ctx, stop := context.WithCancel(context.Background())
		go func() {
			for {
				select {
				case <-time.After(room.TTL / 8):
					_ = s.Touch(ctx, "KEEP22", "r1")
				case <-ctx.Done():
					return
				}
			}
		}()
		time.Sleep(room.TTL)
		if n := s.Held(); n != 1001 {
			t.Errorf("%d rooms held before their TTL, want 1001", n)
		}
		time.Sleep(room.SweepEvery + time.Minute)
		synctest.Wait()
		if n := s.Held(); n != 1 {
			t.Errorf("%d rooms held one sweep after their TTL, want 1 (the room kept alive)", n)
		}
		if _, err := s.Get(context.Background(), "KEEP22"); err != nil {
			t.Errorf("the room kept alive: %v", err)
		}
		// The flood's owner may create rooms again: its count freed with its rooms.
		for i := range 1000 {
			mustCreate(t, s, code("BB", i), "flood")
		}
		stop()
		time.Sleep(2 * room.TTL)
		synctest.Wait()
		if n := s.Held(); n != 0 {
			t.Errorf("%d rooms held after every room's TTL, want 0", n)
		}
	})
}

// TestMemorySweeperStops: the sweeper stops with the store, and while it holds no room.
func TestMemorySweeperStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := room.NewMemory(room.Limits{})
		mustCreate(t, s, "AAAAAA", "")
		time.Sleep(3 * room.TTL) // the sweeper frees the room and disarms
		synctest.Wait()
		if n := s.Held(); n != 0 {
			t.Fatalf("%d rooms held", n)
		}
		mustCreate(t, s, "BBBBBB", "") // re-arms it
		s.Close()
		time.Sleep(3 * room.TTL)
		synctest.Wait()
		if n := s.Held(); n != 1 {
			t.Errorf("%d rooms held after Close; the sweeper should have stopped", n)
		}
	})
}

// TestLimits: a store keeps at most Limits.Rooms rooms, Limits.PerOwner of one owner's and
// Limits.PerNetwork of one network's (an IPv4 /24, an IPv6 /48), and frees their places as
// they expire.
func TestLimits(t *testing.T) {
	limits := room.Limits{Rooms: 5, PerOwner: 2, PerNetwork: 2}
	check := func(t *testing.T, s room.Store, expire func()) {
		ctx := context.Background()
		create := func(code, owner string) error {
			return s.Create(ctx, room.Room{Code: code, Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), owner)
		}
		mustCreate(t, s, "AAAAA2", "203.0.113.9")
		mustCreate(t, s, "AAAAA3", "203.0.113.9")
		if err := create("AAAAA4", "203.0.113.9"); !errors.Is(err, room.ErrOwnerFull) {
			t.Errorf("an owner's third room: %v, want ErrOwnerFull", err)
		}
		if err := create("AAAAA6", "203.0.113.10"); !errors.Is(err, room.ErrNetworkFull) {
			t.Errorf("a /24's third room: %v, want ErrNetworkFull", err)
		}
		mustCreate(t, s, "BBBBB2", "2001:db8::/64")
		mustCreate(t, s, "BBBBB3", "2001:db8:0:1::/64")
		if err := create("BBBBB4", "2001:db8:0:2::/64"); !errors.Is(err, room.ErrNetworkFull) {
			t.Errorf("a /48's third room: %v, want ErrNetworkFull", err)
		}
		mustCreate(t, s, "CCCCC2", "")
		if err := create("DDDDD2", "198.51.100.1"); !errors.Is(err, room.ErrFull) {
			t.Errorf("a sixth room of five: %v, want ErrFull", err)
		}
		if err := create("AAAAA2", "198.51.100.1"); !errors.Is(err, room.ErrExists) {
			t.Errorf("a taken code: %v, want ErrExists", err)
		}
		expire()
		mustCreate(t, s, "AAAAA4", "203.0.113.9")
		mustCreate(t, s, "AAAAA6", "203.0.113.10")
		mustCreate(t, s, "DDDDD2", "198.51.100.1")
	}
	t.Run("memory", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := room.NewMemory(limits)
			defer s.Close()
			check(t, s, func() { time.Sleep(room.TTL + time.Second) })
		})
	})
	t.Run("redis", func(t *testing.T) {
		s, err := room.NewRedis(context.Background(), roomtest.MustStartRedis(t), limits)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		const ttl = 300 * time.Millisecond
		s.SetTTL(ttl)
		// Expiry is Redis's (and the store's) business; the test waits it out.
		check(t, s, func() { time.Sleep(2 * ttl) })
	})
}

// TestRedisCountsKeptRooms: in Redis, a room kept alive by its participants keeps its place in
// the counts past its first TTL, and a room changed by its presenter too.
func TestRedisCountsKeptRooms(t *testing.T) {
	s, err := room.NewRedis(context.Background(), roomtest.MustStartRedis(t), room.Limits{Rooms: 2, PerOwner: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const ttl = 400 * time.Millisecond
	s.SetTTL(ttl)
	ctx := context.Background()
	mustCreate(t, s, "AAAAA2", "o")
	mustCreate(t, s, "AAAAA3", "o")
	for range 4 { // past two TTLs, kept alive all along
		time.Sleep(ttl / 4)
		if err := s.Touch(ctx, "AAAAA2", "r1"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Update(ctx, "AAAAA3", room.State{URL: "/backoff?clients=9"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Create(ctx, room.Room{Code: "BBBBB2", Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), "p"); !errors.Is(err, room.ErrFull) {
		t.Errorf("a third room beside two kept alive: %v, want ErrFull", err)
	}
	if err := s.Create(ctx, room.Room{Code: "BBBBB2", Lab: "backoff", URL: "/backoff"}, room.HashKey("k"), "o"); !errors.Is(err, room.ErrFull) && !errors.Is(err, room.ErrOwnerFull) {
		t.Errorf("the owner's third room: %v, want refused", err)
	}
}

// TestRedactURL: what may be a password never survives, whether the URL parses or not.
func TestRedactURL(t *testing.T) {
	for _, raw := range []string{
		"redis://:s3cret@localhost:6379/0",
		"redis://user:s3cret@localhost:6379/0",
		"redis://s3cret@localhost:6379/0",
		"redis://user:s3cret@localhost:port/0", // does not parse
		"redis://:s3cret@[::1:6379/0",          // does not parse
		"redis//:s3cret@localhost:6379",        // parses as a path
		":s3cret@localhost",
		"redis://us%zzer:s3cret@localhost", // a bad escape
	} {
		got := room.RedactURL(raw)
		if strings.Contains(got, "s3cret") {
			t.Errorf("RedactURL(%q) = %q: the password shows", raw, got)
		}
		if host := raw[strings.LastIndex(raw, "@"):]; !strings.HasSuffix(got, host) {
			t.Errorf("RedactURL(%q) = %q: the host (%s) should stay", raw, got, host)
		}
	}
	// Passwords that break the URL's syntax, and passwords given as options (issue 33).
	for _, raw := range []string{
		"redis://:s3cr#et@localhost:6379/0",
		"redis://:s3cr/et@localhost:6379/0",
		"redis://:s3cr?et@localhost:6379/0",
		"redis://localhost:6379/0?password=s3cret",
		"redis://localhost:6379/0?password=s3cret&db=x",
		"redis://user:s3cret@localhost:6379/0?foo=bar",
		"unix:///tmp/nosock?password=s3cret",
		"redis://:s3cret@localhost:6379/0?dial_timeout=s3cret",
		"redis://:s3cret@[::1]:6379:1/0",
		"redis://:s3cr%et@localhost:6379/0",
	} {
		if got := room.RedactURL(raw); strings.Contains(got, "s3cr") {
			t.Errorf("RedactURL(%q) = %q: the password shows", raw, got)
		}
		_, err := room.NewRedis(context.Background(), raw, room.Limits{})
		if err == nil || strings.Contains(err.Error(), "s3cr") {
			t.Errorf("NewRedis(%q): %v — want an error without the password", raw, err)
		}
	}
	if got := room.RedactURL("redis://localhost:6379/0"); got != "redis://localhost:6379/0" {
		t.Errorf("a URL without credentials became %q", got)
	}
	for _, raw := range []string{"redis://:s3cret@localhost:port/0", "redis://:s3cret@[::1:6379/0", "http://:s3cret@localhost/"} {
		_, err := room.NewRedis(context.Background(), raw, room.Limits{})
		if err == nil || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("NewRedis(%q): %v — want an error without the password", raw, err)
		}
	}
}

// TestNetworkOf: an owner's network is the /24 of its IPv4 address, the /48 of its IPv6
// address or prefix; anything else has none.
func TestNetworkOf(t *testing.T) {
	for owner, want := range map[string]string{
		"203.0.113.9":          "203.0.113.0/24",
		"::ffff:203.0.113.9":   "203.0.113.0/24",
		"2001:db8:1:2::/64":    "2001:db8:1::/48",
		"2001:db8:1:2::7":      "2001:db8:1::/48",
		"2001:db8::/32":        "2001:db8::/32",
		"":                     "",
		"room ABCDEF":          "",
		"198.51.100.7:1000":    "",
		"2001:db8:ffff:1::/64": "2001:db8:ffff::/48",
	} {
		if got := room.NetworkOf(owner); got != want {
			t.Errorf("NetworkOf(%q) = %q, want %q", owner, got, want)
		}
	}
}

// TestUnjoinedRoomsExpireSoon: a room nobody joins lives JoinTTL, not TTL (issue 33: a flood
// of rooms never joined kept teachers out for the TTL), and frees its owner's place; a room a
// server watches or touches for a participant lives TTL from its last activity. The store
// tells whoever asks for the room who created it.
func TestUnjoinedRoomsExpireSoon(t *testing.T) {
	check := func(t *testing.T, s room.Store, jttl time.Duration, sleep func(time.Duration)) {
		ctx := context.Background()
		mustCreate(t, s, "AAAAA2", "203.0.113.9")
		mustCreate(t, s, "BBBBB2", "203.0.113.9")
		mustCreate(t, s, "CCCCC2", "203.0.113.9")
		if rm, err := s.Get(ctx, "AAAAA2"); err != nil || rm.Owner != "203.0.113.9" {
			t.Errorf("Get: %+v, %v; want the owner 203.0.113.9", rm, err)
		}
		watchCtx, stop := context.WithCancel(ctx)
		defer stop()
		if _, err := s.Watch(watchCtx, "BBBBB2"); err != nil {
			t.Fatal(err)
		}
		if err := s.Touch(ctx, "CCCCC2", "r1"); err != nil {
			t.Fatal(err)
		}
		sleep(jttl + jttl/2)
		if _, err := s.Get(ctx, "AAAAA2"); !errors.Is(err, room.ErrNotFound) {
			t.Errorf("a room nobody joined, after JoinTTL: %v, want ErrNotFound", err)
		}
		for _, c := range []string{"BBBBB2", "CCCCC2"} {
			if _, err := s.Get(ctx, c); err != nil {
				t.Errorf("a joined room after JoinTTL: %v", err)
			}
		}
		mustCreate(t, s, "AAAAA3", "203.0.113.9") // the owner's place is free again
	}
	t.Run("memory", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			s := room.NewMemory(room.Limits{PerOwner: 3})
			defer s.Close()
			check(t, s, room.JoinTTL, time.Sleep)
			time.Sleep(room.SweepEvery)
			synctest.Wait()
			if n := s.Held(); n != 3 {
				t.Errorf("%d rooms held, want 3: the unjoined one swept", n)
			}
		})
	})
	t.Run("redis", func(t *testing.T) {
		s, err := room.NewRedis(context.Background(), roomtest.MustStartRedis(t), room.Limits{PerOwner: 3})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		s.SetTTL(time.Hour)
		s.SetJoinTTL(400 * time.Millisecond)
		// Expiry is Redis's business; the test waits it out.
		check(t, s, 400*time.Millisecond, time.Sleep)
	})
}

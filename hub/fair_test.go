package hub_test

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// heavy is the query of the i-th heavy scenario of a test: a gated run never stepped, so it
// holds its slot until its viewer leaves — as a run of many seconds does.
func heavy(i int) string { return fmt.Sprintf("n=%d&steps=1000", 1000+i) }

// subscribeAll asks for scenarios qs on behalf of client, as many connections at once would,
// and returns the subscriptions granted (closed at cleanup) and how many were refused busy.
func subscribeAll(tb testing.TB, h *hub.Hub, g *labtest.Gated, client string, qs ...string) (held []*hub.Sub, busy int) {
	tb.Helper()
	for _, q := range qs {
		s, err := h.SubscribeFor(context.Background(), client, g.Lab, values(tb, g.Lab, q))
		switch {
		case errors.Is(err, hub.ErrBusy):
			busy++
		case err != nil:
			tb.Fatalf("%s asking for %s: %v", client, q, err)
		default:
			tb.Cleanup(s.Close)
			held = append(held, s)
		}
	}
	return held, busy
}

// TestOneClientCannotTakeEverySlot: eight heavy runs asked for at once by one client (eight
// connections from one address) leave slots free, and a new client's scenario starts and
// finishes before any heavy run is released.
func TestOneClientCannotTakeEverySlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 8}) // Share defaults to 2
		const attacker = "198.51.100.7"
		var qs []string
		for i := range 8 {
			qs = append(qs, heavy(i))
		}
		held, busy := subscribeAll(t, h, g, attacker, qs...)
		if len(held) != 6 || busy != 2 {
			t.Fatalf("one client asking for 8 runs of 8 slots got %d (%d busy), want 6: two slots are kept for others", len(held), busy)
		}
		// Asking again and again changes nothing while its runs go on.
		for i := range 20 {
			if _, busy := subscribeAll(t, h, g, attacker, heavy(100+i)); busy != 1 {
				t.Fatalf("the client's retry %d was admitted beyond its share", i)
			}
		}

		// A new client's scenario starts at once and runs to its end while all six heavy
		// runs still hold their slots.
		newcomer, busy := subscribeAll(t, h, g, "203.0.113.9", "n=1&steps=3")
		if busy != 0 {
			t.Fatal("a new client was told busy while one client held 6 of 8 slots")
		}
		step(t, g, "n=1&steps=3", 3)
		if r, err := readAll(t, g.Lab, "n=1&steps=3", newcomer[0]); err != nil || points(r) != 3 {
			t.Fatalf("the new client's run: %d points, %v", points(r), err)
		}
		synctest.Wait()
		if n := h.Running(); n != 6 {
			t.Fatalf("%d runs in flight after the new client's finished, want the 6 heavy ones still held", n)
		}

		// Two newcomers at once both start; a third finds the server full (capacity, not
		// unfairness), and the slot a newcomer frees goes to the next newcomer, not back to
		// the client holding more than its share.
		second, _ := subscribeAll(t, h, g, "203.0.113.10", "n=2")
		third, _ := subscribeAll(t, h, g, "203.0.113.11", "n=3")
		if len(second) != 1 || len(third) != 1 {
			t.Fatalf("two newcomers beside the heavy client: %d and %d started, want both", len(second), len(third))
		}
		if _, busy := subscribeAll(t, h, g, "203.0.113.12", "n=4"); busy != 1 {
			t.Fatal("a ninth run was admitted on eight slots")
		}
		second[0].Close()
		if _, busy := subscribeAll(t, h, g, attacker, heavy(200)); busy != 1 {
			t.Error("the client holding 6 of 8 slots took the slot a newcomer freed")
		}
		if _, busy := subscribeAll(t, h, g, "203.0.113.12", "n=4"); busy != 0 {
			t.Error("a newcomer was refused the slot another freed")
		}

		// Its runs ending, the heavy client gets slots again, up to its share at least.
		for _, s := range held {
			s.Close()
		}
		var again []string
		for i := range 6 {
			again = append(again, heavy(300+i))
		}
		if held, _ := subscribeAll(t, h, g, attacker, again...); len(held) != 4 {
			t.Errorf("with 2 of 8 slots taken by others, the client got %d of 6 runs, want 4 (2 stay free)", len(held))
		}
	})
}

// TestFairSlotsWorkConserving: alone, a client may use every slot but the share kept for
// others; on small hubs (fewer than four slots) and for runs of no named client, nothing is
// kept back; a negative Share turns fairness off.
func TestFairSlotsWorkConserving(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cfg           hub.Config
		client        string
		asked, wanted int
	}{
		{"eight slots", hub.Config{MaxRuns: 8}, "a", 8, 6},
		{"share of three", hub.Config{MaxRuns: 8, Share: 3}, "a", 8, 5},
		{"fairness off", hub.Config{MaxRuns: 8, Share: -1}, "a", 8, 8},
		{"two slots", hub.Config{MaxRuns: 2}, "a", 2, 2},
		{"four slots", hub.Config{MaxRuns: 4}, "a", 4, 3},
		{"no client", hub.Config{MaxRuns: 8}, "", 8, 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				g := labtest.NewGated("fake", true)
				h := MustOpenHub(t, tc.cfg)
				var qs []string
				for i := range tc.asked {
					qs = append(qs, heavy(i))
				}
				if held, _ := subscribeAll(t, h, g, tc.client, qs...); len(held) != tc.wanted {
					t.Errorf("%d of %d runs admitted, want %d", len(held), tc.asked, tc.wanted)
				}
			})
		})
	}
}

// TestJoiningTakesNoSlot: viewers joining a run in flight are not charged for it, whoever they
// are, and a run keeps counting against the client that started it.
func TestJoiningTakesNoSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 4}) // Share 1
		subscribeAll(t, h, g, "a", heavy(0), heavy(1), heavy(2))
		if _, busy := subscribeAll(t, h, g, "b", heavy(0), heavy(1), heavy(2)); busy != 0 {
			t.Fatal("joining runs in flight was refused")
		}
		if held, _ := subscribeAll(t, h, g, "b", heavy(3)); len(held) != 1 {
			t.Fatal("b, holding no run of its own, was refused the last slot")
		}
		ctx := context.Background()
		if _, err := h.ResultFor(ctx, "c", g.Lab, values(t, g.Lab, "n=9")); !errors.Is(err, hub.ErrBusy) {
			t.Errorf("ResultFor on a full hub: %v, want ErrBusy", err)
		}
	})
}

// TestFewClientsCannotFillEverySlot: the slots kept free are a server-wide invariant, not a
// share per client (issue 33: each client took two slots unconditionally, so four clients
// filled all eight). Four clients asking for two heavy runs each get seven slots between them;
// the eighth goes to a client holding none.
func TestFewClientsCannotFillEverySlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 8}) // Share 2
		got := 0
		for i, c := range []string{"a", "b", "c", "d"} {
			held, _ := subscribeAll(t, h, g, c, heavy(2*i), heavy(2*i+1))
			got += len(held)
		}
		if got != 7 {
			t.Fatalf("four clients asking for two runs each hold %d of 8 slots, want 7: once a client holds one, two stay free", got)
		}
		if _, busy := subscribeAll(t, h, g, "a", heavy(100)); busy != 1 {
			t.Error("a client holding two runs took a slot of the two kept free")
		}
		if _, busy := subscribeAll(t, h, g, "e", "n=1"); busy != 0 {
			t.Error("a client holding none was refused the slot kept free")
		}
	})
}

// TestNewClientGetsTheNextSlot: with every slot held by a different client (eight addresses,
// one run each), a new client told busy keeps its turn: the next slot freed is its own, not
// the client's whose run just ended and who asks again at once, nor any other client's that
// has held a slot; a second newcomer comes after it. A turn not taken passes after
// Config.Turn.
func TestNewClientGetsTheNextSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 8})
		var held []*hub.Sub
		for i := range 8 {
			s, _ := subscribeAll(t, h, g, fmt.Sprintf("198.51.100.%d", i), heavy(i))
			held = append(held, s...)
		}
		if len(held) != 8 {
			t.Fatalf("eight clients hold %d runs, want 8", len(held))
		}
		if _, busy := subscribeAll(t, h, g, "new", "n=1"); busy != 1 {
			t.Fatal("a ninth run was admitted on eight slots")
		}
		time.Sleep(time.Second) // a second newcomer, later
		if _, busy := subscribeAll(t, h, g, "newer", "n=2"); busy != 1 {
			t.Fatal("a tenth run was admitted on eight slots")
		}
		held[0].Close() // client 0's run ends, and it asks again at once
		if _, busy := subscribeAll(t, h, g, "198.51.100.0", heavy(10)); busy != 1 {
			t.Error("the client whose run ended took the slot back ahead of the waiting newcomer")
		}
		if _, busy := subscribeAll(t, h, g, "newer", "n=2"); busy != 1 {
			t.Error("the later newcomer took the slot ahead of the first")
		}
		if _, busy := subscribeAll(t, h, g, "new", "n=1"); busy != 0 {
			t.Error("the newcomer was refused the slot freed while it waited")
		}
		held[1].Close()
		if _, busy := subscribeAll(t, h, g, "newer", "n=2"); busy != 0 {
			t.Error("the second newcomer was refused the next slot")
		}
		// A turn not taken passes: a newcomer that does not come back is not waited for.
		if _, busy := subscribeAll(t, h, g, "gone", "n=3"); busy != 1 {
			t.Fatal("a ninth run was admitted on eight slots")
		}
		held[2].Close()
		time.Sleep(hub.DefaultTurn + time.Second)
		if _, busy := subscribeAll(t, h, g, "late", "n=4"); busy != 0 {
			t.Error("a free slot was kept for a turn that had passed")
		}
	})
}

// TestAdmitFairly: the budget's verdicts are kept by canonical URL — a scenario refused, or
// admitted, is estimated once however often it is asked for — and a client's estimates run
// one at a time, while another client's run beside them.
func TestAdmitFairly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", false)
		var (
			estimates atomic.Int32
			inCost    atomic.Int32
			most      atomic.Int32
			block     = make(chan struct{})
		)
		cost := g.Lab.Cost
		g.Lab.Cost = func(v param.Values) int64 {
			estimates.Add(1)
			n := inCost.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			if v.Int("steps") == 7 {
				<-block
			}
			inCost.Add(-1)
			return cost(v)
		}
		h := MustOpenHub(t, hub.Config{MaxRuns: 8, Budget: 100, CPUs: 4})
		ctx := context.Background()
		first := int32(-1)
		for range 10 {
			var pe *param.Error
			if err := h.Admit(ctx, "a", g.Lab, values(t, g.Lab, "n=500")); !errors.As(err, &pe) || pe.Param != "n" {
				t.Fatalf("Admit over budget: %v", err)
			}
			pe.Param = "changed by a caller"
			if first < 0 {
				first = estimates.Load() // the refusal's own and those finding a value that fits
			}
		}
		for range 10 {
			if err := h.Admit(ctx, "b", g.Lab, values(t, g.Lab, "n=5")); err != nil {
				t.Fatal(err)
			}
		}
		if n := estimates.Load(); n != first+1 {
			t.Errorf("20 admissions of two scenarios computed %d estimates, want %d: those of the first of each", n, first+1)
		}
		var pe *param.Error
		if err := h.Admit(ctx, "c", g.Lab, values(t, g.Lab, "n=500")); !errors.As(err, &pe) || pe.Param != "n" {
			t.Errorf("a refusal kept was changed by the caller it was handed to: %v", err)
		}

		// Client a's estimates one at a time; b's beside them.
		errs := make(chan error, 3)
		for _, q := range []string{"n=6&steps=7", "n=7&steps=7"} {
			go func() { errs <- h.Admit(ctx, "a", g.Lab, values(t, g.Lab, q)) }()
		}
		go func() { errs <- h.Admit(ctx, "b", g.Lab, values(t, g.Lab, "n=8&steps=7")) }()
		synctest.Wait()
		if n := inCost.Load(); n != 2 {
			t.Errorf("%d estimates in flight, want 2: one of a's, one of b's", n)
		}
		close(block)
		for range 3 {
			if err := <-errs; err != nil {
				t.Error(err)
			}
		}
		if n := most.Load(); n != 2 {
			t.Errorf("at most %d estimates computed at once, want 2", n)
		}
	})
}

// TestServedClientsKeepSlotsFree: clients that each hold one slot at a time, asking again as
// each run ends, hold at most MaxRuns−Share between them once each has had one (issue 33: seven
// addresses of the project's own attack kept a new viewer out): the slots freed beyond that
// wait for clients that have not held one lately, who get them at once.
func TestServedClientsKeepSlotsFree(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := labtest.NewGated("fake", true)
		h := MustOpenHub(t, hub.Config{MaxRuns: 8}) // Share 2
		var held []*hub.Sub
		for i := range 8 {
			s, _ := subscribeAll(t, h, g, fmt.Sprintf("198.51.100.%d", i), heavy(i))
			held = append(held, s...)
		}
		if len(held) != 8 {
			t.Fatalf("eight new clients hold %d runs, want 8", len(held))
		}
		again := 0
		for i, s := range held { // each run ends, and its client asks again at once
			s.Close()
			s2, _ := subscribeAll(t, h, g, fmt.Sprintf("198.51.100.%d", i), heavy(100+i))
			again += len(s2)
		}
		if again != 6 {
			t.Errorf("eight clients asking again as their runs end hold %d slots, want 6: two kept for new clients", again)
		}
		for i, want := range []int{0, 0, 1} {
			if _, busy := subscribeAll(t, h, g, fmt.Sprintf("203.0.113.%d", i), fmt.Sprintf("n=%d", i+1)); busy != want {
				t.Errorf("new client %d: %d busy, want %d", i, busy, want)
			}
		}
	})
}

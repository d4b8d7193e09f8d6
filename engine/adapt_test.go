package engine_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/engine"
)

// spreads are ways a world's events can be spread in time, as a function drawing the delay of
// client i's next event at round r: the patterns that made sorted insertion into one bucket
// cost O(clients) per event before the loop adapted its resolution.
var spreads = []struct {
	name  string
	res   time.Duration // the resolution the world chose
	delay func(r *rand.Rand, i, round int) time.Duration
}{
	{"lockstep, equal times", time.Millisecond, func(*rand.Rand, int, int) time.Duration { return 30 * time.Millisecond }},
	{"lockstep within 2us, 1s apart, coarse buckets", 8 * time.Millisecond,
		func(r *rand.Rand, _, _ int) time.Duration { return time.Second + time.Duration(r.IntN(2000)) }},
	{"lockstep within 2us, 1s apart, fine buckets", time.Nanosecond,
		func(r *rand.Rand, _, _ int) time.Duration { return time.Second + time.Duration(r.IntN(2000)) }},
	{"a few ms, suited buckets", 100 * time.Microsecond,
		func(r *rand.Rand, _, _ int) time.Duration {
			return time.Duration(r.ExpFloat64() * float64(5*time.Millisecond))
		}},
	{"sleeps growing to hours", 100 * time.Microsecond,
		func(r *rand.Rand, _, round int) time.Duration {
			return time.Duration(r.Float64() * float64(min(time.Millisecond<<min(round, 40), 24*time.Hour)))
		}},
	{"days apart, fine buckets", time.Microsecond,
		func(r *rand.Rand, _, _ int) time.Duration { return time.Duration(r.Int64N(int64(48 * time.Hour))) }},
	{"two modes: now and years away", time.Millisecond,
		func(r *rand.Rand, i, _ int) time.Duration {
			if i%7 == 0 {
				return time.Duration(r.Int64N(1 << 60))
			}
			return time.Duration(r.IntN(1000))
		}},
}

// TestLoopSpreadsAgainstReference runs clients that each reschedule themselves, in every
// spread, and checks every delivery against a naive reference queue: the order never depends
// on how the loop adapts its buckets.
func TestLoopSpreadsAgainstReference(t *testing.T) {
	for _, sp := range spreads {
		t.Run(sp.name, func(t *testing.T) {
			const clients, events = 300, 20_000
			r := rand.New(rand.NewPCG(7, 7))
			var (
				l       engine.Loop
				ref     []sched
				next    int32
				rounds  = make([]int, clients)
				checked int
			)
			l.Reset(0)
			l.SetResolution(sp.res)
			schedule := func(at time.Duration, actor int32) {
				l.At(at, actor, 0)
				ref = append(ref, sched{at: max(at, l.Now()), actor: actor})
				next++
			}
			for i := range clients {
				schedule(sp.delay(r, i, 0), int32(i))
			}
			for ev, ok := l.Step(); ok; ev, ok = l.Step() {
				expectNext(t, ev, &ref, checked)
				checked++
				if next < events {
					i := int(ev.Actor)
					rounds[i]++
					schedule(ev.At+sp.delay(r, i, rounds[i]), ev.Actor)
				}
			}
			if checked != events || l.Len() != 0 {
				t.Fatalf("delivered %d of %d events, %d left", checked, events, l.Len())
			}
		})
	}
}

// expectNext checks that ev, the i-th event delivered, is the earliest of the reference queue
// ref, and takes that one off it.
func expectNext(t *testing.T, ev engine.Event, ref *[]sched, i int) {
	t.Helper()
	var want sched
	want, *ref = takeEarliest(*ref)
	if ev.At != want.at || ev.Actor != want.actor {
		t.Fatalf("event %d = {At:%v Actor:%d}, want {At:%v Actor:%d}", i, ev.At, ev.Actor, want.at, want.actor)
	}
}

// TestLoopWorkPerEventBounded checks that scheduling and delivering an event costs the loop a
// bounded amount of work (Loop.Work, which counts nodes walked, moves and bitmap scans beside
// the events) in every spread, whatever resolution the world chose: before the loop adapted
// its buckets, a thousand clients in lockstep within microseconds walked hundreds of nodes per
// event.
func TestLoopWorkPerEventBounded(t *testing.T) {
	for _, sp := range spreads {
		const clients, events = 1000, 200_000
		r := rand.New(rand.NewPCG(1, 2))
		var l engine.Loop
		l.Reset(0)
		l.SetResolution(sp.res)
		rounds := make([]int, clients)
		for i := range clients {
			l.At(sp.delay(r, i, 0), int32(i), 0)
		}
		scheduled := clients
		for ev, ok := l.Step(); ok; ev, ok = l.Step() {
			if scheduled < events {
				i := int(ev.Actor)
				rounds[i]++
				l.After(sp.delay(r, i, rounds[i]), ev.Actor, 0)
				scheduled++
			}
		}
		perEvent := float64(l.Work()) / float64(l.Steps())
		t.Logf("%-50s work per event %.2f, resolution %v", sp.name, perEvent, l.Resolution())
		if perEvent > 2 {
			t.Errorf("%s: %.2f units of work per event, want at most 2", sp.name, perEvent)
		}
	}
}

// BenchmarkLoopSpreads measures the loop alone in every spread, with 1,000 clients rescheduling
// themselves: the CPU time per event and per unit of Loop.Work (which a world counts as its
// work), so that a budget in units of work means one amount of computing however a world's
// events are spread.
func BenchmarkLoopSpreads(b *testing.B) {
	for _, sp := range spreads {
		b.Run(sp.name, func(b *testing.B) {
			const clients = 1000
			r := rand.New(rand.NewPCG(1, 2))
			var l engine.Loop
			l.Reset(0)
			l.SetResolution(sp.res)
			rounds := make([]int, clients)
			delays := make([]time.Duration, 1<<16)
			for i := range delays {
				delays[i] = sp.delay(r, i%clients, i/clients)
			}
			for i := range clients {
				l.At(delays[i], int32(i), 0)
			}
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				ev, _ := l.Step()
				rounds[ev.Actor]++
				l.After(delays[(int(ev.Actor)+rounds[ev.Actor]*clients)&(len(delays)-1)], ev.Actor, 0)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(l.Work()), "ns/unit")
		})
	}
}

package engine_test

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/resilience-playground/playground/engine"
)

// sched is one call to Loop.At in a test script.
type sched struct {
	at    time.Duration
	actor int32
	kind  int32
}

// drain steps l until it stops, checking the clock and step counter along the way.
func drain(t *testing.T, l *engine.Loop) []engine.Event {
	t.Helper()
	var out []engine.Event
	for ev, ok := l.Step(); ok; ev, ok = l.Step() {
		if l.Now() != ev.At {
			t.Fatalf("after Step: Now() = %v, want event time %v", l.Now(), ev.At)
		}
		if len(out) > 0 && ev.At < out[len(out)-1].At {
			t.Fatalf("time ran backwards: %v after %v", ev.At, out[len(out)-1].At)
		}
		out = append(out, ev)
	}
	return out
}

func actors(evs []engine.Event) []int32 {
	out := make([]int32, len(evs))
	for i, ev := range evs {
		out[i] = ev.Actor
	}
	return out
}

func TestLoopOrder(t *testing.T) {
	tests := []struct {
		name string
		in   []sched
		want []int32 // actors in delivery order
	}{
		{"empty", nil, nil},
		{"single", []sched{{5, 0, 0}}, []int32{0}},
		{"ascending", []sched{{1, 0, 0}, {2, 1, 0}, {3, 2, 0}}, []int32{0, 1, 2}},
		{"descending", []sched{{3, 0, 0}, {2, 1, 0}, {1, 2, 0}}, []int32{2, 1, 0}},
		{"shuffled", []sched{{30, 0, 0}, {10, 1, 0}, {50, 2, 0}, {20, 3, 0}, {40, 4, 0}}, []int32{1, 3, 0, 4, 2}},
		{"all at zero keep FIFO", []sched{{0, 0, 0}, {0, 1, 0}, {0, 2, 0}, {0, 3, 0}, {0, 4, 0}}, []int32{0, 1, 2, 3, 4}},
		{"equal times keep FIFO", []sched{{7, 4, 0}, {7, 3, 0}, {7, 2, 0}, {7, 1, 0}, {7, 0, 0}}, []int32{4, 3, 2, 1, 0}},
		{
			"ties interleaved with other times",
			[]sched{{5, 0, 0}, {1, 1, 0}, {5, 2, 0}, {3, 3, 0}, {1, 4, 0}, {5, 5, 0}, {3, 6, 0}, {1, 7, 0}},
			[]int32{1, 4, 7, 3, 6, 0, 2, 5},
		},
		{
			"large times",
			[]sched{{time.Duration(1 << 62), 0, 0}, {time.Hour, 1, 0}, {time.Duration(1<<63 - 1), 2, 0}, {time.Nanosecond, 3, 0}},
			[]int32{3, 1, 0, 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l engine.Loop // the zero value is ready to use
			for _, s := range tc.in {
				l.At(s.at, s.actor, s.kind)
			}
			if l.Len() != len(tc.in) {
				t.Fatalf("Len() = %d, want %d", l.Len(), len(tc.in))
			}
			got := drain(t, &l)
			if !slices.Equal(actors(got), tc.want) {
				t.Errorf("delivery order = %v, want %v", actors(got), tc.want)
			}
			if l.Len() != 0 || l.Steps() != int64(len(tc.in)) || l.Exhausted() {
				t.Errorf("after drain: Len=%d Steps=%d Exhausted=%v, want 0, %d, false",
					l.Len(), l.Steps(), l.Exhausted(), len(tc.in))
			}
		})
	}
}

func TestLoopEventFields(t *testing.T) {
	var l engine.Loop
	l.At(20, 7, 3)
	l.At(10, -1, -2)
	want := []struct {
		at          time.Duration
		actor, kind int32
	}{{10, -1, -2}, {20, 7, 3}}
	for i, w := range want {
		ev, ok := l.Step()
		if !ok || ev.At != w.at || ev.Actor != w.actor || ev.Kind != w.kind {
			t.Fatalf("event %d = %+v, %v; want At=%v Actor=%d Kind=%d", i, ev, ok, w.at, w.actor, w.kind)
		}
	}
	if ev, ok := l.Step(); ok {
		t.Fatalf("Step on empty loop = %+v, true", ev)
	}
	if l.Now() != 20 {
		t.Errorf("Now() after a failed Step = %v, want 20 (unchanged)", l.Now())
	}
}

func TestLoopPastIsClampedToNow(t *testing.T) {
	var l engine.Loop
	l.At(100, 0, 0)
	l.At(100, 1, 0)
	l.At(500, 2, 0)
	if ev, _ := l.Step(); ev.Actor != 0 || l.Now() != 100 {
		t.Fatalf("first event = %+v at Now=%v, want actor 0 at 100", ev, l.Now())
	}
	// Now is 100 and actor 1 is still pending at 100.
	l.At(30, 3, 0)     // in the past: moved to 100, after actor 1 (scheduled earlier)
	l.After(-50, 4, 0) // negative delay: also 100
	l.After(0, 5, 0)   // exactly now
	l.At(-1, 6, 0)     // before the start of the run
	l.After(10, 7, 0)  // 110
	got := drain(t, &l)
	wantActors := []int32{1, 3, 4, 5, 6, 7, 2}
	wantTimes := []time.Duration{100, 100, 100, 100, 100, 110, 500}
	if !slices.Equal(actors(got), wantActors) {
		t.Fatalf("order = %v, want %v", actors(got), wantActors)
	}
	for i, ev := range got {
		if ev.At != wantTimes[i] {
			t.Errorf("event %d (actor %d) At = %v, want %v", i, ev.Actor, ev.At, wantTimes[i])
		}
	}
}

func TestLoopAfterIsRelativeToNow(t *testing.T) {
	var l engine.Loop
	l.After(10, 0, 0) // Now is 0
	l.Step()
	l.After(5, 1, 0)
	l.At(12, 2, 0)
	got := drain(t, &l)
	if !slices.Equal(actors(got), []int32{2, 1}) || got[0].At != 12 || got[1].At != 15 {
		t.Fatalf("got %+v, want actor 2 at 12 then actor 1 at 15", got)
	}
}

func TestLoopReset(t *testing.T) {
	var l engine.Loop
	l.Reset(2)
	for i := range 10 {
		l.At(time.Duration(100+i), int32(i), 0)
	}
	l.Step()
	l.Step()
	if !l.Exhausted() {
		t.Fatal("budget of 2 with 8 pending events: Exhausted() = false")
	}

	l.Reset(0)
	if l.Len() != 0 || l.Now() != 0 || l.Steps() != 0 || l.Exhausted() {
		t.Fatalf("after Reset: Len=%d Now=%v Steps=%d Exhausted=%v, want all zero",
			l.Len(), l.Now(), l.Steps(), l.Exhausted())
	}
	if ev, ok := l.Step(); ok {
		t.Fatalf("Step after Reset = %+v, true; want nothing pending", ev)
	}

	// Reuse: the old events are gone, the clock starts again at 0 (so time 5 is not in the
	// past), FIFO order holds for the new events, and the old budget no longer applies.
	l.At(5, 20, 0)
	l.At(5, 21, 0)
	l.At(1, 22, 0)
	l.At(5, 23, 0)
	got := drain(t, &l)
	if !slices.Equal(actors(got), []int32{22, 20, 21, 23}) {
		t.Fatalf("after reuse: order = %v, want [22 20 21 23]", actors(got))
	}
	if got[0].At != 1 || got[1].At != 5 {
		t.Fatalf("after reuse: times %v, %v; want 1, 5", got[0].At, got[1].At)
	}
	if l.Steps() != 4 || l.Exhausted() {
		t.Fatalf("after reuse: Steps=%d Exhausted=%v, want 4, false", l.Steps(), l.Exhausted())
	}
}

func TestLoopResetKeepsMemory(t *testing.T) {
	var l engine.Loop
	for i := range 256 {
		l.At(time.Duration(i), 0, 0)
	}
	allocs := testing.AllocsPerRun(100, func() {
		l.Reset(0)
		for i := range 256 {
			l.At(time.Duration(255-i), int32(i), 0)
		}
		for _, ok := l.Step(); ok; _, ok = l.Step() {
		}
	})
	if allocs != 0 {
		t.Errorf("Reset + refill to the same size + drain: %v allocs per run, want 0", allocs)
	}
}

func TestLoopBudget(t *testing.T) {
	tests := []struct {
		name          string
		budget        int64
		events        int // events scheduled up front, at times 1..events
		chain         int // if > 0, each delivered event schedules a follow-up until chain events were delivered
		wantSteps     int64
		wantExhausted bool
	}{
		{"no budget", 0, 5, 0, 5, false},
		{"budget below queue", 3, 5, 0, 3, true},
		{"budget of one", 1, 5, 0, 1, true},
		{"queue drains exactly at budget", 5, 5, 0, 5, false},
		{"budget above queue", 6, 5, 0, 5, false},
		{"budget on empty queue", 3, 0, 0, 0, false},
		{"self-scheduling world hits budget", 10, 1, 1000, 10, true},
		{"self-scheduling world ends exactly at budget", 10, 1, 10, 10, false},
		{"self-scheduling world ends before budget", 10, 1, 7, 7, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var l engine.Loop
			l.Reset(tc.budget)
			for i := range tc.events {
				l.At(time.Duration(i+1), int32(i), 0)
			}
			var delivered int64
			for ev, ok := l.Step(); ok; ev, ok = l.Step() {
				delivered++
				if tc.chain > 0 && delivered < int64(tc.chain) {
					l.After(time.Millisecond, ev.Actor, ev.Kind)
				}
			}
			if delivered != tc.wantSteps || l.Steps() != tc.wantSteps {
				t.Errorf("delivered %d, Steps() = %d; want %d", delivered, l.Steps(), tc.wantSteps)
			}
			if l.Exhausted() != tc.wantExhausted {
				t.Errorf("Exhausted() = %v, want %v (Len=%d)", l.Exhausted(), tc.wantExhausted, l.Len())
			}
			// A stopped loop stays stopped and does not move its clock.
			now, steps := l.Now(), l.Steps()
			if ev, ok := l.Step(); ok {
				t.Errorf("Step after the loop stopped = %+v, true", ev)
			}
			if l.Now() != now || l.Steps() != steps {
				t.Errorf("failed Step changed Now/Steps: %v/%d -> %v/%d", now, steps, l.Now(), l.Steps())
			}
		})
	}
}

// TestLoopRandomAgainstStableSort schedules 10k events up front, with many ties, and checks
// the delivery order against a stable sort of the scheduling order.
func TestLoopRandomAgainstStableSort(t *testing.T) {
	for _, span := range []int{1, 50, 5000, 1 << 40} {
		r := rand.New(rand.NewPCG(uint64(span), 99))
		const n = 10_000
		in := make([]sched, n)
		var l engine.Loop
		for i := range in {
			in[i] = sched{at: time.Duration(r.IntN(span)), actor: int32(i), kind: int32(r.IntN(4))}
			l.At(in[i].at, in[i].actor, in[i].kind)
		}
		want := append([]sched(nil), in...)
		sort.SliceStable(want, func(i, j int) bool { return want[i].at < want[j].at })

		got := drain(t, &l)
		if len(got) != n {
			t.Fatalf("span %d: delivered %d events, want %d", span, len(got), n)
		}
		for i, ev := range got {
			w := want[i]
			if ev.At != w.at || ev.Actor != w.actor || ev.Kind != w.kind {
				t.Fatalf("span %d: event %d = {At:%v Actor:%d Kind:%d}, want {At:%v Actor:%d Kind:%d}",
					span, i, ev.At, ev.Actor, ev.Kind, w.at, w.actor, w.kind)
			}
		}
	}
}

// TestLoopRandomInterleaved schedules events while stepping (including times in the past),
// against a naive reference: deliver the earliest pending event, the first scheduled on ties.
func TestLoopRandomInterleaved(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const total = 10_000
	var (
		l       engine.Loop
		ref     []sched // pending, in scheduling order
		now     time.Duration
		next    int32
		checked int
	)
	schedule := func(at time.Duration) {
		l.At(at, next, 0)
		if at < now {
			at = now
		}
		ref = append(ref, sched{at: at, actor: next})
		next++
	}
	for range 300 {
		schedule(time.Duration(r.IntN(100)))
	}
	for {
		ev, ok := l.Step()
		if !ok {
			break
		}
		var w sched
		w, ref = takeEarliest(ref)
		if ev.At != w.at || ev.Actor != w.actor {
			t.Fatalf("event %d = {At:%v Actor:%d}, want {At:%v Actor:%d}", checked, ev.At, ev.Actor, w.at, w.actor)
		}
		now = ev.At
		checked++
		for k := r.IntN(3); k > 0 && next < total; k-- {
			switch r.IntN(4) {
			case 0:
				schedule(now) // tie with whatever is pending now
			case 1:
				schedule(now - time.Duration(r.IntN(50))) // in the past
			default:
				schedule(now + time.Duration(r.IntN(40)))
			}
		}
	}
	if len(ref) != 0 || checked != int(next) {
		t.Fatalf("delivered %d of %d scheduled events, %d left in the reference", checked, next, len(ref))
	}
}

func TestLoopSteadyStateDoesNotAllocate(t *testing.T) {
	var l engine.Loop
	l.Reset(0)
	r := rand.New(rand.NewPCG(1, 1))
	for i := range 1000 {
		l.At(time.Duration(r.IntN(1000)), int32(i), 0)
	}
	// Warm up: the queue already holds its working size; run some cycles anyway.
	for range 1000 {
		ev, _ := l.Step()
		l.After(time.Duration(1+r.IntN(1000)), ev.Actor, ev.Kind)
	}
	delays := make([]time.Duration, 1024)
	for i := range delays {
		delays[i] = time.Duration(1 + r.IntN(1000))
	}
	i := 0
	allocs := testing.AllocsPerRun(10_000, func() {
		l.After(delays[i%len(delays)], int32(i), 1)
		l.Step()
		i++
	})
	if allocs != 0 {
		t.Errorf("schedule+step cycle: %v allocs per run, want 0", allocs)
	}
}

// BenchmarkLoop measures steady state with a resolution suited to the delays (an eighth of
// their mean: a handful of events a bucket) and with one as coarse as the delays themselves,
// where buckets hold hundreds of events and sorted insertion dominates.
func BenchmarkLoop(b *testing.B) {
	b.Run("res=mean/8", func(b *testing.B) { benchmarkLoop(b, time.Millisecond/8) })
	b.Run("res=mean", func(b *testing.B) { benchmarkLoop(b, time.Millisecond) })
}

func benchmarkLoop(b *testing.B, res time.Duration) {
	const pending = 1000
	r := rand.New(rand.NewPCG(1, 2))
	delays := make([]time.Duration, 4096) // power of two: index with a mask
	for i := range delays {
		// Exponential-ish delays around 1ms, as a network model would draw.
		delays[i] = time.Duration(1 + r.ExpFloat64()*float64(time.Millisecond))
	}
	var l engine.Loop
	l.Reset(0)
	l.SetResolution(res)
	for i := range pending {
		l.At(delays[i], int32(i), 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev, _ := l.Step()
		l.After(delays[i&(len(delays)-1)], ev.Actor, ev.Kind)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// TestLoopWheelAgainstReference schedules while stepping at several resolutions, so that events
// fall in the current bucket, in later buckets, around the wheel (wrap-around) and beyond its
// horizon (the far heap), with ties and times in the past; it checks every delivery against a
// naive reference and that Reset leaves nothing behind.
func TestLoopWheelAgainstReference(t *testing.T) {
	for _, res := range []time.Duration{1, 7, 1000, time.Millisecond} {
		r := rand.New(rand.NewPCG(uint64(res), 5))
		var l engine.Loop
		for round := range 2 { // the second round checks Reset
			l.Reset(0)
			l.SetResolution(res)
			var (
				ref     []sched
				now     time.Duration
				next    int32
				checked int
			)
			schedule := func(at time.Duration) {
				l.At(at, next, 0)
				ref = append(ref, sched{at: max(at, now), actor: next})
				next++
			}
			delay := func() time.Duration {
				switch r.IntN(10) {
				case 0:
					return 0
				case 1:
					return time.Duration(r.Int64N(int64(res) * 20000)) // past the horizon
				default:
					return time.Duration(r.Int64N(int64(res) * 50))
				}
			}
			for range 200 {
				schedule(delay())
			}
			for {
				ev, ok := l.Step()
				if !ok {
					break
				}
				var w sched
				w, ref = takeEarliest(ref)
				if ev.At != w.at || ev.Actor != w.actor {
					t.Fatalf("res %v round %d: event %d = {At:%v Actor:%d}, want {At:%v Actor:%d}", res, round, checked, ev.At, ev.Actor, w.at, w.actor)
				}
				now = ev.At
				checked++
				for k := r.IntN(3); k > 0 && next < 5000; k-- {
					if r.IntN(8) == 0 {
						schedule(now - time.Duration(r.IntN(50)))
					} else {
						schedule(now + delay())
					}
				}
			}
			if len(ref) != 0 || l.Len() != 0 {
				t.Fatalf("res %v: %d left in the reference, Len %d", res, len(ref), l.Len())
			}
		}
	}
}

// takeEarliest is the naive reference queue: it removes and returns the earliest of pending,
// the first scheduled on ties (pending is in scheduling order).
func takeEarliest(pending []sched) (sched, []sched) {
	best := 0
	for i := range pending {
		if pending[i].at < pending[best].at {
			best = i
		}
	}
	w := pending[best]
	return w, append(pending[:best], pending[best+1:]...)
}

package backoff_test

import (
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

// recorder is a Policy that records its arguments and returns attempt·1ms.
type recorder struct{ calls *[][2]int64 }

func (p recorder) Sleep(attempt int, prev time.Duration, r backoff.Rand) time.Duration {
	*p.calls = append(*p.calls, [2]int64{int64(attempt), int64(prev)})
	return time.Duration(attempt) * ms
}

func TestSequenceArguments(t *testing.T) {
	var calls [][2]int64
	s := backoff.Sequence{Policy: recorder{&calls}}
	for range 3 {
		s.Next()
	}
	if s.Attempt() != 3 {
		t.Errorf("Attempt() = %d, want 3", s.Attempt())
	}
	s.Reset()
	if s.Attempt() != 0 {
		t.Errorf("after Reset, Attempt() = %d, want 0", s.Attempt())
	}
	s.Next()
	want := [][2]int64{{1, 0}, {2, int64(1 * ms)}, {3, int64(2 * ms)}, {1, 0}}
	if len(calls) != len(want) {
		t.Fatalf("calls = %v, want %v", calls, want)
	}
	for i := range want {
		if calls[i] != want[i] {
			t.Errorf("call %d: (attempt, prev) = %v, want %v", i, calls[i], want[i])
		}
	}
}

func TestSequence(t *testing.T) {
	tests := []struct {
		name  string
		p     backoff.Policy
		draws []float64
		want  []time.Duration
	}{
		{"exponential", backoff.Exponential{Base: 100 * ms, Cap: time.Second}, nil,
			[]time.Duration{200 * ms, 400 * ms, 800 * ms, time.Second, time.Second}},
		{"linear", backoff.Linear{Base: 100 * ms}, nil,
			[]time.Duration{100 * ms, 200 * ms, 300 * ms}},
		{"full", backoff.FullJitter{Base: 100 * ms}, []float64{0.5, 0.25, 0},
			[]time.Duration{100 * ms, 100 * ms, 0}},
		// Each sleep is fed back as prev: U(100ms, 3·prev) with u = 0.5.
		{"decorrelated", backoff.Decorrelated{Base: 100 * ms, Cap: time.Second}, []float64{0.5, 0.5, 0.5, 0.5, 0.5, 0},
			[]time.Duration{200 * ms, 350 * ms, 575 * ms, 912500 * time.Microsecond, time.Second, 100 * ms}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Run twice, with a Reset in between: the sequence starts over.
			vals := append(append([]float64(nil), tt.draws...), tt.draws...)
			s := backoff.Sequence{Policy: tt.p, Rand: &script{vals}}
			for round := range 2 {
				for i, want := range tt.want {
					if got := s.Next(); got != want {
						t.Errorf("round %d, Next #%d = %v, want %v", round, i+1, got, want)
					}
					if s.Attempt() != i+1 {
						t.Errorf("round %d: Attempt() = %d, want %d", round, s.Attempt(), i+1)
					}
				}
				s.Reset()
			}
		})
	}
}

func TestSequenceZeroValue(t *testing.T) {
	var s backoff.Sequence
	for i := 1; i <= 3; i++ {
		if d := s.Next(); d != 0 {
			t.Errorf("Next() = %v, want 0 for a nil Policy", d)
		}
		if s.Attempt() != i {
			t.Errorf("Attempt() = %d, want %d", s.Attempt(), i)
		}
	}
}

func TestSequenceGlobalRand(t *testing.T) {
	s := backoff.Sequence{Policy: backoff.FullJitter{Base: 100 * ms}}
	for i := 1; i <= 5; i++ {
		v := backoff.Exponential{Base: 100 * ms}.Sleep(i, 0, nil)
		if d := s.Next(); d < 0 || d > v {
			t.Errorf("Next #%d = %v, want within [0, %v]", i, d, v)
		}
	}
}

func TestSequenceDoesNotAllocate(t *testing.T) {
	s := backoff.Sequence{Policy: backoff.Decorrelated{Base: ms, Cap: time.Second}, Rand: fixed(0.5)}
	if allocs := testing.AllocsPerRun(100, func() { sink = s.Next() }); allocs != 0 {
		t.Errorf("%v allocs per Next, want 0", allocs)
	}
	s.Rand = nil
	if allocs := testing.AllocsPerRun(100, func() { sink = s.Next() }); allocs != 0 {
		t.Errorf("%v allocs per Next with the global source, want 0", allocs)
	}
}

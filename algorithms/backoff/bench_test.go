package backoff_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

var sink time.Duration

var benchPolicies = []struct {
	name string
	p    backoff.Policy
}{
	{"none", backoff.None{}},
	{"constant", backoff.Constant{Delay: 100 * ms}},
	{"linear", backoff.Linear{Base: 5 * ms, Cap: 2 * time.Second}},
	{"exponential", backoff.Exponential{Base: 5 * ms, Cap: 2 * time.Second}},
	{"full", backoff.FullJitter{Base: 5 * ms, Cap: 2 * time.Second}},
	{"equal", backoff.EqualJitter{Base: 5 * ms, Cap: 2 * time.Second}},
	{"decorrelated", backoff.Decorrelated{Base: 5 * ms, Cap: 2 * time.Second}},
}

// BenchmarkSleep measures one Sleep per policy with a *rand.Rand source
// (PCG), cycling attempts 1 to 16 and feeding each sleep back as prev.
func BenchmarkSleep(b *testing.B) {
	for _, bc := range benchPolicies {
		b.Run(bc.name, func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 2))
			b.ReportAllocs()
			var prev time.Duration
			i := 0
			for b.Loop() {
				prev = bc.p.Sleep(i&15+1, prev, r)
				i++
			}
			sink = prev
		})
	}
}

// BenchmarkSequenceNext measures Sequence.Next with full jitter.
func BenchmarkSequenceNext(b *testing.B) {
	s := backoff.Sequence{
		Policy: backoff.FullJitter{Base: 5 * ms, Cap: 2 * time.Second},
		Rand:   rand.New(rand.NewPCG(1, 2)),
	}
	b.ReportAllocs()
	for b.Loop() {
		if s.Attempt() == 16 {
			s.Reset()
		}
		sink = s.Next()
	}
}

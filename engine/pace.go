package engine

import (
	"context"
	"time"
)

// A Pacer shares a server's CPUs among the runs it computes. A worker asks it for a quantum
// of computing (Acquire), computes for about [Quantum], and hands the quantum back with the
// time it used (Release). The playground's hub gives each run its own Pacer, so that a light
// scenario is not kept waiting behind heavy ones, and stops a run that computes too long.
//
// Pacing never changes results: it only decides when work runs, never what it computes.
type Pacer interface {
	// Acquire waits until the caller may compute. It returns ctx's error if ctx ends first,
	// or the pacer's own error if the run may compute no more.
	Acquire(ctx context.Context) error
	// Release ends a quantum begun by a successful Acquire; used is how long it computed.
	Release(used time.Duration)
}

// Quantum is about how long a worker computes between two calls of its Pacer: short enough
// that a newly started run gets a CPU within milliseconds, long enough that asking costs
// nothing measurable.
const Quantum = 5 * time.Millisecond

type pacerKey struct{}

// WithPacer returns a context whose work — [Trials] and [Pace] — is paced by p.
func WithPacer(ctx context.Context, p Pacer) context.Context {
	return context.WithValue(ctx, pacerKey{}, p)
}

// PacerOf returns the Pacer of ctx, or nil.
func PacerOf(ctx context.Context) Pacer {
	p, _ := ctx.Value(pacerKey{}).(Pacer)
	return p
}

// Pace runs f as paced work of ctx: after its Pacer, if it has one, admits it. f should take
// about a Quantum; longer work is better split into several calls.
func Pace(ctx context.Context, f func() error) error {
	p := PacerOf(ctx)
	if p == nil {
		if err := ctx.Err(); err != nil {
			return err
		}
		return f()
	}
	if err := p.Acquire(ctx); err != nil {
		return err
	}
	start := time.Now()
	defer func() { p.Release(time.Since(start)) }()
	return f()
}

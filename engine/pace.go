package engine

import (
	"context"
	"runtime"
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
	// Release ends a quantum begun by a successful Acquire; used is how long it computed: the
	// CPU time of the worker's thread where the system can tell, else wall time.
	Release(used time.Duration)
}

// A WallPacer is a Pacer that wants computing measured in wall time rather than thread CPU
// time: a test whose work is simulated by sleeping on a fake clock, say.
type WallPacer interface {
	Pacer
	Wall() bool
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
	var m meter
	m.start(p)
	defer func() { p.Release(m.stop()) }()
	return f()
}

// meter measures the computing of a stretch of work on one goroutine: the CPU time of its
// thread, to which it is locked meanwhile, where the system can tell; wall time elsewhere.
// On a busy machine wall time would count the time other processes held the CPU.
type meter struct {
	wall   time.Time
	cpu    time.Duration
	cpuOK  bool
	locked bool
}

func (m *meter) start(p Pacer) {
	m.wall = time.Now()
	if wp, ok := p.(WallPacer); ok && wp.Wall() {
		return
	}
	runtime.LockOSThread()
	m.locked = true
	m.cpu, m.cpuOK = threadCPU()
}

func (m *meter) stop() time.Duration {
	d := time.Since(m.wall)
	if m.cpuOK {
		if cpu, ok := threadCPU(); ok && cpu >= m.cpu {
			d = cpu - m.cpu
		}
	}
	if m.locked {
		runtime.UnlockOSThread()
		m.locked = false
	}
	return d
}

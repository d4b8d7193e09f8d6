package backoff

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
	"github.com/resilience-playground/playground/engine"
)

// World is the contention model of Brooker's reference simulator: N clients, one database row
// under optimistic concurrency, and a network whose every one-way hop takes
// |Normal(mean, sd)|.
//
// A read returns the row's version at once. A write succeeds only if the client's version
// equals the current one (which then increases by 1); otherwise it fails. There is no queueing
// or processing time. Every client starts at t=0 and needs one successful write; an attempt is
// a read (hop there, hop back) then a write (hop there, hop back). After a failed write the
// client's attempt count increases by 1 (so the first retry uses attempt 1) and its next read
// leaves after the policy's sleep.
//
// A World is reused across simulations to avoid allocation; it is not safe for concurrent use.
type World struct {
	loop    engine.Loop
	clients []client
	work    int64 // of the last simulation, see Work
}

type client struct {
	net, jit engine.Source // network delays, jitter draws
	attempt  int
	prev     time.Duration
	readAt   time.Duration // when the current attempt's read reaches the server
}

// The reference simulator has four events per attempt (read at the server, its reply at the
// client, write at the server, its reply). A client does nothing between receiving a reply and
// sending its next request, and versions only increase, so a write succeeds exactly when no
// successful write reached the server between its read and itself. One event per attempt — the
// write reaching the server — is then enough: the read's time is computed when the attempt is
// scheduled, the hops are drawn from the client's stream in the reference's order, and the
// kernel does a quarter of the reference's work. A read at the same instant as a successful
// write sees that write.
const writeAtServer int32 = 0

// Config is one simulation.
type Config struct {
	Clients     int
	Policy      backoff.Policy
	LatencyMean time.Duration
	LatencySD   time.Duration
	Seed        uint64
	Trial       int
	MaxEvents   int64 // event budget; 0 means none
}

// Outcome is what one simulation measured.
type Outcome struct {
	Writes     int64         // write calls, failed or not (the post's "work")
	Completion time.Duration // until the last client's successful write reached it
}

// Simulate runs one simulation. Each client's network delays and jitter draws come from streams
// keyed by (seed, trial, client), so every policy simulated for the same trial sees the same
// network (common random numbers). When hist is not nil every write's time is added to it.
func (w *World) Simulate(ctx context.Context, cfg Config, hist *engine.Histogram) (Outcome, error) {
	n := cfg.Clients
	for len(w.clients) < n {
		w.clients = append(w.clients, client{})
	}
	mean, sd := float64(cfg.LatencyMean), float64(cfg.LatencySD)
	hop := func(x float64) time.Duration { return time.Duration(math.Abs(mean + sd*x)) }
	var x [3]float64 // the next three hops' normal draws
	l := &w.loop
	l.Reset(cfg.MaxEvents)
	// About one event a bucket: clients in lockstep bunch their writes within a hop's spread, and
	// a bucket's list is cheapest when short; the wheel still covers about 2s at the default latency.
	l.SetResolution(max((cfg.LatencyMean+cfg.LatencySD)/64, time.Microsecond))
	net := engine.NewSeeder(cfg.Seed, engine.Network, uint64(cfg.Trial))
	jit := engine.NewSeeder(cfg.Seed, engine.Jitter, uint64(cfg.Trial))
	for i := 0; i < n; i++ {
		c := &w.clients[i]
		net.Seed(&c.net, uint64(i))
		jit.Seed(&c.jit, uint64(i))
		c.attempt, c.prev = 0, 0
		c.net.Normals(x[:])
		c.readAt = hop(x[0])
		l.At(c.readAt+hop(x[1])+hop(x[2]), int32(i), writeAtServer)
	}
	var (
		lastWin time.Duration = -1 // when the last successful write reached the server
		out     Outcome
	)
	for ev, ok := l.Step(); ok; ev, ok = l.Step() {
		if l.Steps()&0x3fff == 0 && ctx.Err() != nil {
			return Outcome{}, ctx.Err()
		}
		c := &w.clients[ev.Actor]
		now := l.Now()
		out.Writes++
		if hist != nil {
			hist.Add(now)
		}
		back := hop(c.net.Normal())
		if lastWin <= c.readAt {
			lastWin = now
			out.Completion = max(out.Completion, now+back)
			continue
		}
		c.attempt++
		c.prev = cfg.Policy.Sleep(c.attempt, c.prev, &c.jit)
		c.net.Normals(x[:])
		c.readAt = now + back + c.prev + hop(x[0])
		l.At(c.readAt+hop(x[1])+hop(x[2]), ev.Actor, writeAtServer)
	}
	if l.Exhausted() {
		return Outcome{}, fmt.Errorf("simulation of %d clients stopped after %d events: %w", n, cfg.MaxEvents, engine.ErrBudget)
	}
	w.work = l.Work() + int64(n)
	if usesPow(cfg.Policy) {
		w.work += l.Steps() / 2
	}
	return out, nil
}

// Work returns the work of the last complete simulation, in the units of the server's budget
// (see cost.go): the loop's (one per write attempt, and the queue's own work beyond that, see
// engine.Loop.Work), one per client set up, and half a unit more per attempt whose sleep
// takes a power (a multiplier other than 2, which math.Pow computes in some 30 ns).
func (w *World) Work() int64 { return w.work }

// usesPow reports whether p's sleeps take a power of a multiplier other than 2.
func usesPow(p backoff.Policy) bool {
	var m float64
	switch p := p.(type) {
	case backoff.Exponential:
		m = p.Multiplier
	case backoff.FullJitter:
		m = p.Multiplier
	case backoff.EqualJitter:
		m = p.Multiplier
	default:
		return false
	}
	return m != 2 && m != 0
}

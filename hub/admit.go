package hub

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// admission runs the work budget's estimates ([Hub.Admit]) and keeps their verdicts.
type admission struct {
	cpus     *cpus
	wall     bool
	verdicts *lab.Cache[error] // by key (the canonical URL); nil: admitted
	slots    chan struct{}     // estimates computing at once

	mu      sync.Mutex
	clients map[string]*estimator // by client
}

// estimator is one client's estimates: one at a time, paced by the hub's CPUs with the
// client's computing on estimates so far as its key.
type estimator struct {
	turn  chan struct{}
	share *share
	users int // estimates of the client in flight or waiting
}

// Bounds of the admission: verdicts kept (a few hundred bytes each), and clients whose
// estimating so far is remembered.
const (
	verdictsKept  = 4096
	maxEstimators = 4096
)

func (a *admission) init(c *cpus, n int, wall bool) {
	a.cpus, a.wall = c, wall
	a.verdicts = lab.NewCache[error](verdictsKept)
	a.slots = make(chan struct{}, max(1, n/2))
	a.clients = map[string]*estimator{}
}

// Admit returns nil when scenario v of l fits the hub's work budget and the memory bound
// (lab.Lab.CheckBudget), or the *param.Error saying what to lower. The verdict is kept by
// canonical URL: asking again costs nothing. An estimate runs as client's work: one of a
// client's at a time, at most half the hub's CPUs estimating at once, each on a CPU of the
// hub's asked for with the client's computing on estimates so far as its place in the queue
// (see "Fairness") — so a client whose estimates are heavy waits behind everyone else's runs
// and estimates, not they behind it. It returns ctx's error when ctx ends while it waits.
func (h *Hub) Admit(ctx context.Context, client string, l *lab.Lab, v param.Values) error {
	a := &h.admit
	key := Key(l, v)
	if err, ok := a.verdict(key); ok {
		return err
	}
	e := a.enter(client)
	defer a.leave(client, e)
	select {
	case e.turn <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-e.turn }()
	select {
	case a.slots <- struct{}{}:
	case <-ctx.Done():
		return ctx.Err()
	}
	defer func() { <-a.slots }()
	if err, ok := a.verdict(key); ok { // estimated meanwhile, for another connection
		return err
	}
	var verdict error
	err := engine.Pace(engine.WithPacer(ctx, e.share), func() error {
		verdict = l.CheckBudget(v, h.cfg.Budget)
		return nil
	})
	if err != nil {
		return err
	}
	if pe := (*param.Error)(nil); verdict == nil || errors.As(verdict, &pe) {
		a.verdicts.Put(key, verdict)
	}
	return copyErr(verdict)
}

// verdict returns the verdict kept for key, a copy the caller may change.
func (a *admission) verdict(key string) (error, bool) {
	err, ok := a.verdicts.Get(key)
	return copyErr(err), ok
}

// copyErr returns a copy of a *param.Error, err itself otherwise.
func copyErr(err error) error {
	pe, ok := err.(*param.Error)
	if !ok {
		return err
	}
	c := *pe
	c.Params = slices.Clone(pe.Params)
	return &c
}

// enter returns client's estimator, counting one more user.
func (a *admission) enter(client string) *estimator {
	a.mu.Lock()
	defer a.mu.Unlock()
	e, ok := a.clients[client]
	if !ok {
		if len(a.clients) >= maxEstimators {
			for c, x := range a.clients {
				if x.users == 0 {
					delete(a.clients, c) // it starts afresh if it comes back
				}
			}
		}
		e = &estimator{turn: make(chan struct{}, 1), share: &share{cpus: a.cpus, wall: a.wall}}
		a.clients[client] = e
	}
	e.users++
	return e
}

// leave counts one user of client's estimator less.
func (a *admission) leave(client string, e *estimator) {
	a.mu.Lock()
	defer a.mu.Unlock()
	e.users--
}

package api

import (
	"fmt"
	"sync"
	"time"

	"github.com/resilience-playground/playground/algorithms/ratelimit"
)

// perClient is a rate limit per client (see clientOf): a token bucket of package ratelimit
// each, kept as its 16-byte state ([ratelimit.TokenBucketRule.Update] on a caller-supplied
// time). A client whose bucket has refilled is forgotten — a full bucket is the zero state,
// what a client never seen has — so the map holds only clients limited lately; it holds at
// most maxClients, and when it is full of clients still limited, new clients are refused until
// some bucket refills. Requests of no client ("", not over IP) are not limited.
type perClient struct {
	rule ratelimit.TokenBucketRule
	what string // what is limited, for the message: "rooms opened", …

	mu     sync.Mutex
	states map[string]ratelimit.TokenBucketState
}

// maxClients is the most clients a perClient tracks: about 5 MB.
const maxClients = 100_000

// newPerClient returns a limit of burst at once, refilled one per every.
func newPerClient(what string, burst int, every time.Duration) *perClient {
	return &perClient{rule: ratelimit.NewTokenBucketRule(ratelimit.Limit{Count: 1, Per: every}, burst), what: what,
		states: map[string]ratelimit.TokenBucketState{}}
}

// rateError refuses a request over a client's rate limit: 429 with Retry-After.
type rateError struct {
	msg   string
	retry time.Duration
}

func (e *rateError) Error() string { return e.msg }

// retrySeconds is how long a client is told to wait, in whole seconds, at least one.
func (e *rateError) retrySeconds() int { return max(1, int((e.retry+time.Second-1)/time.Second)) }

// allow takes a token of client's bucket at now, or returns a *rateError saying when to retry.
func (p *perClient) allow(client string, now time.Time) error { return p.decide(client, now, true) }

// check returns the *rateError allow would, taking nothing.
func (p *perClient) check(client string, now time.Time) error { return p.decide(client, now, false) }

func (p *perClient) decide(client string, now time.Time, take bool) error {
	if client == "" {
		return nil
	}
	t := now.UnixNano()
	p.mu.Lock()
	defer p.mu.Unlock()
	st, known := p.states[client]
	if !known && len(p.states) >= maxClients {
		p.forgetFull(t)
		if len(p.states) >= maxClients {
			return &rateError{msg: fmt.Sprintf("too many %s from too many addresses; try again shortly", p.what), retry: p.rule.Limit().Per}
		}
	}
	if d := p.rule.Delay(st, t); d > 0 {
		e := &rateError{retry: d}
		e.msg = fmt.Sprintf("too many %s from this address (at most %d at once, then one every %v); try again in %d s",
			p.what, p.rule.Burst(), p.rule.Limit().Per, e.retrySeconds())
		return e
	}
	if take {
		p.rule.Update(&st, t, 1)
		p.states[client] = st
	}
	return nil
}

// forgetFull forgets the clients whose buckets have refilled by t; p.mu is held.
func (p *perClient) forgetFull(t int64) {
	for c, st := range p.states {
		if p.rule.Estimate(st, t) == 0 {
			delete(p.states, c)
		}
	}
}

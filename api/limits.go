package api

import (
	"errors"
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

// openStreams counts the open streams, labs' and rooms', in all and per client, so that no
// client — and no crowd of clients — can hold more streams than the server can keep: each
// holds a connection's descriptor, three goroutines and its buffers (issue 33: 8,000 idle
// streams from one address held 362 MB; 20,000 ran out of descriptors, and health probes and
// metrics went unanswered). A stream beyond a cap is refused before the upgrade: 429 for the
// client's, 503 for the server's, each with Retry-After.
type openStreams struct {
	max, perClient int

	mu       sync.Mutex
	total    int
	byClient map[string]int
}

// Defaults of Config.MaxStreams and Config.MaxClientStreams: a lecture hall behind one
// address, or the load tool's 300 viewers, fits a client's; the server's, some 100 MB of
// streams, sits under the memory the server is given beside its runs.
const (
	DefaultMaxStreams       = 2048
	DefaultMaxClientStreams = 512
)

// streamsRetrySeconds is how long a client refused a stream is told to wait.
const streamsRetrySeconds = 5

// errStreamsFull refuses a stream when the server holds Config.MaxStreams.
var errStreamsFull = errors.New("the server holds as many open streams as it can; try again shortly")

func newOpenStreams(total, perClient int) *openStreams {
	return &openStreams{max: total, perClient: perClient, byClient: map[string]int{}}
}

// open counts a new stream of client, or refuses it: a *rateError when the client holds
// perClient streams, errStreamsFull when the server holds max. The stream's handler calls
// the release returned once it has closed. Streams of no client ("", not over IP) count
// towards the server's cap only.
func (o *openStreams) open(client string) (release func(), err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case client != "" && o.byClient[client] >= o.perClient:
		return nil, &rateError{retry: streamsRetrySeconds * time.Second,
			msg: fmt.Sprintf("this address has %d streams open, as many as the server allows one address; close some (other tabs, other windows) or try again later", o.byClient[client])}
	case o.total >= o.max:
		return nil, errStreamsFull
	}
	o.total++
	if client != "" {
		o.byClient[client]++
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			o.mu.Lock()
			defer o.mu.Unlock()
			o.total--
			if client != "" {
				if o.byClient[client]--; o.byClient[client] <= 0 {
					delete(o.byClient, client)
				}
			}
		})
	}, nil
}

package main

import (
	"math/rand/v2"
	"net/url"
	"strconv"
	"sync"
	"time"
)

// space is the bounded set of scenarios viewers move through: the presenter's base query with
// clients, strategies and seed varied over a few values each, so that results repeat and the
// server's cache and shared runs can serve them.
type space struct {
	base    url.Values
	clients []int
	sets    []string
	seeds   int
}

// point is a position in the space, by index.
type point struct {
	client, set, seed int // seed is 0-based: the query's seed is seed+1
}

// start is the presenter's scenario: the base query's own clients (or the middle of the
// range), the first strategy set and seed 1.
func (sp *space) start() point {
	p := point{client: len(sp.clients) / 2}
	if c, err := strconv.Atoi(sp.base.Get("clients")); err == nil {
		for i, v := range sp.clients {
			if v == c {
				p.client = i
			}
		}
	}
	return p
}

// query is the stream query of p.
func (sp *space) query(p point) string {
	q := url.Values{}
	for k, v := range sp.base {
		q[k] = v
	}
	q.Set("clients", strconv.Itoa(sp.clients[p.client]))
	q.Set("strategies", sp.sets[p.set])
	q.Set("seed", strconv.Itoa(p.seed+1))
	return q.Encode()
}

// step is one message of a gesture: the point to send, after waiting for gap.
type step struct {
	p   point
	gap time.Duration
}

// gesture returns the messages of one human gesture from p: mostly a drag of clients by one
// to four steps (one message per slider position, 40–120ms apart), sometimes a toggle of the
// strategies or a new seed (one message). With jump, it goes straight to a uniformly random
// point instead.
func (sp *space) gesture(p point, jump bool, rng *rand.Rand) []step {
	if jump {
		q := point{client: rng.IntN(len(sp.clients)), set: rng.IntN(len(sp.sets)), seed: rng.IntN(sp.seeds)}
		return []step{{p: q}}
	}
	r := rng.Float64()
	switch {
	case r < 0.8 || (len(sp.sets) < 2 && sp.seeds < 2):
		if len(sp.clients) < 2 {
			return []step{{p: p}}
		}
		n, dir := 1+rng.IntN(4), 1
		if rng.IntN(2) == 0 {
			dir = -1
		}
		var out []step
		for i := range n {
			next := p.client + dir
			if next < 0 || next >= len(sp.clients) { // bounce off the end of the slider
				dir = -dir
				next = p.client + dir
			}
			p.client = next
			gap := time.Duration(0)
			if i > 0 {
				gap = time.Duration(40+rng.IntN(81)) * time.Millisecond
			}
			out = append(out, step{p: p, gap: gap})
		}
		return out
	case r < 0.9 && len(sp.sets) > 1 || sp.seeds < 2:
		p.set = (p.set + 1 + rng.IntN(len(sp.sets)-1)) % len(sp.sets)
	default:
		p.seed = (p.seed + 1 + rng.IntN(sp.seeds-1)) % sp.seeds
	}
	return []step{{p: p}}
}

// presenter is the shared position viewers follow in the presenter scenarios: it moves by one
// gesture every think time (randomized ±50%).
type presenter struct {
	mu sync.Mutex
	p  point
}

func (pr *presenter) get() point {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	return pr.p
}

func (pr *presenter) set(p point) {
	pr.mu.Lock()
	pr.p = p
	pr.mu.Unlock()
}

// jitter returns d randomized uniformly within ±50%.
func jitter(d time.Duration, rng *rand.Rand) time.Duration {
	return d/2 + time.Duration(rng.Int64N(int64(d)+1))
}

// newRand returns a randomly seeded generator for one goroutine.
func newRand() *rand.Rand { return rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }

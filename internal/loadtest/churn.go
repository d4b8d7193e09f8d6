package loadtest

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"
)

// churn runs the churn cycles, ChurnConcurrency at a time, until all are done or the duration
// has passed: connect, send one to three parameter changes, linger up to 200ms, then vanish by
// dropping the connection without a close handshake and without reading a reply.
func (t *tester) churn(ctx context.Context) {
	stopAt := time.Now().Add(t.cfg.Duration)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(t.cfg.ChurnConcurrency, t.cfg.Churn) {
		wg.Go(func() {
			rng := newRand()
			for next.Add(1) <= int64(t.cfg.Churn) && ctx.Err() == nil && time.Now().Before(stopAt) {
				t.churnCycle(ctx, rng)
			}
		})
	}
	wg.Wait()
}

func (t *tester) churnCycle(ctx context.Context, rng *rand.Rand) {
	t.rec.add(func(c *Counts) { c.ChurnCycles++ })
	c, err := t.dial(ctx)
	if err != nil {
		if ctx.Err() == nil {
			t.rec.fail(errDial, err.Error())
		}
		return
	}
	defer c.CloseNow()
	// Changes as a fresh viewer makes them: its first scenario, then a quick drag.
	at := t.space.start()
	if rng.IntN(2) == 0 {
		at = t.space.gesture(at, true, rng)[0].p
	}
	steps := append([]step{{p: at}}, t.space.gesture(at, false, rng)...)
	steps = steps[:1+rng.IntN(min(3, len(steps)))]
	for i, s := range steps {
		if s.gap > 0 {
			time.Sleep(s.gap)
		}
		if err := t.t.send(ctx, c, params{Type: "params", ID: int64(i + 1), Query: t.space.query(s.p)}); err != nil {
			if ctx.Err() == nil {
				t.rec.fail(errSend, "send: "+err.Error())
			}
			return
		}
		t.rec.add(func(c *Counts) { c.Sent++ })
	}
	time.Sleep(time.Duration(rng.IntN(201)) * time.Millisecond)
	if err := c.CloseNow(); err == nil {
		t.rec.add(func(c *Counts) { c.ChurnVanished++ })
	}
}

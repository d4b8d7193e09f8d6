package loadtest

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"
)

// The room and stream attacks (issue 33), and the fresh viewers who measure them.

// roomRuns opens Conns rooms of the scenario from one address and presents each, sending a
// fresh seed at each done of the room's run, while two streams of that address run the
// scenario too, the next at each done: every run the address asks for, through rooms or not,
// is charged to it.
func roomRuns(ctx context.Context, a *attack, o *outcomes, u string) {
	lab, q, err := viewerQuery(u)
	if err != nil {
		a.protocol(o.name, "%v", err)
		return
	}
	t := a.on(o.name)
	var wg sync.WaitGroup
	defer wg.Wait()
	for range 2 {
		wg.Go(func() {
			for ctx.Err() == nil {
				a.streamOnce(ctx, o, t, lab, q, "stream")
			}
		})
	}
	var once sync.Once
	for range a.cfg.Conns {
		wg.Go(func() {
			rm, ok := a.createUnder(ctx, o, t, u)
			if !ok {
				return
			}
			for ctx.Err() == nil {
				a.presentRuns(ctx, o, t, rm, q, func() { once.Do(o.ready) })
			}
		})
	}
}

// streamOnce dials a lab stream from t and runs scenario q with a fresh seed at each done
// until the connection ends.
func (a *attack) streamOnce(ctx context.Context, o *outcomes, t *target, lab string, q url.Values, what string) {
	c, ok := a.dialFrom(ctx, o, t, labStream(lab))
	if !ok {
		return
	}
	defer c.CloseNow()
	vals := cloneValues(q)
	for id := int64(1); ctx.Err() == nil; id++ {
		vals.Set("seed", a.fresh())
		o.addSent()
		v, err := a.visit(ctx, c, id, vals.Encode())
		o.visited(v)
		if err != nil {
			a.ended(ctx, o, what, err)
			return
		}
	}
}

// createUnder creates a room of u from t, trying again while the server says 429 or 503.
func (a *attack) createUnder(ctx context.Context, o *outcomes, t *target, u string) (created, bool) {
	for ctx.Err() == nil {
		o.addSent()
		rm, err := t.createRoom(ctx, u)
		if err == nil {
			o.add("room created")
			return rm, true
		}
		var se *statusError
		if !errors.As(err, &se) || se.code != http.StatusTooManyRequests && se.code != http.StatusServiceUnavailable {
			if ctx.Err() == nil {
				a.protocol(o.name, "%v", err)
			}
			return created{}, false
		}
		o.add("room " + strconv.Itoa(se.code))
		o.sample(err.Error())
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
	}
	return created{}, false
}

// presentRuns presents room rm on a new connection from t and changes its scenario to q with
// a fresh seed at each done of the room's run, until the connection ends.
func (a *attack) presentRuns(ctx context.Context, o *outcomes, t *target, rm created, q url.Values, started func()) {
	c, ok := a.dialFrom(ctx, o, t, roomStream(rm.Code))
	if !ok {
		return
	}
	defer c.CloseNow()
	if err := t.present(ctx, c, rm); err != nil {
		if ctx.Err() == nil {
			a.protocol(o.name, "%v", err)
		}
		return
	}
	vals := cloneValues(q)
	version := int64(-1) // the room's version once the change is made
	send := func(id int64) error {
		vals.Set("seed", a.fresh())
		o.addSent()
		return t.send(ctx, c, params{Type: "params", ID: id, Query: vals.Encode()})
	}
	id := int64(1)
	if err := send(id); err != nil {
		return
	}
	for ctx.Err() == nil {
		rctx, cancel := context.WithTimeout(ctx, a.cfg.Timeout)
		_, b, err := c.Read(rctx)
		cancel()
		if err != nil {
			a.ended(ctx, o, "presenter", err)
			return
		}
		m, err := decode(b)
		if err != nil {
			a.protocol(o.name, "presenter: %v", err)
			return
		}
		switch {
		case m.typ == "room" && version < 0 && m.id > 0:
			version = m.id // the first version after the change sent
		case m.typ == "start" && m.id == version:
			started()
		case m.typ == "busy" && m.id == version:
			o.add("room busy")
		case (m.typ == "done" || m.typ == "error") && m.id == version:
			o.add("room " + m.typ)
			if m.typ == "error" {
				o.sample(m.err)
			}
			id++
			version = -1
			if err := send(id); err != nil {
				return
			}
		case m.typ == "error" && m.id == id:
			o.add("change refused")
			o.sample(m.err)
			version = -1
			id++
			if err := send(id); err != nil {
				return
			}
		}
	}
}

// dialFrom dials path from t, tallying a refusal with a status (429, 503) as an answer; other
// failures are protocol errors. It waits a little after a failure.
func (a *attack) dialFrom(ctx context.Context, o *outcomes, t *target, path string) (*websocket.Conn, bool) {
	c, err := t.dial(ctx, path)
	if err == nil {
		return c, true
	}
	var se *statusError
	switch {
	case ctx.Err() != nil:
		return nil, false
	case errors.As(err, &se) && (se.code == http.StatusServiceUnavailable || se.code == http.StatusTooManyRequests):
		o.add("dial " + strconv.Itoa(se.code))
	default:
		o.add("dial failed")
		a.protocol(o.name, "%s: %v", path, err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(100 * time.Millisecond):
	}
	return nil, false
}

// idle opens idle streams from one address — a lab's and a room's, in turn — as fast as the
// server accepts them, up to Idle, and holds them (reading what the server sends, so that its
// pings are answered); refused, it tries again every 100 ms. It is under way once it holds
// Idle streams or has been refused ten times in a row.
func idle(ctx context.Context, a *attack, o *outcomes, u string) {
	lab, _, err := viewerQuery(u)
	if err != nil {
		a.protocol(o.name, "%v", err)
		return
	}
	t := a.on(o.name)
	rm, ok := a.createUnder(ctx, o, t, u)
	if !ok {
		return
	}
	var conns []*websocket.Conn
	defer func() {
		for _, c := range conns {
			c.CloseNow()
		}
	}()
	refused := 0
	for ctx.Err() == nil {
		if len(conns) >= a.cfg.Idle || refused >= 10 {
			o.ready()
		}
		if len(conns) >= a.cfg.Idle {
			break
		}
		path := labStream(lab)
		if len(conns)%2 == 1 {
			path = roomStream(rm.Code)
		}
		o.addSent()
		c, err := t.dial(ctx, path)
		var se *statusError
		switch {
		case err == nil:
			go func() { // answers pings, discards what comes (a room sends its frames)
				for {
					if _, _, err := c.Read(ctx); err != nil {
						return
					}
				}
			}()
			conns = append(conns, c)
			refused = 0
			o.mu.Lock()
			if o.n == nil {
				o.n = map[string]int64{}
			}
			o.n["held at most"] = max(o.n["held at most"], int64(len(conns)))
			o.mu.Unlock()
			continue
		case ctx.Err() != nil:
		case errors.As(err, &se) && (se.code == http.StatusServiceUnavailable || se.code == http.StatusTooManyRequests):
			o.add("dial " + strconv.Itoa(se.code))
			refused++
		default:
			o.add("dial failed")
			a.protocol(o.name, "%s: %v", path, err)
			refused++
		}
		select {
		case <-ctx.Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
	<-ctx.Done()
}

// addresses runs Conns streams, each from an address of its own (127.0.1.1, 127.0.1.2, …),
// each running the scenario with a fresh seed, the next at each done: many addresses taking one
// slot each.
func addresses(ctx context.Context, a *attack, o *outcomes, u string) {
	lab, q, err := viewerQuery(u)
	if err != nil {
		a.protocol(o.name, "%v", err)
		return
	}
	var wg sync.WaitGroup
	for i := range a.cfg.Conns {
		t := a.address(1, i)
		wg.Go(func() {
			for ctx.Err() == nil {
				a.streamOnce(ctx, o, t, lab, q, "stream")
			}
		})
	}
	wg.Wait()
}

// address is the target reached from the i-th address of block b (127.0.b.1, …, spilling over
// into the next blocks), or the attack's own when the server is not on IPv4 loopback.
func (a *attack) address(b, i int) *target {
	if len(a.sources) == 0 {
		return a.t
	}
	n := 254*b + i // 254 addresses a block: .1 to .254
	return a.t.from(net.IPv4(127, 0, byte(n/254), byte(1+n%254)))
}

// freshVisits makes visits of fresh viewers until ctx ends: each from an address the server
// has never seen (127.0.100.1, 127.0.100.2, …), on a new connection, sending the viewer's
// scenario with a fresh seed. What it measures is the guarantee of the fair slots: a new
// address gets a slot — its first frame — within a bounded wait whatever the attack holds.
func (a *attack) freshVisits(ctx context.Context) VisitReport {
	lab, q, _ := viewerQuery(a.cfg.Viewer)
	var r VisitReport
	var first, done []time.Duration
	for i := 0; ctx.Err() == nil; i++ {
		t := a.address(100, i)
		c, err := t.dial(ctx, labStream(lab))
		var se *statusError
		switch {
		case ctx.Err() != nil:
		case errors.As(err, &se) && (se.code == http.StatusServiceUnavailable || se.code == http.StatusTooManyRequests):
			r.DialFailed++
		case err != nil:
			a.protocol(freshSource, "%v", err)
		default:
			vals := cloneValues(q)
			vals.Set("seed", a.fresh())
			v, err := a.visit(ctx, c, 1, vals.Encode())
			c.Close(websocket.StatusNormalClosure, "")
			r.Visits++
			r.Busy += v.busy
			if v.first > 0 {
				first = append(first, v.first)
			}
			switch {
			case v.refusal != "":
				r.Refused++
			case v.finished:
				done = append(done, v.done)
			case ctx.Err() != nil:
				r.Cut++
			default:
				r.Unfinished++
				if code := websocket.CloseStatus(err); code != -1 && !expectedClose(code) {
					a.protocol(freshSource, "%s", closeReason(err))
				}
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(a.cfg.Pause):
		}
	}
	r.FirstFrame, r.Done = distOf(first), distOf(done)
	return r
}

// freshSource names the fresh viewers among an attack's sources.
const freshSource = "fresh viewer"

// cloneValues copies a query's values.
func cloneValues(q url.Values) url.Values {
	c := url.Values{}
	for k, v := range q {
		c[k] = append([]string(nil), v...)
	}
	return c
}

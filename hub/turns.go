package hub

import "time"

// turns keeps what the fair slots' turns need (see "Fair slots"): the clients holding no slot,
// and none lately, that were refused one, and when each client that holds none last held one.
// Its methods are called with the hub's lock held.
type turns struct {
	hold    time.Duration        // how long a refused client keeps its turn
	waiting map[string]asking    // refused clients holding no slot, by client
	last    map[string]time.Time // when each client holding no slot last held one
	seq     uint64
}

// asking is a waiting client: when it was first refused, when last, and its place among those
// refused at the same instant.
type asking struct {
	since, last time.Time
	seq         uint64
}

// Bounds of the turns kept: a client beyond maxWaiting is refused without a turn (it still
// gets a free slot no one is owed), one beyond maxRemembered is taken for a client that never
// held a slot. Together at most some 10 MB.
const (
	maxWaiting    = 4096
	maxRemembered = 100_000
	remember      = 10 * time.Minute // how long a client's last slot is remembered, at least
)

func (t *turns) init(hold time.Duration) {
	t.hold = hold
	t.waiting = map[string]asking{}
	t.last = map[string]time.Time{}
}

// ahead counts, up to limit, the clients waiting at now whose turn comes before client's:
// every one of them when client holds a slot; else those that held a slot less recently than
// client (never, first), then those refused before it. It forgets the turns that have passed.
func (t *turns) ahead(client string, holding bool, now time.Time, limit int) int {
	mine, waiting := t.waiting[client]
	if !waiting {
		mine = asking{since: now, seq: ^uint64(0)}
	}
	last := t.last[client]
	n := 0
	for c, a := range t.waiting {
		if now.Sub(a.last) > t.hold {
			delete(t.waiting, c) // its turn has passed
			continue
		}
		if c == client {
			continue
		}
		before := holding
		if !before {
			l := t.last[c]
			before = l.Before(last) || l.Equal(last) && (a.since.Before(mine.since) || a.since.Equal(mine.since) && a.seq < mine.seq)
		}
		if before {
			if n++; n >= limit {
				return n
			}
		}
	}
	return n
}

// refused records that client, holding held slots, was refused one at now: a client holding
// none, and none lately, waits for its turn. (One served lately takes what the others leave.)
func (t *turns) refused(client string, held int, now time.Time) {
	if client == "" || held > 0 || t.recent(client, now) {
		return
	}
	if a, ok := t.waiting[client]; ok {
		a.last = now
		t.waiting[client] = a
		return
	}
	if len(t.waiting) >= maxWaiting {
		for c, a := range t.waiting {
			if now.Sub(a.last) > t.hold {
				delete(t.waiting, c)
			}
		}
		if len(t.waiting) >= maxWaiting {
			return
		}
	}
	t.seq++
	t.waiting[client] = asking{since: now, last: now, seq: t.seq}
}

// recently is how long after its last slot a client counts as served lately (see "Fair
// slots").
const recently = time.Minute

// recent reports whether client, holding no slot, held one within recently of now.
func (t *turns) recent(client string, now time.Time) bool {
	l, ok := t.last[client]
	return ok && now.Sub(l) < recently
}

// took records that client has taken a slot: its turn is over.
func (t *turns) took(client string) {
	delete(t.waiting, client)
	delete(t.last, client)
}

// released records that client, at now, no longer holds a slot.
func (t *turns) released(client string, now time.Time) {
	t.last[client] = now
	if len(t.last) <= maxRemembered {
		return
	}
	for c, l := range t.last {
		if now.Sub(l) > remember {
			delete(t.last, c)
		}
	}
	for c := range t.last { // all recent: forget any
		if len(t.last) <= maxRemembered {
			break
		}
		delete(t.last, c)
	}
}

package room

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process's memory, for a single server. Rooms past their TTL (a
// room nobody joined, past JoinTTL) are forgotten as they are looked up, and swept away every
// SweepEvery while the store keeps any, on the clock of package time (a synctest bubble's, in
// tests); so are the tombstones of ended rooms past EndedTTL, of which the store keeps at most
// twice Limits.Rooms less its live rooms, the oldest giving way.
type Memory struct {
	mu       sync.Mutex
	rooms    map[string]*memRoom
	owners   map[string]int // live rooms by owner
	networks map[string]int // live rooms by owner's network (NetworkOf)
	now      func() time.Time
	ttl      time.Duration
	limits   Limits
	watchers map[string]map[chan Room]struct{}
	sweeper  *time.Timer // armed while rooms or tombstones are kept
	closed   bool
	ended    map[string]tomb // tombstones of ended rooms, by code
	graves   []grave         // their codes, oldest first, with some since gone (see bury)
	seq      uint64          // numbers the tombstones
}

// tomb is what an ended room showed last (Code, Lab, URL, Step), kept until until.
type tomb struct {
	room  Room
	until time.Time
	seq   uint64
}

// grave names a tombstone in the order they were made: the tomb of code numbered seq, if it
// is still there.
type grave struct {
	code string
	seq  uint64
}

type memRoom struct {
	Room
	keyHash    string
	owner      string
	joined     bool // a server has watched or touched it for a participant
	followers  map[string]int
	presenters map[string]int
	answers    map[string]map[string]string // step → follower → answer
	nanswers   int
}

// SweepEvery is how often the memory store forgets rooms past their TTL.
const SweepEvery = JoinTTL / 2

// NewMemory returns an empty in-memory store within limits.
func NewMemory(limits Limits) *Memory {
	return &Memory{rooms: map[string]*memRoom{}, owners: map[string]int{}, networks: map[string]int{}, watchers: map[string]map[chan Room]struct{}{},
		ended: map[string]tomb{}, now: time.Now, ttl: TTL, limits: limits.withDefaults()}
}

// get returns the live room of code; m.mu is held.
func (m *Memory) get(code string) (*memRoom, bool) {
	r, ok := m.rooms[code]
	if ok && m.expired(r, m.now()) {
		m.remove(code, r, m.endOf(r))
		return nil, false
	}
	return r, ok
}

// endOf is when room r ends by itself: its TTL (JoinTTL, unjoined) after its last activity.
func (m *Memory) endOf(r *memRoom) time.Time {
	ttl := m.ttl
	if !r.joined {
		ttl = min(ttl, JoinTTL)
	}
	return r.Active.Add(ttl)
}

func (m *Memory) expired(r *memRoom, now time.Time) bool { return now.After(m.endOf(r)) }

// remove forgets a room that ended at end, ending its watchers and leaving its tombstone;
// m.mu is held.
func (m *Memory) remove(code string, r *memRoom, end time.Time) {
	delete(m.rooms, code)
	m.bury(r.Room, end)
	if r.owner != "" {
		if m.owners[r.owner]--; m.owners[r.owner] <= 0 {
			delete(m.owners, r.owner)
		}
	}
	if n := NetworkOf(r.owner); n != "" {
		if m.networks[n]--; m.networks[n] <= 0 {
			delete(m.networks, n)
		}
	}
	for c := range m.watchers[code] {
		close(c)
	}
	delete(m.watchers, code)
}

// bury keeps the tombstone of room r, which ended at end, until EndedTTL after; m.mu is held.
// The oldest tombstones give way beyond twice Limits.Rooms rooms and tombstones together.
func (m *Memory) bury(r Room, end time.Time) {
	until := end.Add(EndedTTL)
	if !m.now().Before(until) {
		return
	}
	m.seq++
	m.ended[r.Code] = tomb{room: Room{Code: r.Code, Lab: r.Lab, URL: r.URL, Step: r.Step}, until: until, seq: m.seq}
	m.graves = append(m.graves, grave{r.Code, m.seq})
	for len(m.ended) > 0 && len(m.ended)+len(m.rooms) > 2*m.limits.Rooms {
		g := m.graves[0]
		m.graves = m.graves[1:]
		if t, ok := m.ended[g.code]; ok && t.seq == g.seq {
			delete(m.ended, g.code)
		}
	}
	if len(m.graves) > 2*len(m.ended)+64 { // graves of tombstones since gone (a code reused)
		m.compact()
	}
	m.arm()
}

// compact drops the graves of tombstones that are gone; m.mu is held.
func (m *Memory) compact() {
	kept := make([]grave, 0, len(m.ended))
	for _, g := range m.graves {
		if t, ok := m.ended[g.code]; ok && t.seq == g.seq {
			kept = append(kept, g)
		}
	}
	m.graves = kept
}

// sweep forgets every room past its TTL and every tombstone past EndedTTL; m.mu is held.
func (m *Memory) sweep() {
	now := m.now()
	for code, r := range m.rooms {
		if m.expired(r, now) {
			m.remove(code, r, m.endOf(r))
		}
	}
	n := len(m.ended)
	for code, t := range m.ended {
		if !now.Before(t.until) {
			delete(m.ended, code)
		}
	}
	if len(m.ended) < n {
		m.compact()
	}
}

// arm starts the sweeper if it is not running; m.mu is held.
func (m *Memory) arm() {
	if m.sweeper == nil && !m.closed {
		m.sweeper = time.AfterFunc(SweepEvery, m.tick)
	}
}

// tick is the sweeper's timer: it sweeps, and sweeps again later while rooms or tombstones
// are kept.
func (m *Memory) tick() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep()
	if (len(m.rooms) > 0 || len(m.ended) > 0) && !m.closed {
		m.sweeper.Reset(SweepEvery)
	} else {
		m.sweeper = nil
	}
}

// Create stores a new room.
func (m *Memory) Create(_ context.Context, r Room, keyHash, owner string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.get(r.Code); ok {
		return ErrExists
	}
	network := NetworkOf(owner)
	full := func() error {
		switch {
		case len(m.rooms) >= m.limits.Rooms:
			return ErrFull
		case owner != "" && m.owners[owner] >= m.limits.PerOwner:
			return ErrOwnerFull
		case network != "" && m.networks[network] >= m.limits.PerNetwork:
			return ErrNetworkFull
		}
		return nil
	}
	if full() != nil {
		m.sweep() // what counts is live rooms
		if err := full(); err != nil {
			return err
		}
	}
	r.Active, r.Owner = m.now(), owner
	m.rooms[r.Code] = &memRoom{Room: r, keyHash: keyHash, owner: owner, followers: map[string]int{}, presenters: map[string]int{}}
	delete(m.ended, r.Code) // a code taken again names the new room only
	if owner != "" {
		m.owners[owner]++
	}
	if network != "" {
		m.networks[network]++
	}
	m.arm()
	return nil
}

// Get returns a room.
func (m *Memory) Get(_ context.Context, code string) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return Room{}, ErrNotFound
	}
	return r.Room, nil
}

// Present checks a presenter key.
func (m *Memory) Present(_ context.Context, code, key string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return false, ErrNotFound
	}
	r.joined = true
	return keyMatches(key, r.keyHash), nil
}

// Update changes a room and tells its watchers.
func (m *Memory) Update(_ context.Context, code string, s State) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return Room{}, ErrNotFound
	}
	r.URL, r.Step, r.Revealed, r.RevealOpen, r.Active, r.joined = s.URL, s.Step, s.Revealed, s.RevealOpen, m.now(), true
	r.Version++
	m.notify(code, r.Room)
	return r.Room, nil
}

// Touch keeps a room alive. The memory store's counts need no renewal: they live and die
// with the one server that keeps them.
func (m *Memory) Touch(_ context.Context, code, _ string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	r.Active, r.joined = m.now(), true
	return nil
}

// Watch returns the room's changes until ctx ends.
func (m *Memory) Watch(ctx context.Context, code string) (<-chan Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return nil, ErrNotFound
	}
	if !r.joined { // its first participant: it lives TTL from now
		r.Active, r.joined = m.now(), true
	}
	c := make(chan Room, 1)
	if m.watchers[code] == nil {
		m.watchers[code] = map[chan Room]struct{}{}
	}
	m.watchers[code][c] = struct{}{}
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		if _, ok := m.watchers[code][c]; !ok {
			return // closed when the room was removed
		}
		delete(m.watchers[code], c)
		if len(m.watchers[code]) == 0 {
			delete(m.watchers, code)
		}
		close(c)
	})
	return c, nil
}

// notify sends r to every watcher of code, replacing a change a watcher has not taken yet;
// m.mu is held.
func (m *Memory) notify(code string, r Room) {
	for c := range m.watchers[code] {
		select {
		case <-c:
		default:
		}
		c <- r
	}
}

// SetFollowers records a server's followers.
func (m *Memory) SetFollowers(_ context.Context, code, replica string, n int) error {
	return m.setCount(code, func(r *memRoom) map[string]int { return r.followers }, replica, n)
}

// setCount records a server's count n in the counts of a room, and tells its watchers of a
// change.
func (m *Memory) setCount(code string, counts func(*memRoom) map[string]int, replica string, n int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	c := counts(r)
	if c[replica] == n {
		return nil
	}
	if n == 0 {
		delete(c, replica)
	} else {
		c[replica] = n
	}
	r.Presenters = 0
	for _, p := range r.presenters {
		r.Presenters += p
	}
	m.notify(code, r.Room)
	return nil
}

// Followers sums a room's followers over servers.
func (m *Memory) Followers(_ context.Context, code string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return 0, ErrNotFound
	}
	n := 0
	for _, c := range r.followers {
		n += c
	}
	return n, nil
}

// SetPresenters records a server's presenter connections.
func (m *Memory) SetPresenters(_ context.Context, code, replica string, n int) error {
	return m.setCount(code, func(r *memRoom) map[string]int { return r.presenters }, replica, n)
}

// Answer records a follower's answer to the step on show.
func (m *Memory) Answer(_ context.Context, code, step, follower, value string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	if r.Step != step || r.Revealed {
		return ErrClosed
	}
	if r.answers == nil {
		r.answers = map[string]map[string]string{}
	}
	mine := r.answers[step]
	old, had := mine[follower]
	switch {
	case had && old == value:
		return nil
	case !had && r.nanswers >= MaxAnswers:
		return ErrAnswersFull
	case mine == nil:
		mine = map[string]string{}
		r.answers[step] = mine
	}
	if !had {
		r.nanswers++
	}
	mine[follower] = value
	r.Answers++
	r.Active = m.now()
	m.notify(code, r.Room)
	return nil
}

// Mine returns a follower's answer to step.
func (m *Memory) Mine(_ context.Context, code, step, follower string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return "", ErrNotFound
	}
	return r.answers[step][follower], nil
}

// Answers returns a room's tally.
func (m *Memory) Answers(_ context.Context, code, step string) ([]Count, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return nil, ErrNotFound
	}
	counts := map[[2]string]int{}
	for st, mine := range r.answers {
		if step != "" && st != step {
			continue
		}
		for _, v := range mine {
			counts[[2]string{st, v}]++
		}
	}
	cs := make([]Count, 0, len(counts))
	for k, n := range counts {
		cs = append(cs, Count{Step: k[0], Value: k[1], N: n})
	}
	return sortCounts(cs), nil
}

// End forgets a room, closing its watchers' channels; its tombstone remains.
func (m *Memory) End(_ context.Context, code string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	m.remove(code, r, m.now())
	return nil
}

// Ended returns what an ended room showed last.
func (m *Memory) Ended(_ context.Context, code string) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, live := m.get(code); live {
		return Room{}, ErrNotFound
	}
	t, ok := m.ended[code]
	if !ok || !m.now().Before(t.until) {
		return Room{}, ErrNotFound
	}
	return t.room, nil
}

// Close stops the sweeper.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	if m.sweeper != nil {
		m.sweeper.Stop()
		m.sweeper = nil
	}
	return nil
}

package room

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process's memory, for a single server. Rooms past their TTL (a
// room nobody joined, past JoinTTL) are forgotten as they are looked up, and swept away every
// SweepEvery while the store keeps any, on the clock of package time (a synctest bubble's, in
// tests).
type Memory struct {
	mu       sync.Mutex
	rooms    map[string]*memRoom
	owners   map[string]int // live rooms by owner
	networks map[string]int // live rooms by owner's network (NetworkOf)
	now      func() time.Time
	ttl      time.Duration
	limits   Limits
	watchers map[string]map[chan Room]struct{}
	sweeper  *time.Timer // armed while rooms are kept
	closed   bool
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
		now: time.Now, ttl: TTL, limits: limits.withDefaults()}
}

// get returns the live room of code; m.mu is held.
func (m *Memory) get(code string) (*memRoom, bool) {
	r, ok := m.rooms[code]
	if ok && m.expired(r, m.now()) {
		m.remove(code, r)
		return nil, false
	}
	return r, ok
}

func (m *Memory) expired(r *memRoom, now time.Time) bool {
	ttl := m.ttl
	if !r.joined {
		ttl = min(ttl, JoinTTL)
	}
	return now.Sub(r.Active) > ttl
}

// remove forgets a room, ending its watchers; m.mu is held.
func (m *Memory) remove(code string, r *memRoom) {
	delete(m.rooms, code)
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

// sweep forgets every room past its TTL; m.mu is held.
func (m *Memory) sweep() {
	now := m.now()
	for code, r := range m.rooms {
		if m.expired(r, now) {
			m.remove(code, r)
		}
	}
}

// tick is the sweeper's timer: it sweeps, and sweeps again later while rooms are kept.
func (m *Memory) tick() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep()
	if len(m.rooms) > 0 && !m.closed {
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
	if owner != "" {
		m.owners[owner]++
	}
	if network != "" {
		m.networks[network]++
	}
	if m.sweeper == nil && !m.closed {
		m.sweeper = time.AfterFunc(SweepEvery, m.tick)
	}
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

// End forgets a room, closing its watchers' channels.
func (m *Memory) End(_ context.Context, code string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	m.remove(code, r)
	return nil
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

package room

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store in this process's memory, for a single server. Rooms past their TTL are
// forgotten as they are looked up.
type Memory struct {
	mu       sync.Mutex
	rooms    map[string]*memRoom
	now      func() time.Time
	ttl      time.Duration
	watchers map[string]map[chan Room]struct{}
}

type memRoom struct {
	Room
	keyHash   string
	followers map[string]int
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory {
	return &Memory{rooms: map[string]*memRoom{}, watchers: map[string]map[chan Room]struct{}{}, now: time.Now, ttl: TTL}
}

// get returns the live room of code; m.mu is held.
func (m *Memory) get(code string) (*memRoom, bool) {
	r, ok := m.rooms[code]
	if ok && m.now().Sub(r.Active) > m.ttl {
		delete(m.rooms, code)
		return nil, false
	}
	return r, ok
}

// Create stores a new room.
func (m *Memory) Create(_ context.Context, r Room, keyHash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.get(r.Code); ok {
		return ErrExists
	}
	r.Active = m.now()
	m.rooms[r.Code] = &memRoom{Room: r, keyHash: keyHash, followers: map[string]int{}}
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
	return keyMatches(key, r.keyHash), nil
}

// Update changes a room and tells its watchers.
func (m *Memory) Update(_ context.Context, code, url, step string) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return Room{}, ErrNotFound
	}
	r.URL, r.Step, r.Active = url, step, m.now()
	r.Version++
	m.notify(code, r.Room)
	return r.Room, nil
}

// Touch keeps a room alive.
func (m *Memory) Touch(_ context.Context, code string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	r.Active = m.now()
	return nil
}

// Watch returns the room's changes until ctx ends.
func (m *Memory) Watch(ctx context.Context, code string) (<-chan Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.get(code); !ok {
		return nil, ErrNotFound
	}
	c := make(chan Room, 1)
	if m.watchers[code] == nil {
		m.watchers[code] = map[chan Room]struct{}{}
	}
	m.watchers[code][c] = struct{}{}
	context.AfterFunc(ctx, func() {
		m.mu.Lock()
		defer m.mu.Unlock()
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
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.get(code)
	if !ok {
		return ErrNotFound
	}
	if r.followers[replica] == n {
		return nil
	}
	if n == 0 {
		delete(r.followers, replica)
	} else {
		r.followers[replica] = n
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

// Close does nothing.
func (m *Memory) Close() error { return nil }

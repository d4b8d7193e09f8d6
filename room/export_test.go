package room

import "time"

// Held returns how many rooms the store holds, expired or not: what its memory keeps.
func (m *Memory) Held() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rooms)
}

// SetTTL sets how long the store's rooms live without activity.
func (s *Redis) SetTTL(d time.Duration) { s.ttl = d }

// SetClock sets the store's clock (for the counts' leases).
func (s *Redis) SetClock(now func() time.Time) { s.now = now }

// SetJoinTTL sets how long the store's rooms live until they are joined.
func (s *Redis) SetJoinTTL(d time.Duration) { s.join = d }

package room

import (
	"context"
	"time"
)

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

// Buried returns how many tombstones of ended rooms the store holds, expired or not.
func (m *Memory) Buried() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.ended)
}

// TombTTL returns how long Redis keeps a room's tomb, and how many tombs the store counts.
func (s *Redis) TombTTL(ctx context.Context, code string) (time.Duration, int64, error) {
	d, err := s.c.PTTL(ctx, tombKey(code)).Result()
	if err != nil {
		return 0, 0, err
	}
	n, err := s.c.ZCard(ctx, tombsKey).Result()
	return d, n, err
}

// RoomTTL returns how long Redis keeps a room's hash.
func (s *Redis) RoomTTL(ctx context.Context, code string) (time.Duration, error) {
	return s.c.PTTL(ctx, roomKey(code)).Result()
}

// Expire deletes a room's keys whose expiry is the room's, as Redis does when they expire: its
// hash, counts, answers and tally (not its tomb, which outlives it).
func (s *Redis) Expire(ctx context.Context, code string) error {
	return s.c.Del(ctx, roomKey(code), followersKey(code), presentersKey(code), answersKey(code), tallyKey(code)).Err()
}

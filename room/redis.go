package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in Redis, shared by every replica of the playground that names the same
// server. A room is a hash (playground:room:CODE: lab, url, step, version, active, key — the
// presenter key's hash) and a hash of follower counts by replica
// (playground:room:CODE:followers), both expiring after TTL without activity; changes are
// published, as the room's JSON, on the channel playground:room:CODE.
type Redis struct {
	c   *redis.Client
	ttl time.Duration
}

// NewRedis connects to the Redis server of url (redis://host:port/db, as go-redis parses it)
// and checks it answers.
func NewRedis(ctx context.Context, url string) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("room: redis URL %q: %w", url, err)
	}
	c := redis.NewClient(opts)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("room: redis at %s: %w", opts.Addr, err)
	}
	return &Redis{c: c, ttl: TTL}, nil
}

func roomKey(code string) string      { return "playground:room:" + code }
func followersKey(code string) string { return "playground:room:" + code + ":followers" }

var createScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
redis.call("HSET", KEYS[1], "lab", ARGV[1], "url", ARGV[2], "step", ARGV[3], "version", 0, "active", ARGV[4], "key", ARGV[5])
redis.call("PEXPIRE", KEYS[1], ARGV[6])
return 1`)

// Create stores a new room.
func (s *Redis) Create(ctx context.Context, r Room, keyHash string) error {
	ok, err := createScript.Run(ctx, s.c, []string{roomKey(r.Code)},
		r.Lab, r.URL, r.Step, time.Now().UnixMilli(), keyHash, s.ttl.Milliseconds()).Int()
	if err != nil {
		return fmt.Errorf("room: create %s: %w", r.Code, err)
	}
	if ok == 0 {
		return ErrExists
	}
	return nil
}

// Get returns a room.
func (s *Redis) Get(ctx context.Context, code string) (Room, error) {
	m, err := s.c.HGetAll(ctx, roomKey(code)).Result()
	if err != nil {
		return Room{}, fmt.Errorf("room: get %s: %w", code, err)
	}
	return roomOf(code, m)
}

func roomOf(code string, m map[string]string) (Room, error) {
	if len(m) == 0 {
		return Room{}, ErrNotFound
	}
	version, _ := strconv.ParseInt(m["version"], 10, 64)
	active, _ := strconv.ParseInt(m["active"], 10, 64)
	return Room{Code: code, Lab: m["lab"], URL: m["url"], Step: m["step"], Version: version, Active: time.UnixMilli(active)}, nil
}

// Present checks a presenter key.
func (s *Redis) Present(ctx context.Context, code, key string) (bool, error) {
	h, err := s.c.HGet(ctx, roomKey(code), "key").Result()
	if errors.Is(err, redis.Nil) {
		return false, ErrNotFound
	}
	if err != nil {
		return false, fmt.Errorf("room: present %s: %w", code, err)
	}
	return keyMatches(key, h), nil
}

var updateScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 0 then return nil end
redis.call("HINCRBY", KEYS[1], "version", 1)
redis.call("HSET", KEYS[1], "url", ARGV[1], "step", ARGV[2], "active", ARGV[3])
redis.call("PEXPIRE", KEYS[1], ARGV[4])
redis.call("PEXPIRE", KEYS[2], ARGV[4])
return redis.call("HGETALL", KEYS[1])`)

// Update changes a room and publishes it.
func (s *Redis) Update(ctx context.Context, code, url, step string) (Room, error) {
	v, err := updateScript.Run(ctx, s.c, []string{roomKey(code), followersKey(code)},
		url, step, time.Now().UnixMilli(), s.ttl.Milliseconds()).StringSlice()
	if errors.Is(err, redis.Nil) {
		return Room{}, ErrNotFound
	}
	if err != nil {
		return Room{}, fmt.Errorf("room: update %s: %w", code, err)
	}
	m := map[string]string{}
	for i := 0; i+1 < len(v); i += 2 {
		m[v[i]] = v[i+1]
	}
	r, err := roomOf(code, m)
	if err != nil {
		return Room{}, err
	}
	return r, s.publish(ctx, r)
}

func (s *Redis) publish(ctx context.Context, r Room) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	if err := s.c.Publish(ctx, roomKey(r.Code), b).Err(); err != nil {
		return fmt.Errorf("room: publish %s: %w", r.Code, err)
	}
	return nil
}

// Touch keeps a room alive.
func (s *Redis) Touch(ctx context.Context, code string) error {
	ok, err := s.c.PExpire(ctx, roomKey(code), s.ttl).Result()
	if err != nil {
		return fmt.Errorf("room: touch %s: %w", code, err)
	}
	if !ok {
		return ErrNotFound
	}
	s.c.PExpire(ctx, followersKey(code), s.ttl)
	return nil
}

// Watch subscribes to the room's channel.
func (s *Redis) Watch(ctx context.Context, code string) (<-chan Room, error) {
	if _, err := s.Get(ctx, code); err != nil {
		return nil, err
	}
	ps := s.c.Subscribe(ctx, roomKey(code))
	if _, err := ps.Receive(ctx); err != nil { // the subscription is in place
		ps.Close()
		return nil, fmt.Errorf("room: watch %s: %w", code, err)
	}
	out := make(chan Room, 1)
	go func() {
		defer close(out)
		defer ps.Close()
		msgs := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-msgs:
				if !ok {
					return
				}
				var r Room
				if json.Unmarshal([]byte(m.Payload), &r) != nil {
					continue
				}
				select { // keep only the newest
				case <-out:
				default:
				}
				out <- r
			}
		}
	}()
	return out, nil
}

// SetFollowers records a server's followers and publishes the room.
func (s *Redis) SetFollowers(ctx context.Context, code, replica string, n int) error {
	r, err := s.Get(ctx, code)
	if err != nil {
		return err
	}
	pipe := s.c.TxPipeline()
	if n == 0 {
		pipe.HDel(ctx, followersKey(code), replica)
	} else {
		pipe.HSet(ctx, followersKey(code), replica, n)
	}
	pipe.PExpire(ctx, followersKey(code), s.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("room: followers of %s: %w", code, err)
	}
	return s.publish(ctx, r)
}

// Followers sums a room's followers over replicas.
func (s *Redis) Followers(ctx context.Context, code string) (int, error) {
	vs, err := s.c.HVals(ctx, followersKey(code)).Result()
	if err != nil {
		return 0, fmt.Errorf("room: followers of %s: %w", code, err)
	}
	n := 0
	for _, v := range vs {
		c, _ := strconv.Atoi(v)
		n += c
	}
	return n, nil
}

// Close closes the connection.
func (s *Redis) Close() error { return s.c.Close() }

package room

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redis is a Store in Redis, shared by every replica of the playground that names the same
// server. A room is a hash (playground:room:CODE: lab, url, step, version, active, key — the
// presenter key's hash) and a hash of follower counts by replica
// (playground:room:CODE:followers), both expiring after TTL without activity; changes are
// published, as the room's JSON, on the channel playground:room:CODE. The live rooms are
// counted for Limits in sorted sets of codes by expiry time, all rooms
// (playground:rooms) and each owner's (playground:owner:OWNER), trimmed as rooms are created.
type Redis struct {
	c      *redis.Client
	ttl    time.Duration
	limits Limits
}

// NewRedis connects to the Redis server of url (redis://host:port/db, as go-redis parses it)
// and checks it answers. Errors never quote url, which may hold a password.
func NewRedis(ctx context.Context, url string, limits Limits) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("room: the Redis URL %s is malformed: %w", RedactURL(url), withoutURL(err))
	}
	// Calls are bounded by their contexts' deadlines, not by a socket timeout of the client's
	// own (a read_timeout in the URL is overridden): a command given up on at a read timeout
	// may still be applied once a stalled server resumes, when its caller has been told it
	// failed (see api's storeChanges). Callers that must answer soon pass a deadline.
	opts.ContextTimeoutEnabled = true
	opts.ReadTimeout = -1
	c := redis.NewClient(opts)
	if err := c.Ping(ctx).Err(); err != nil {
		c.Close()
		return nil, fmt.Errorf("room: redis at %s: %w", opts.Addr, err)
	}
	return &Redis{c: c, ttl: TTL, limits: limits.withDefaults()}, nil
}

func roomKey(code string) string      { return "playground:room:" + code }
func followersKey(code string) string { return "playground:room:" + code + ":followers" }
func ownerKey(owner string) string    { return "playground:owner:" + owner }

const roomsKey = "playground:rooms"

// createScript: KEYS room, all rooms, the owner's rooms ("" when none); ARGV lab, url, step,
// now (ms), key hash, TTL (ms), code, most rooms, most per owner. It answers 1 (created),
// 0 (the code is taken), -1 (full), -2 (the owner's rooms full).
var createScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
local now = tonumber(ARGV[4])
redis.call("ZREMRANGEBYSCORE", KEYS[2], "-inf", now)
if redis.call("ZCARD", KEYS[2]) >= tonumber(ARGV[8]) then return -1 end
if KEYS[3] ~= "" then
  redis.call("ZREMRANGEBYSCORE", KEYS[3], "-inf", now)
  if redis.call("ZCARD", KEYS[3]) >= tonumber(ARGV[9]) then return -2 end
end
redis.call("HSET", KEYS[1], "lab", ARGV[1], "url", ARGV[2], "step", ARGV[3], "version", 0, "active", ARGV[4], "key", ARGV[5], "owner", KEYS[3])
redis.call("PEXPIRE", KEYS[1], ARGV[6])
local expiry = now + tonumber(ARGV[6])
redis.call("ZADD", KEYS[2], expiry, ARGV[7])
if KEYS[3] ~= "" then
  redis.call("ZADD", KEYS[3], expiry, ARGV[7])
  redis.call("PEXPIRE", KEYS[3], ARGV[6])
end
return 1`)

// Create stores a new room.
func (s *Redis) Create(ctx context.Context, r Room, keyHash, owner string) error {
	ok := ""
	if owner != "" {
		ok = ownerKey(owner)
	}
	res, err := createScript.Run(ctx, s.c, []string{roomKey(r.Code), roomsKey, ok},
		r.Lab, r.URL, r.Step, time.Now().UnixMilli(), keyHash, s.ttl.Milliseconds(), r.Code, s.limits.Rooms, s.limits.PerOwner).Int()
	if err != nil {
		return unavailable("create", r.Code, err)
	}
	switch res {
	case 0:
		return ErrExists
	case -1:
		return ErrFull
	case -2:
		return ErrOwnerFull
	}
	return nil
}

// Get returns a room.
func (s *Redis) Get(ctx context.Context, code string) (Room, error) {
	m, err := s.c.HGetAll(ctx, roomKey(code)).Result()
	if err != nil {
		return Room{}, unavailable("get", code, err)
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
		return false, unavailable("present", code, err)
	}
	return keyMatches(key, h), nil
}

// keepLua keeps a room alive: KEYS[1] the room, KEYS[2] its followers, KEYS[3] all rooms;
// ARGV[1] now (ms), ARGV[2] TTL (ms), ARGV[3] the code. It returns nil when the room is gone.
const keepLua = `
if redis.call("PEXPIRE", KEYS[1], ARGV[2]) == 0 then return false end
redis.call("PEXPIRE", KEYS[2], ARGV[2])
local expiry = tonumber(ARGV[1]) + tonumber(ARGV[2])
redis.call("ZADD", KEYS[3], "XX", expiry, ARGV[3])
local owner = redis.call("HGET", KEYS[1], "owner")
if owner and owner ~= "" then
  redis.call("ZADD", owner, "XX", expiry, ARGV[3])
  redis.call("PEXPIRE", owner, ARGV[2])
end
`

var keepScript = redis.NewScript(keepLua + "return 1")

// updateScript: KEYS as keepLua's; ARGV as keepLua's, then the url and the step. It changes
// the room, keeps it alive and publishes it, all in one script — so that the change happens
// with its announcement or not at all — and returns what it published (see wireRoom), or nil
// when the room is gone.
var updateScript = redis.NewScript(keepLua + `
redis.call("HINCRBY", KEYS[1], "version", 1)
redis.call("HSET", KEYS[1], "url", ARGV[4], "step", ARGV[5], "active", ARGV[1])
local h = redis.call("HMGET", KEYS[1], "lab", "url", "step", "version", "active")
local msg = cjson.encode({code = ARGV[3], lab = h[1], url = h[2], step = h[3], version = tonumber(h[4]), active = tonumber(h[5])})
redis.call("PUBLISH", KEYS[1], msg)
return msg`)

// wireRoom is a room as published on its channel.
type wireRoom struct {
	Code    string `json:"code"`
	Lab     string `json:"lab"`
	URL     string `json:"url"`
	Step    string `json:"step"`
	Version int64  `json:"version"`
	Active  int64  `json:"active"` // Unix ms
}

func (w wireRoom) room() Room {
	return Room{Code: w.Code, Lab: w.Lab, URL: w.URL, Step: w.Step, Version: w.Version, Active: time.UnixMilli(w.Active)}
}

// Update changes a room and publishes it.
func (s *Redis) Update(ctx context.Context, code, url, step string) (Room, error) {
	msg, err := updateScript.Run(ctx, s.c, []string{roomKey(code), followersKey(code), roomsKey},
		time.Now().UnixMilli(), s.ttl.Milliseconds(), code, url, step).Text()
	if errors.Is(err, redis.Nil) {
		return Room{}, ErrNotFound
	}
	if err != nil {
		return Room{}, unavailable("update", code, err)
	}
	var w wireRoom
	if err := json.Unmarshal([]byte(msg), &w); err != nil {
		return Room{}, fmt.Errorf("room: update %s: %w", code, err)
	}
	return w.room(), nil
}

// publish announces r, unchanged, to its watchers.
func (s *Redis) publish(ctx context.Context, r Room) error {
	b, err := json.Marshal(wireRoom{Code: r.Code, Lab: r.Lab, URL: r.URL, Step: r.Step, Version: r.Version, Active: r.Active.UnixMilli()})
	if err != nil {
		return err
	}
	if err := s.c.Publish(ctx, roomKey(r.Code), b).Err(); err != nil {
		return unavailable("publish", r.Code, err)
	}
	return nil
}

// Touch keeps a room alive.
func (s *Redis) Touch(ctx context.Context, code string) error {
	err := keepScript.Run(ctx, s.c, []string{roomKey(code), followersKey(code), roomsKey},
		time.Now().UnixMilli(), s.ttl.Milliseconds(), code).Err()
	if errors.Is(err, redis.Nil) {
		return ErrNotFound
	}
	if err != nil {
		return unavailable("touch", code, err)
	}
	return nil
}

// watchTimeout bounds the start of a watch: the room's lookup and the subscription.
const watchTimeout = 5 * time.Second

// Watch subscribes to the room's channel. The subscription survives the connection's loss
// (go-redis subscribes again), but a Redis restarted empty has lost the room: the caller
// checks (Touch) that it still exists.
func (s *Redis) Watch(ctx context.Context, code string) (<-chan Room, error) {
	hctx, cancel := context.WithTimeout(ctx, watchTimeout)
	defer cancel()
	if _, err := s.Get(hctx, code); err != nil {
		return nil, err
	}
	ps := s.c.Subscribe(hctx, roomKey(code))
	if _, err := ps.Receive(hctx); err != nil { // the subscription is in place
		ps.Close()
		return nil, unavailable("watch", code, err)
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
				var w wireRoom
				if json.Unmarshal([]byte(m.Payload), &w) != nil {
					continue
				}
				select { // keep only the newest
				case <-out:
				default:
				}
				out <- w.room()
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
		return unavailable("followers of", code, err)
	}
	return s.publish(ctx, r)
}

// Followers sums a room's followers over replicas.
func (s *Redis) Followers(ctx context.Context, code string) (int, error) {
	vs, err := s.c.HVals(ctx, followersKey(code)).Result()
	if err != nil {
		return 0, unavailable("followers of", code, err)
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

// unavailable wraps an error of Redis as the store's ErrUnavailable.
func unavailable(op, code string, err error) error {
	return fmt.Errorf("%w: %s %s: %w", ErrUnavailable, op, code, err)
}

// LogRedisTo sends go-redis's own log lines (a lost connection, a failed dial) to log, at
// level Warn, as structured records instead of unstructured lines on standard error. go-redis
// has one logger per process.
func LogRedisTo(log *slog.Logger) { redis.SetLogger(slogRedis{log}) }

type slogRedis struct{ log *slog.Logger }

func (l slogRedis) Printf(ctx context.Context, format string, v ...any) {
	l.log.WarnContext(ctx, strings.TrimSpace(fmt.Sprintf(format, v...)), "source", "go-redis")
}

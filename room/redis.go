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
// server. A room is a hash (playground:room:CODE: lab, url, step, revealed, reveal_open,
// version, active, key — the presenter key's hash) and hashes of follower and presenter counts
// by replica (playground:room:CODE:followers, …:presenters), its followers' answers (…:answers,
// field "STEP\nFOLLOWER", the answer) and their tally (…:tally, field "STEP\nANSWER", the count),
// all expiring after TTL without
// activity (JoinTTL until a server watches or touches the room); changes are published, as
// the room's JSON, on the channel playground:room:CODE, and a room's end as {"code", "ended":
// true}. The live rooms are counted for Limits in sorted sets of codes by expiry time, all
// rooms (playground:rooms), each owner's (playground:owner:OWNER) and each network's
// (playground:network:NETWORK), trimmed as rooms are created.
//
// A room's tombstone (see [Store.Ended]) is kept from its creation on, in a hash of its own
// (playground:room:CODE:tomb: lab, url, step as the room's, and until, in Unix ms on the store's
// clock), which outlives the room by [EndedTTL]: every change and sign of life of the room
// moves it with the room's expiry, and End sets it to expire EndedTTL after the end — so a
// room that Redis expires leaves its tombstone too, with nothing to do at its expiry. The
// tombstones are counted in a sorted set of codes by their until (playground:tombs), trimmed as
// rooms are created to Limits.Rooms besides the live rooms, the oldest giving way.
//
// A server's follower and presenter counts (a hash field per server, "n:expiry") count for
// [CountLease] after the server last recorded or renewed them ([Redis.Touch]): a server that
// stops without clearing its counts — killed, its machine lost — stops counting then, and the
// other servers' participants are told at their next Touch (see package api).
type Redis struct {
	c      *redis.Client
	ttl    time.Duration
	join   time.Duration // JoinTTL
	lease  time.Duration
	now    func() time.Time
	limits Limits
}

// NewRedis connects to the Redis server of url (redis://host:port/db, as go-redis parses it)
// and checks it answers. Errors never quote url, which may hold a password.
func NewRedis(ctx context.Context, url string, limits Limits) (*Redis, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("room: the Redis URL %s is malformed: %w", RedactURL(url), withoutURL(err, url))
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
	return &Redis{c: c, ttl: TTL, join: JoinTTL, lease: CountLease, now: time.Now, limits: limits.withDefaults()}, nil
}

// SetCountLease sets how long the counts a server records count without renewal (default
// [CountLease]); the servers must touch their rooms (api.Config.RoomCheck) well within it.
func (s *Redis) SetCountLease(d time.Duration) { s.lease = d }

func roomKey(code string) string      { return "playground:room:" + code }
func followersKey(code string) string { return "playground:room:" + code + ":followers" }
func ownerKey(owner string) string    { return ownerPrefix + owner }
func networkKey(n string) string      { return "playground:network:" + n }

const ownerPrefix = "playground:owner:"

func presentersKey(code string) string {
	return "playground:room:" + code + ":presenters"
}

func answersKey(code string) string { return "playground:room:" + code + ":answers" }
func tallyKey(code string) string   { return "playground:room:" + code + ":tally" }
func tombKey(code string) string    { return "playground:room:" + code + ":tomb" }

// keysOf are a room's keys as keepLua takes them.
func keysOf(code string) []string {
	return []string{roomKey(code), followersKey(code), roomsKey, presentersKey(code), answersKey(code), tallyKey(code), tombKey(code), tombsKey}
}

const (
	roomsKey = "playground:rooms"
	tombsKey = "playground:tombs"
)

// endedLua is EndedTTL in ms, as the scripts write it.
var endedLua = strconv.FormatInt(EndedTTL.Milliseconds(), 10)

// createScript: KEYS room, all rooms, the owner's rooms and the owner's network's ("" when
// none), the room's tomb, all tombs; ARGV lab, url, step, now (ms), key hash, JoinTTL (ms),
// code, most rooms, most per owner, most per network. It answers 1 (created), 0 (the code is
// taken), -1 (full), -2 (the owner's rooms full), -3 (the network's rooms full). The tombs are
// trimmed to twice the most rooms, the oldest (ended rooms' first: a live room's tomb lasts
// EndedTTL past its future expiry) giving way.
var createScript = redis.NewScript(`
if redis.call("EXISTS", KEYS[1]) == 1 then return 0 end
local now = tonumber(ARGV[4])
redis.call("ZREMRANGEBYSCORE", KEYS[2], "-inf", now)
if redis.call("ZCARD", KEYS[2]) >= tonumber(ARGV[8]) then return -1 end
for i, most in ipairs({ARGV[9], ARGV[10]}) do
  local k = KEYS[2 + i]
  if k ~= "" then
    redis.call("ZREMRANGEBYSCORE", k, "-inf", now)
    if redis.call("ZCARD", k) >= tonumber(most) then return -1 - i end
  end
end
redis.call("HSET", KEYS[1], "lab", ARGV[1], "url", ARGV[2], "step", ARGV[3], "version", 0, "active", ARGV[4], "key", ARGV[5], "owner", KEYS[3], "network", KEYS[4])
redis.call("PEXPIRE", KEYS[1], ARGV[6])
local expiry = now + tonumber(ARGV[6])
redis.call("ZADD", KEYS[2], expiry, ARGV[7])
for i = 3, 4 do
  if KEYS[i] ~= "" then
    redis.call("ZADD", KEYS[i], expiry, ARGV[7])
    redis.call("PEXPIRE", KEYS[i], ARGV[6])
  end
end
redis.call("ZREMRANGEBYSCORE", KEYS[6], "-inf", now)
local extra = redis.call("ZCARD", KEYS[6]) + 1 - 2 * tonumber(ARGV[8])
if extra > 0 then
  for _, c in ipairs(redis.call("ZRANGE", KEYS[6], 0, extra - 1)) do
    redis.call("DEL", "playground:room:" .. c .. ":tomb")
  end
  redis.call("ZREMRANGEBYRANK", KEYS[6], 0, extra - 1)
end
local ended = ` + endedLua + `
redis.call("DEL", KEYS[5])
redis.call("HSET", KEYS[5], "lab", ARGV[1], "url", ARGV[2], "step", ARGV[3], "until", expiry + ended)
redis.call("PEXPIRE", KEYS[5], tonumber(ARGV[6]) + ended)
redis.call("ZADD", KEYS[6], expiry + ended, ARGV[7])
return 1`)

// Create stores a new room, to live JoinTTL unless a server joins it (Watch, Touch).
func (s *Redis) Create(ctx context.Context, r Room, keyHash, owner string) error {
	ok, nk := "", ""
	if owner != "" {
		ok = ownerKey(owner)
	}
	if n := NetworkOf(owner); n != "" {
		nk = networkKey(n)
	}
	res, err := createScript.Run(ctx, s.c, []string{roomKey(r.Code), roomsKey, ok, nk, tombKey(r.Code), tombsKey},
		r.Lab, r.URL, r.Step, s.now().UnixMilli(), keyHash, min(s.ttl, s.join).Milliseconds(), r.Code,
		s.limits.Rooms, s.limits.PerOwner, s.limits.PerNetwork).Int()
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
	case -3:
		return ErrNetworkFull
	}
	return nil
}

// Get returns a room.
func (s *Redis) Get(ctx context.Context, code string) (Room, error) {
	pipe := s.c.Pipeline()
	room := pipe.HGetAll(ctx, roomKey(code))
	presenters := pipe.HVals(ctx, presentersKey(code))
	if _, err := pipe.Exec(ctx); err != nil {
		return Room{}, unavailable("get", code, err)
	}
	return roomOf(code, room.Val(), s.sum(presenters.Val()))
}

func roomOf(code string, m map[string]string, presenters int) (Room, error) {
	if len(m) == 0 {
		return Room{}, ErrNotFound
	}
	version, _ := strconv.ParseInt(m["version"], 10, 64)
	active, _ := strconv.ParseInt(m["active"], 10, 64)
	answers, _ := strconv.ParseInt(m["answers"], 10, 64)
	return Room{Answers: answers, Code: code, Lab: m["lab"], URL: m["url"], Step: m["step"], Version: version, Active: time.UnixMilli(active),
		Revealed: m["revealed"] == "1", RevealOpen: m["reveal_open"] == "1", Presenters: presenters,
		Owner: strings.TrimPrefix(m["owner"], ownerPrefix)}, nil
}

// sum adds the counts kept as a hash's values ("n:expiry", expiry in Unix ms) that have not
// expired; a bare "n" (written before counts had leases) always counts.
func (s *Redis) sum(vs []string) int {
	now := s.now().UnixMilli()
	total := 0
	for _, v := range vs {
		n, exp, leased := strings.Cut(v, ":")
		c, _ := strconv.Atoi(n)
		if leased {
			if e, err := strconv.ParseInt(exp, 10, 64); err == nil && e <= now {
				continue
			}
		}
		total += c
	}
	return total
}

// sumLua sets the local presenters to the sum of KEYS[4]'s counts not expired at ARGV[1]
// (now, ms), as [Redis.sum] does.
const sumLua = `
local presenters = 0
for _, v in ipairs(redis.call("HVALS", KEYS[4])) do
  local n, exp = string.match(v, "^(%d+):(%d+)$")
  if n == nil then presenters = presenters + (tonumber(v) or 0)
  elseif tonumber(exp) > tonumber(ARGV[1]) then presenters = presenters + tonumber(n) end
end
`

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

// keepLua keeps a room alive: KEYS[1] the room, KEYS[2] its followers, KEYS[3] all rooms,
// KEYS[4] its presenters, KEYS[5] its answers, KEYS[6] their tally, KEYS[7] its tomb, KEYS[8]
// all tombs; ARGV[1] now (ms), ARGV[2] TTL (ms), ARGV[3] the code. It returns nil when the
// room is gone. The tomb is kept until EndedTTL past the room's new expiry.
var keepLua = `
if redis.call("PEXPIRE", KEYS[1], ARGV[2]) == 0 then return false end
redis.call("PEXPIRE", KEYS[2], ARGV[2])
redis.call("PEXPIRE", KEYS[4], ARGV[2])
redis.call("PEXPIRE", KEYS[5], ARGV[2])
redis.call("PEXPIRE", KEYS[6], ARGV[2])
local expiry = tonumber(ARGV[1]) + tonumber(ARGV[2])
redis.call("ZADD", KEYS[3], "XX", expiry, ARGV[3])
for _, f in ipairs({"owner", "network"}) do
  local k = redis.call("HGET", KEYS[1], f)
  if k and k ~= "" then
    redis.call("ZADD", k, "XX", expiry, ARGV[3])
    redis.call("PEXPIRE", k, ARGV[2])
  end
end
local ended = ` + endedLua + `
redis.call("HSET", KEYS[7], "until", expiry + ended)
redis.call("PEXPIRE", KEYS[7], tonumber(ARGV[2]) + ended)
redis.call("ZADD", KEYS[8], expiry + ended, ARGV[3])
`

// touchScript: KEYS and ARGV as keepLua's, then ARGV[4] a server (replica) and ARGV[5] the
// counts' lease (ms). It keeps the room alive and renews the server's counts in it.
var touchScript = redis.NewScript(keepLua + `
local exp = tonumber(ARGV[1]) + tonumber(ARGV[5])
for _, k in ipairs({KEYS[2], KEYS[4]}) do
  local v = redis.call("HGET", k, ARGV[4])
  if v then redis.call("HSET", k, ARGV[4], string.match(v, "^(%d+)") .. ":" .. exp) end
end
return 1`)

// updateScript: KEYS as keepLua's; ARGV as keepLua's, then the url, the step, revealed and
// reveal_open ("1" or "0"). It changes
// the room (and its tomb), keeps it alive and publishes it, all in one script — so that the
// change happens with its announcement or not at all — and returns what it published (see
// wireRoom), or nil when the room is gone.
var updateScript = redis.NewScript(keepLua + `
redis.call("HINCRBY", KEYS[1], "version", 1)
redis.call("HSET", KEYS[1], "url", ARGV[4], "step", ARGV[5], "revealed", ARGV[6], "reveal_open", ARGV[7], "active", ARGV[1])
local h = redis.call("HMGET", KEYS[1], "lab", "url", "step", "version", "active", "answers")
redis.call("HSET", KEYS[7], "lab", h[1], "url", ARGV[4], "step", ARGV[5])
` + sumLua + `
local msg = cjson.encode({code = ARGV[3], lab = h[1], url = h[2], step = h[3], version = tonumber(h[4]), active = tonumber(h[5]),
  revealed = ARGV[6] == "1", reveal_open = ARGV[7] == "1", presenters = presenters, answers = tonumber(h[6]) or 0})
redis.call("PUBLISH", KEYS[1], msg)
return msg`)

// answerScript: KEYS as keepLua's; ARGV as keepLua's, then the step, the follower, the answer
// and MaxAnswers. It records the answer in place of the follower's earlier one to the step,
// moves the tally, and publishes the room with its answers' count grown, all in one script —
// an answer is counted once whichever server takes it, and a reconnected follower's replaces
// its earlier one — and answers 1 (recorded), 0 (unchanged), -2 (ErrClosed), -3
// (ErrAnswersFull), or nil when the room is gone.
var answerScript = redis.NewScript(keepLua + `
local r = redis.call("HMGET", KEYS[1], "step", "revealed")
if r[1] ~= ARGV[4] or r[2] == "1" then return -2 end
local f = ARGV[4] .. "\n" .. ARGV[5]
local old = redis.call("HGET", KEYS[5], f)
if old == ARGV[6] then return 0 end
if not old and redis.call("HLEN", KEYS[5]) >= tonumber(ARGV[7]) then return -3 end
if old then
  local o = ARGV[4] .. "\n" .. old
  if redis.call("HINCRBY", KEYS[6], o, -1) <= 0 then redis.call("HDEL", KEYS[6], o) end
end
redis.call("HSET", KEYS[5], f, ARGV[6])
redis.call("HINCRBY", KEYS[6], ARGV[4] .. "\n" .. ARGV[6], 1)
redis.call("HINCRBY", KEYS[1], "answers", 1)
redis.call("PEXPIRE", KEYS[5], ARGV[2])
redis.call("PEXPIRE", KEYS[6], ARGV[2])
local h = redis.call("HMGET", KEYS[1], "lab", "url", "step", "version", "active", "answers", "revealed", "reveal_open")
` + sumLua + `
redis.call("PUBLISH", KEYS[1], cjson.encode({code = ARGV[3], lab = h[1], url = h[2], step = h[3], version = tonumber(h[4]),
  active = tonumber(h[5]), answers = tonumber(h[6]), revealed = h[7] == "1", reveal_open = h[8] == "1", presenters = presenters}))
return 1`)

// Answer records a follower's answer to the step on show, and publishes the room.
func (s *Redis) Answer(ctx context.Context, code, step, follower, value string) error {
	n, err := answerScript.Run(ctx, s.c, keysOf(code), s.now().UnixMilli(), s.ttl.Milliseconds(), code,
		step, follower, value, MaxAnswers).Int()
	switch {
	case errors.Is(err, redis.Nil):
		return ErrNotFound
	case err != nil:
		return unavailable("answer in", code, err)
	case n == -2:
		return ErrClosed
	case n == -3:
		return ErrAnswersFull
	}
	return nil
}

// Mine returns a follower's answer to step.
func (s *Redis) Mine(ctx context.Context, code, step, follower string) (string, error) {
	v, err := s.c.HGet(ctx, answersKey(code), step+"\n"+follower).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	if err != nil {
		return "", unavailable("answer in", code, err)
	}
	return v, nil
}

// Answers returns a room's tally.
func (s *Redis) Answers(ctx context.Context, code, step string) ([]Count, error) {
	m, err := s.c.HGetAll(ctx, tallyKey(code)).Result()
	if err != nil {
		return nil, unavailable("answers of", code, err)
	}
	cs := make([]Count, 0, len(m))
	for k, v := range m {
		st, val, _ := strings.Cut(k, "\n")
		n, _ := strconv.Atoi(v)
		if n > 0 && (step == "" || st == step) {
			cs = append(cs, Count{Step: st, Value: val, N: n})
		}
	}
	return sortCounts(cs), nil
}

// wireRoom is a room as published on its channel.
type wireRoom struct {
	Code    string `json:"code"`
	Lab     string `json:"lab"`
	URL     string `json:"url"`
	Step    string `json:"step"`
	Version int64  `json:"version"`
	Active  int64  `json:"active"` // Unix ms

	Revealed   bool  `json:"revealed"`
	RevealOpen bool  `json:"reveal_open"`
	Presenters int   `json:"presenters"`
	Answers    int64 `json:"answers"`
	Ended      bool  `json:"ended,omitempty"` // the room has ended: its watches close
}

func (w wireRoom) room() Room {
	return Room{Code: w.Code, Lab: w.Lab, URL: w.URL, Step: w.Step, Version: w.Version, Active: time.UnixMilli(w.Active),
		Revealed: w.Revealed, RevealOpen: w.RevealOpen, Presenters: w.Presenters, Answers: w.Answers}
}

// flag is a boolean as the room's hash keeps it.
func flag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// Update changes a room and publishes it.
func (s *Redis) Update(ctx context.Context, code string, st State) (Room, error) {
	msg, err := updateScript.Run(ctx, s.c, keysOf(code),
		s.now().UnixMilli(), s.ttl.Milliseconds(), code, st.URL, st.Step, flag(st.Revealed), flag(st.RevealOpen)).Text()
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
	b, err := json.Marshal(wireRoom{Code: r.Code, Lab: r.Lab, URL: r.URL, Step: r.Step, Version: r.Version, Active: r.Active.UnixMilli(),
		Revealed: r.Revealed, RevealOpen: r.RevealOpen, Presenters: r.Presenters, Answers: r.Answers})
	if err != nil {
		return err
	}
	if err := s.c.Publish(ctx, roomKey(r.Code), b).Err(); err != nil {
		return unavailable("publish", r.Code, err)
	}
	return nil
}

// Touch keeps a room alive, and renews the counts replica recorded in it for another
// [CountLease].
func (s *Redis) Touch(ctx context.Context, code, replica string) error {
	err := touchScript.Run(ctx, s.c, keysOf(code),
		s.now().UnixMilli(), s.ttl.Milliseconds(), code, replica, s.lease.Milliseconds()).Err()
	if errors.Is(err, redis.Nil) {
		return ErrNotFound
	}
	if err != nil {
		return unavailable("touch", code, err)
	}
	return nil
}

// joinScript: KEYS and ARGV as keepLua's. It keeps the room alive for TTL (a room is made to
// live JoinTTL until it is joined) and answers 1, or nil when the room is gone.
var joinScript = redis.NewScript(keepLua + `
return 1`)

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
	// A server watches a room for its first participant here: the room is joined.
	if err := joinScript.Run(hctx, s.c, keysOf(code), s.now().UnixMilli(), s.ttl.Milliseconds(), code).Err(); errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	} else if err != nil {
		return nil, unavailable("watch", code, err)
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
				if w.Ended {
					return
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
	return s.setCount(ctx, "followers of", followersKey(code), code, replica, n)
}

// SetPresenters records a server's presenters and publishes the room.
func (s *Redis) SetPresenters(ctx context.Context, code, replica string, n int) error {
	return s.setCount(ctx, "presenters of", presentersKey(code), code, replica, n)
}

// setCount records a server's count in the hash key of a room, then publishes the room.
func (s *Redis) setCount(ctx context.Context, what, key, code, replica string, n int) error {
	if _, err := s.Get(ctx, code); err != nil {
		return err
	}
	pipe := s.c.TxPipeline()
	if n == 0 {
		pipe.HDel(ctx, key, replica)
	} else {
		pipe.HSet(ctx, key, replica, fmt.Sprintf("%d:%d", n, s.now().Add(s.lease).UnixMilli()))
	}
	pipe.PExpire(ctx, key, s.ttl)
	if _, err := pipe.Exec(ctx); err != nil {
		return unavailable(what, code, err)
	}
	r, err := s.Get(ctx, code)
	if err != nil {
		return err
	}
	return s.publish(ctx, r)
}

// endScript: KEYS the room, its followers, its presenters, all rooms, its answers and their
// tally, its tomb and all tombs; ARGV the code, the end's message and now (ms). It answers 0
// when the room is gone already, and leaves the room's tomb for EndedTTL.
var endScript = redis.NewScript(`
local owner = redis.call("HGET", KEYS[1], "owner")
if not owner then return 0 end
local network = redis.call("HGET", KEYS[1], "network")
local h = redis.call("HMGET", KEYS[1], "lab", "url", "step")
local ended = ` + endedLua + `
local untl = tonumber(ARGV[3]) + ended
redis.call("HSET", KEYS[7], "lab", h[1] or "", "url", h[2] or "", "step", h[3] or "", "until", untl)
redis.call("PEXPIRE", KEYS[7], ended)
redis.call("ZADD", KEYS[8], untl, ARGV[1])
redis.call("DEL", KEYS[1], KEYS[2], KEYS[3], KEYS[5], KEYS[6])
redis.call("ZREM", KEYS[4], ARGV[1])
if owner ~= "" then redis.call("ZREM", owner, ARGV[1]) end
if network and network ~= "" then redis.call("ZREM", network, ARGV[1]) end
redis.call("PUBLISH", KEYS[1], ARGV[2])
return 1`)

// End forgets a room and tells its watchers.
func (s *Redis) End(ctx context.Context, code string) error {
	msg, _ := json.Marshal(wireRoom{Code: code, Ended: true})
	n, err := endScript.Run(ctx, s.c, []string{roomKey(code), followersKey(code), presentersKey(code), roomsKey, answersKey(code), tallyKey(code), tombKey(code), tombsKey},
		code, msg, s.now().UnixMilli()).Int()
	if err != nil {
		return unavailable("end", code, err)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

// Ended returns what an ended room showed last: its tomb, once the room is gone.
func (s *Redis) Ended(ctx context.Context, code string) (Room, error) {
	pipe := s.c.Pipeline()
	live := pipe.Exists(ctx, roomKey(code))
	tomb := pipe.HGetAll(ctx, tombKey(code))
	if _, err := pipe.Exec(ctx); err != nil {
		return Room{}, unavailable("ended", code, err)
	}
	m := tomb.Val()
	until, err := strconv.ParseFloat(m["until"], 64)
	if live.Val() > 0 || m["url"] == "" || err != nil || s.now().UnixMilli() >= int64(until) {
		return Room{}, ErrNotFound
	}
	return Room{Code: code, Lab: m["lab"], URL: m["url"], Step: m["step"]}, nil
}

// Followers sums a room's followers over replicas.
func (s *Redis) Followers(ctx context.Context, code string) (int, error) {
	vs, err := s.c.HVals(ctx, followersKey(code)).Result()
	if err != nil {
		return 0, unavailable("followers of", code, err)
	}
	return s.sum(vs), nil
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

// Package room keeps the state of live teaching sessions: a presenter drives a lab's scenario
// and every follower's page shows it as it changes. Because a scenario is its URL and runs are
// deterministic, a room only needs to share its current URL (and tour step): each server that
// has followers of a room computes the scenario once and fans the frames out to them (see
// package api).
//
// A room is known by a short join code, which anyone in the classroom may see, and driven by
// whoever holds its presenter key, a secret that cannot be guessed from the code; only a hash
// of the key is stored. Rooms live in a [Store]: [NewMemory] for one server, [NewRedis] when
// the playground runs as several replicas behind a load balancer, which then share rooms
// through Redis (state in a hash, changes on a pub/sub channel). Rooms expire after a period
// without activity ([TTL]) — a room nobody has joined, soon after it was made ([JoinTTL]) — and
// the memory store sweeps them away; a store keeps at most Limits.Rooms rooms, at most
// Limits.PerOwner of one client's and Limits.PerNetwork of one network's (an IPv4 /24, an IPv6
// /48: one attacker's addresses). Nothing is written to disk.
//
// A room that has ended — its presenter ended it, or it expired — leaves a tombstone: its last
// scenario and tour step, kept for [EndedTTL] (and while the store keeps fewer than twice
// Limits.Rooms rooms and tombstones together, the oldest giving way), so that a link to the
// room someone kept, or a page reloaded after the end, still reaches the scenario the room
// showed ([Store.Ended]; package api redirects /join/CODE there).
package room

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Errors of a Store.
var (
	ErrNotFound = errors.New("room: no such room (it has ended or never existed)")
	ErrExists   = errors.New("room: the code is taken")
	// ErrFull refuses a new room when the store keeps Limits.Rooms live rooms.
	ErrFull = errors.New("room: the store keeps as many rooms as it may")
	// ErrOwnerFull refuses a new room when its owner has Limits.PerOwner live rooms.
	ErrOwnerFull = errors.New("room: the owner has as many open rooms as it may")
	// ErrNetworkFull refuses a new room when its owner's network has Limits.PerNetwork live
	// rooms.
	ErrNetworkFull = errors.New("room: the owner's network has as many open rooms as it may")
	// ErrUnavailable is wrapped by the errors of a store that did not answer (Redis down,
	// stalled past the caller's deadline): the room may exist, and the caller may try again.
	ErrUnavailable = errors.New("room: the store is unavailable")
	// ErrClosed refuses an answer to a step the room does not show, or whose answer has been
	// revealed: answers are taken until Reveal.
	ErrClosed = errors.New("room: the step takes no answers now (it is not on show, or it is revealed)")
	// ErrAnswersFull refuses a new answer when the room keeps MaxAnswers answers.
	ErrAnswersFull = errors.New("room: the room keeps as many answers as it may")
)

// MaxAnswers bounds the answers a room keeps (one per follower and step): a class of 500 through
// 40 predictions.
const MaxAnswers = 20_000

// A Count is how many followers gave one answer to one step of a room: a line of its tally.
type Count struct {
	Step  string `json:"step"`
	Value string `json:"value"`
	N     int    `json:"n"`
}

// Limits bound the rooms a store keeps, so that no one client — and no flood of clients — can
// fill the server's memory (or Redis's) with rooms. Zero fields take the defaults.
type Limits struct {
	// Rooms is the most live rooms at once, over every server sharing the store: default
	// 10,000 (about 10 MB in memory). Beside its live rooms a store keeps the tombstones of
	// ended rooms (Store.Ended), rooms and tombstones together at most twice Rooms: the
	// oldest tombstones give way to newer ones.
	Rooms int
	// PerOwner is the most live rooms one owner (a client, as the API names it) may have
	// created: default 20.
	PerOwner int
	// PerNetwork is the most live rooms the owners of one network (see NetworkOf) may have
	// created between them: default 100. An attacker holding a /24 of IPv4 addresses or a
	// /48 of IPv6 addresses is one network, not thousands of owners.
	PerNetwork int
}

// Default limits.
const (
	DefaultRooms      = 10_000
	DefaultPerOwner   = 20
	DefaultPerNetwork = 100
)

func (l Limits) withDefaults() Limits {
	if l.Rooms <= 0 {
		l.Rooms = DefaultRooms
	}
	if l.PerOwner <= 0 {
		l.PerOwner = DefaultPerOwner
	}
	if l.PerNetwork <= 0 {
		l.PerNetwork = DefaultPerNetwork
	}
	return l
}

// NetworkOf returns the network an owner's rooms count against for Limits.PerNetwork: the /24
// of an IPv4 address, the /48 of an IPv6 address or prefix (the API names an IPv6 client by
// its /64); "" for an owner that is neither (no network limit).
func NetworkOf(owner string) string {
	var p netip.Prefix
	if a, err := netip.ParseAddr(owner); err == nil {
		p = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
	} else if q, err := netip.ParsePrefix(owner); err == nil {
		p = q
	} else {
		return ""
	}
	bits := 48
	if p.Addr().Is4() {
		bits = 24
	}
	if p.Bits() < bits {
		return p.Masked().String()
	}
	n, err := p.Addr().Prefix(bits)
	if err != nil {
		return ""
	}
	return n.String()
}

// Room is a room's shared state.
type Room struct {
	Code    string    `json:"code"`
	Lab     string    `json:"lab"`
	URL     string    `json:"url"`     // the canonical scenario URL the room shows
	Step    string    `json:"step"`    // the tour step shown, "" for none
	Version int64     `json:"version"` // grows with every change of URL, step or reveal
	Active  time.Time `json:"active"`  // last change or sign of life
	// Revealed: the presenter has revealed the answer of the step on show (a step that asks
	// the class to predict); RevealOpen: followers may reveal it for themselves first.
	Revealed   bool `json:"revealed"`
	RevealOpen bool `json:"reveal_open"`
	// Presenters is how many presenter connections the room has, over every server: 0 when
	// its presenter has gone (closed the page, lost the network).
	Presenters int `json:"presenters"`
	// Answers grows with every answer a follower gives or changes: a watcher seeing it grow
	// reads the tally (Store.Answers) again.
	Answers int64 `json:"answers"`
	// Owner is the client that created the room, as Create was told ("" for none), by Get:
	// the room's runs are charged to it. Participants are never sent it.
	Owner string `json:"-"`
}

// State is what a presenter sets of a room: its scenario, tour step and reveal.
type State struct {
	URL, Step            string
	Revealed, RevealOpen bool
}

// Store keeps rooms and tells servers of their changes.
type Store interface {
	// Create stores a new room with the hash of its presenter key (see HashKey), created by
	// owner ("" for none). It fails with ErrExists if the code is taken, ErrFull,
	// ErrOwnerFull or ErrNetworkFull at the store's Limits. The room lives JoinTTL unless
	// someone joins it (Watch, Touch), then TTL after its last activity.
	Create(ctx context.Context, r Room, keyHash, owner string) error
	// Get returns a room, or ErrNotFound.
	Get(ctx context.Context, code string) (Room, error)
	// Present checks a presenter key against the room's, in constant time.
	Present(ctx context.Context, code, key string) (bool, error)
	// Update sets the room's state (URL, step, reveal), advances its version and tells every
	// watcher.
	Update(ctx context.Context, code string, s State) (Room, error)
	// Touch keeps a room alive that has participants on server replica, and renews the counts
	// replica recorded in it (SetFollowers, SetPresenters) for another CountLease.
	Touch(ctx context.Context, code, replica string) error
	// Watch returns the room's changes from now on, newest first if a watcher falls behind
	// (older ones are dropped), until ctx ends. Follower counts changing also come through
	// it, as the room unchanged.
	Watch(ctx context.Context, code string) (<-chan Room, error)
	// SetFollowers records how many followers a server (replica) has in a room, and tells
	// every watcher; Followers sums them over servers.
	SetFollowers(ctx context.Context, code, replica string, n int) error
	Followers(ctx context.Context, code string) (int, error)
	// SetPresenters records how many presenter connections a server has in a room, and tells
	// every watcher the room with Presenters summed over servers.
	SetPresenters(ctx context.Context, code, replica string, n int) error
	// Answer records follower's answer (value) to step, replacing the follower's earlier
	// answer to it, and tells every watcher (Room.Answers grows) if it changed. It fails with
	// ErrClosed unless the room shows step unrevealed, with ErrAnswersFull when the room keeps
	// MaxAnswers answers. follower is an anonymous id; value is checked by the caller.
	Answer(ctx context.Context, code, step, follower, value string) error
	// Mine returns follower's answer to step, "" for none.
	Mine(ctx context.Context, code, step, follower string) (string, error)
	// Answers returns the room's tally of step ("" for every step), by step then value.
	Answers(ctx context.Context, code, step string) ([]Count, error)
	// End ends a room at its presenter's request: it is forgotten with its answers, and every
	// watcher's channel closes. Its tombstone remains (see Ended).
	End(ctx context.Context, code string) error
	// Ended returns what a room that has ended showed last — its Code, Lab, URL and Step —
	// for EndedTTL after it ended (End, or its TTL passing). It fails with ErrNotFound for a
	// code that never named a room, a room ended longer ago, a room whose tombstone gave way
	// to newer ones (see Limits.Rooms), and a live room, which has not ended: callers ask Get
	// first.
	Ended(ctx context.Context, code string) (Room, error)
	// Close releases the store's resources.
	Close() error
}

// CountLease is how long a server's follower and presenter counts in a store shared by
// several servers count after the server last recorded or renewed them (Touch), so that a
// server that stops without clearing them (killed, its machine lost) stops counting: its
// presenters no longer show as present. A server touches its rooms more often than that.
const CountLease = 30 * time.Second

// TTL is how long a room lives without activity: no change by its presenter and no server
// touching it for its participants.
const TTL = 2 * time.Hour

// EndedTTL is how long a store remembers an ended room's last scenario (its tombstone, see
// Store.Ended) after the room ended: long enough for the link a class kept from a lesson to
// still open its scenario at the next one, a week later.
const EndedTTL = 7 * 24 * time.Hour

// JoinTTL is how long a room lives that nobody has joined (no server has watched or touched
// it): a presenter opens the room's page as the room is made, so a room still unjoined after
// minutes is not a class's, and must not hold a place under Limits for two hours (issue 33:
// rooms made in a flood and never joined kept teachers out for as long as their TTL).
const JoinTTL = 10 * time.Minute

// codeAlphabet has no letters or digits that look alike (0/O, 1/I/L), so a code read off a
// projector is typed right.
const codeAlphabet = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"

// CodeLen is the length of a join code: 31^6, about 887 million codes.
const CodeLen = 6

// NewCode returns a random join code.
func NewCode() string {
	var b [CodeLen]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on supported systems
	}
	for i := range b {
		b[i] = codeAlphabet[int(b[i])%len(codeAlphabet)]
	}
	return string(b[:])
}

// NormalizeCode returns code as stored: upper case, spaces and dashes removed. It returns ""
// for a string that cannot be a code.
func NormalizeCode(code string) string {
	code = strings.ToUpper(strings.NewReplacer(" ", "", "-", "").Replace(code))
	if len(code) != CodeLen {
		return ""
	}
	for _, c := range code {
		if !strings.ContainsRune(codeAlphabet, c) {
			return ""
		}
	}
	return code
}

// NewKey returns a random presenter key: 256 bits, URL-safe.
func NewKey() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// HashKey returns the hash of a presenter key that stores keep.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// keyMatches compares a key with a stored hash in constant time.
func keyMatches(key, hash string) bool {
	return subtle.ConstantTimeCompare([]byte(HashKey(key)), []byte(hash)) == 1
}

// RedactURL returns a URL for messages and logs with what may be a secret replaced by
// "xxxxx", whether or not the URL parses: the user information before an '@' (a password, or a
// user name standing for one) and the value of every query parameter (a password given as an
// option) — the scheme, host, port, path and option names stay.
func RedactURL(raw string) string {
	if u, err := url.Parse(raw); err == nil && (u.User != nil || !strings.Contains(raw, "@")) {
		if u.User != nil {
			u.User = url.User("xxxxx")
		}
		if u.RawQuery != "" {
			q := u.Query()
			for k := range q {
				q[k] = []string{"xxxxx"}
			}
			u.RawQuery = q.Encode()
		}
		u.Fragment, u.RawFragment = "", ""
		return u.String()
	}
	// It does not parse: keep the scheme, and what follows the last '@' up to any query.
	s := raw
	if at := strings.LastIndex(raw, "@"); at >= 0 {
		start := strings.Index(raw, "//")
		if start < 0 || start > at {
			start = 0
		} else {
			start += 2
		}
		s = raw[:start] + "xxxxx" + raw[at:]
	}
	if q := strings.IndexAny(s, "?#"); q >= 0 {
		s = s[:q] + "?xxxxx"
	}
	return s
}

// withoutURL returns err with nothing of the URL it may quote, which may hold a password: a
// URL that does not parse is described, not quoted (net/url's errors quote the part that fails,
// which for a password holding a '#', '/' or '?' is part of the password), and the values of
// the URL's query options are taken out of go-redis's errors.
func withoutURL(err error, raw string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return errors.New("it is not a URL: in a user name or password, write '#', '/', '?', '@', ':' and '%' percent-encoded (%23, %2F, %3F, %40, %3A, %25)")
	}
	msg := err.Error()
	if u, perr := url.Parse(raw); perr == nil {
		for _, vs := range u.Query() {
			for _, v := range vs {
				if v != "" {
					msg = strings.ReplaceAll(msg, v, "xxxxx")
				}
			}
		}
		if p := u.User.String(); p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return errors.New(msg)
}

// sortCounts orders a tally by step, then value.
func sortCounts(cs []Count) []Count {
	slices.SortFunc(cs, func(a, b Count) int {
		if c := strings.Compare(a.Step, b.Step); c != 0 {
			return c
		}
		return strings.Compare(a.Value, b.Value)
	})
	return cs
}

package ratelimit

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"time"
)

// A Limit is a rate with its unit: at most Count requests per Per.
//
// For the window algorithms ([FixedWindowRule], [SlidingLogRule],
// [SlidingWindowRule]) Per is the window and Count the most requests it
// admits. For the bucket family ([TokenBucketRule], [LeakyMeterRule],
// [LeakyQueueRule], [GCRARule]) Count/Per is the rate at which the bucket
// refills or drains; those rules work with the emission interval
// [Limit.Interval], Per/Count rounded up to a whole nanosecond, so their
// rate never exceeds the limit and is exact whenever Count divides Per (as
// in 100 per minute: 600ms).
//
// Constructors clamp a Limit instead of failing: a negative Count is 0 (a
// window that admits nothing; a bucket that never refills), and a Per
// below one nanosecond is one nanosecond.
type Limit struct {
	Count int           // requests; clamped to >= 0
	Per   time.Duration // window or rate period; clamped to >= 1ns
}

// String returns the limit as "Count per Per", for example "100 per 1m0s".
func (l Limit) String() string { return fmt.Sprintf("%d per %v", l.Count, l.Per) }

// Interval returns the emission interval of l: Per/Count rounded up to a
// whole nanosecond, at least 1ns. It returns 0 when Count <= 0 (the rate is
// zero, so no interval).
func (l Limit) Interval() time.Duration {
	count, per := l.clamp()
	if count == 0 {
		return 0
	}
	return time.Duration(ceilDiv(per, count))
}

// clamp returns Count and Per clamped as documented on Limit.
func (l Limit) clamp() (count, per int64) {
	return int64(max(l.Count, 0)), int64(max(l.Per, 1))
}

// Rule is the decision of one rate-limiting algorithm, separated from the
// state it keeps for one key (one client, one API key...). A rule is an
// immutable configuration value; the state S is a plain value that a store
// can hold, and the zero S is the state of a key never seen. See the
// package documentation for how the in-process limiters, a simulated store
// and a real store share a rule.
//
// All times are int64 nanoseconds: since the Unix epoch for real clocks
// ([time.Time.UnixNano]), or since the start of a simulation.
type Rule[S any] interface {
	// Decide reports whether n requests arriving at now are admitted by
	// the key whose state is s, and returns the key's next state. It
	// does not modify s (for the sliding log it copies the log before
	// appending). When it refuses, it returns s itself. A call with
	// n <= 0 is admitted and returns s.
	Decide(s S, now int64, n int) (next S, ok bool)
	// Update is Decide in place: *s becomes the next state. It never
	// allocates once a sliding log has grown to its working size.
	Update(s *S, now int64, n int) bool
	// Estimate returns the algorithm's own view, at now, of how many
	// requests the key made in the last window: the quantity it compares
	// with the limit. Each rule documents what it is. It does not
	// change s.
	Estimate(s S, now int64) float64
	// Counters returns the rule's formulation on a store that offers
	// only atomic increments and reads, or an error wrapping
	// ErrNeedsAtomicUpdate if the algorithm cannot run on such a store.
	Counters() (Counters, error)
}

// Merger is implemented by the rules whose states are counters (or logs)
// that can be combined: [FixedWindowRule], [SlidingWindowRule] and
// [SlidingLogRule]. It serves stores that propagate increments between
// instances asynchronously: an instance that admits n requests at now
// sends Delta(now, n) to the others, and each of them folds it into its
// own copy with Merge.
type Merger[S any] interface {
	// Delta returns the state of a key that has seen only n requests,
	// all at now.
	Delta(now int64, n int) S
	// Merge returns the state holding the requests of both a and b. It
	// adds: merging the same requests twice counts them twice, so pass
	// deltas, not whole replicas.
	Merge(a, b S) S
}

// Limiter is implemented by the in-process limiters of this package. They
// hold one key's state behind a mutex and apply their rule's Update to it.
type Limiter interface {
	// Allow is AllowN(time.Now(), 1).
	Allow() bool
	// AllowN reports whether n requests may happen at now, and if so
	// records them.
	AllowN(now time.Time, n int) bool
	// Estimate returns the rule's Estimate at now.
	Estimate(now time.Time) float64
}

// Versioned pairs a key's state with a version number, for stores that
// update keys by compare-and-swap: read a Versioned value, decide on its
// State, and write Versioned{next, v.Version + 1} only if the stored
// version is still v.Version, retrying from the read otherwise. (The
// fixed-size states are comparable, so a store could also compare the
// states themselves; a version is immune to a state coming back to an
// earlier value.)
type Versioned[S any] struct {
	State   S
	Version uint64
}

// ErrNeedsAtomicUpdate is wrapped by the error a rule's Counters method
// returns when the algorithm cannot run on a store that offers only atomic
// increments and reads, such as Memcached.
var ErrNeedsAtomicUpdate = errors.New("needs an atomic read-modify-write; a store of increment-only counters cannot hold its state")

// needsAtomic returns the error for the named algorithm.
func needsAtomic(what string) error {
	return fmt.Errorf("%s: %w", what, ErrNeedsAtomicUpdate)
}

var (
	errLogCounters    = needsAtomic("sliding log (its state is a list of timestamps)")
	errBucketCounters = needsAtomic("token bucket (its state is a level and a time updated together)")
	errMeterCounters  = needsAtomic("leaky bucket as a meter (its state is a level and a time updated together)")
	errQueueCounters  = needsAtomic("leaky bucket as a queue (its state is a time that only moves by max(now, t) + n·interval)")
	errGCRACounters   = needsAtomic("GCRA (its state is a time that only moves by max(now, tat) + n·interval)")
)

// Counters is the increment-only formulation of a window algorithm, for
// stores such as Memcached whose only atomic operations are increments
// and reads. The key's state is a set of counters, one per window of
// length Window aligned to multiples of Window since time zero; the
// counter of window i is the store key "{client}_{i}" (the Criteo post's
// "{client}_{yyyyMMddHHmm}" for one-minute windows). A request at now:
//
//  1. increments the counter of window Index(now) by n (INCR),
//  2. reads the Previous counters before it (GET; none for a fixed window),
//  3. is admitted if Admit(counts, now, 0) with counts the Previous+1
//     values, oldest first, the current one as INCR returned it.
//
// INCR-then-check never admits more than the limit at a single store (each
// admitted request saw a count that includes every earlier increment), but
// it also counts the refused requests, which is punitive: a client that
// keeps calling above the limit keeps its counters high, and with a sliding
// window its refused calls weigh on the next windows too. A caller that
// wants to count only admitted requests decrements the counter by n (DECR)
// after a refusal; between the INCR and the DECR other instances see the
// inflated count and may refuse requests the in-process limiter would have
// admitted, so under contention it under-admits slightly and never
// over-admits. The alternative order, read the counters, decide with
// Admit(counts, now, n), and INCR only if admitted, counts only admitted
// requests but is a read-then-write race that over-admits under
// contention. A store simulation can offer the three variants; this
// package only supplies the arithmetic.
//
// Counters older than Expiry are never read again and may expire.
type Counters struct {
	Limit    int64         // the most requests admitted per window
	Window   time.Duration // length of one counter's window, >= 1ns
	Previous int           // earlier counters read: 0 for a fixed window, k for k sub-windows
}

// Index returns the index of the window that now falls in: the counter to
// increment. Window i covers [i·Window, (i+1)·Window).
func (c Counters) Index(now int64) int64 {
	return floorDiv(now, int64(max(c.Window, 1)))
}

// Admit reports whether a request of n at now is admitted, given the
// counts of windows Index(now)-Previous to Index(now), oldest first: the
// estimate [Counters.Estimate] plus n must not exceed Limit. Pass n = 0
// when the counts already include the request (INCR-then-check), n when
// they do not (read-then-INCR). Negative counts are read as 0. Admit
// panics if len(counts) != Previous+1.
//
// The comparison is exact, in integers: no rounding of the weights can
// turn a refusal into an admission.
func (c Counters) Admit(counts []int64, now int64, n int) bool {
	full, oldest, rem, win := c.split(counts, now)
	return admitWeighted(full, oldest, rem, win, int64(max(n, 0)), c.Limit)
}

// Estimate returns the requests in the last window as the counters
// estimate them, from counts as for Admit. With Previous = 0 (a fixed
// window) it is the current window's count. Otherwise the sliding window
// is (now - Previous·Window, now]: the estimate is the counts of the
// Previous newest windows, the current one included, plus the oldest count
// weighted by the part of its window still inside the sliding window.
// Admit admits n exactly when Estimate + n <= Limit.
func (c Counters) Estimate(counts []int64, now int64) float64 {
	full, oldest, rem, win := c.split(counts, now)
	return float64(full) + float64(oldest)*float64(rem)/float64(win)
}

// Expiry returns how long a counter must be kept after its window starts:
// it is read until Previous more windows have begun, so (Previous+1)·Window.
func (c Counters) Expiry() time.Duration {
	return time.Duration(c.Previous+1) * max(c.Window, 1)
}

// split returns the full-weight sum of counts, the count to weigh, and its
// weight as rem/win.
func (c Counters) split(counts []int64, now int64) (full, oldest, rem, win int64) {
	if len(counts) != c.Previous+1 {
		panic(fmt.Sprintf("ratelimit: Counters with Previous = %d needs %d counts, got %d", c.Previous, c.Previous+1, len(counts)))
	}
	win = int64(max(c.Window, 1))
	if c.Previous == 0 {
		return max(counts[0], 0), 0, 0, win
	}
	for _, v := range counts[1:] {
		full = satAdd(full, max(v, 0))
	}
	elapsed := now - c.Index(now)*win
	return full, max(counts[0], 0), win - elapsed, win
}

// admitWeighted reports whether full + n + oldest·rem/win <= limit, exactly.
// All arguments are >= 0 and win > 0, rem <= win.
func admitWeighted(full, oldest, rem, win, n, limit int64) bool {
	room := limit - full // full, limit >= 0: no overflow
	if n > room {
		return false
	}
	room -= n
	if oldest == 0 || rem == 0 {
		return true
	}
	// oldest·rem <= room·win, in 128 bits.
	lhi, llo := bits.Mul64(uint64(oldest), uint64(rem))
	rhi, rlo := bits.Mul64(uint64(room), uint64(win))
	return lhi < rhi || lhi == rhi && llo <= rlo
}

// floorDiv returns ⌊a/b⌋ for b > 0.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// ceilDiv returns ⌈a/b⌉ for a >= 0, b > 0.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 {
		q++
	}
	return q
}

// satAdd returns a+b for a, b >= 0, saturating at math.MaxInt64.
func satAdd(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// maxFull bounds capacity·interval for the bucket family, so that sums of
// a level, a request and a time stay far from overflow.
const maxFull = math.MaxInt64 / 4

// bucketConfig returns the interval and capacity of a bucket-family rule for
// limit l and capacity burst: interval = l.Interval() (0 when the rate is
// zero), and burst clamped to [0, maxFull/interval].
func bucketConfig(l Limit, burst int) (interval, capacity int64) {
	interval = int64(l.Interval())
	capacity = int64(max(burst, 0))
	if interval > maxFull { // a rate below one request per ~73 years
		interval = 0
	}
	if interval > 0 {
		capacity = min(capacity, maxFull/interval)
	} else {
		capacity = min(capacity, maxFull)
	}
	return interval, capacity
}

package ratelimit

import (
	"math"
	"sync"
	"time"
)

// InfDuration is the duration [TokenBucket.Delay] returns when a token will
// never become available.
const InfDuration = time.Duration(math.MaxInt64)

// TokenBucketRule is the token bucket: a bucket of capacity burst tokens,
// full at the start, refilled continuously at Count tokens per Per up to
// its capacity; a request of n takes n tokens if the bucket holds them and
// is refused otherwise (a refused request takes nothing). This is the
// algorithm of golang.org/x/time/rate and of the Criteo post's "token
// bucket" section: a token count and the time of the last refill, refilled
// lazily on each call.
//
//   - Memory per key: two integers ([TokenBucketState], 16 bytes): what is
//     missing from a full bucket and the time of the last refill.
//   - Store operations per request: read both, refill, take, write both,
//     atomically (a Lua script in Redis, or compare-and-swap with retries);
//     it cannot run on increments alone.
//   - Burst: burst is the capacity, the most requests admitted at one
//     instant from rest, as in golang.org/x/time/rate. With burst = Count
//     it is comparable with a window of Count per Per; but from a full
//     bucket under sustained overload it admits the burst plus the refill,
//     close to 2·Count, within the first window length.
//   - Estimate: capacity minus tokens, the tokens in use; it decays
//     linearly at the refill rate rather than dropping when requests leave a
//     window.
//
// Tokens are not kept as a count: the state holds the deficit, the time the
// refill needs to make the bucket full again (missing tokens × [Limit.Interval]),
// so the arithmetic is exact in integer nanoseconds and the zero state is
// a full bucket, which is what a store returns for a key it has never seen.
// The refill rate is one token per Interval, Per/Count rounded up to a
// whole nanosecond.
//
// A Count of 0 means the bucket never refills: only the first burst tokens
// are ever given. A time before the state's last refill is treated as no
// time passing: it adds no tokens and does not move the bucket's clock
// back, so calls that arrive out of order never earn the same interval
// twice. This is the one difference from [GCRARule], which admits the same
// requests when times never go backwards.
type TokenBucketRule struct {
	interval int64 // ns per token, 0: no refill
	unit     int64 // deficit per token: interval, or 1 without refill
	capacity int64 // burst, in [0, maxFull/unit]
	full     int64 // capacity·unit
	inf      bool  // every request admitted
}

// TokenBucketState is the state of one key under a [TokenBucketRule]. The
// zero value is a full bucket, a key never seen.
type TokenBucketState struct {
	// Deficit is how far the bucket is from full, in nanoseconds of
	// refill: the missing tokens times the rule's interval (or the missing
	// tokens themselves if the bucket never refills).
	Deficit int64
	// Last is the time of the latest refill, ns.
	Last int64
}

// NewTokenBucketRule returns the token bucket that refills at l's rate and
// holds up to burst tokens. l is clamped as documented on [Limit]; a
// negative burst is 0 (a bucket that admits nothing), and burst is clamped
// to at most about 2.3e18 nanoseconds divided by the interval (for 100 per
// minute, 3.8e9 tokens). An interval above that, about 73 years, counts as
// a zero rate.
func NewTokenBucketRule(l Limit, burst int) TokenBucketRule {
	interval, capacity := bucketConfig(l, burst)
	return newTokenBucketRule(interval, capacity)
}

func newTokenBucketRule(interval, capacity int64) TokenBucketRule {
	unit := max(interval, 1)
	return TokenBucketRule{interval: interval, unit: unit, capacity: capacity, full: capacity * unit}
}

// tokenBucketRuleFromRate returns the rule for rate tokens per second; see
// NewTokenBucket.
func tokenBucketRuleFromRate(rate float64, burst int) TokenBucketRule {
	if math.IsInf(rate, 1) {
		return TokenBucketRule{inf: true, unit: 1}
	}
	var interval int64
	if rate > 0 { // not negative, zero or NaN
		iv := math.Ceil(float64(time.Second) / rate)
		if iv <= float64(maxFull) {
			interval = max(int64(iv), 1)
		}
	}
	capacity := int64(max(burst, 0))
	return newTokenBucketRule(interval, min(capacity, maxFull/max(interval, 1)))
}

// Limit returns the rule's rate as one token per interval ({1, interval}),
// or {0, 1s} if the bucket never refills.
func (r TokenBucketRule) Limit() Limit {
	if r.interval == 0 {
		return Limit{Count: 0, Per: time.Second}
	}
	return Limit{Count: 1, Per: time.Duration(r.interval)}
}

// Burst returns the bucket's capacity in tokens.
func (r TokenBucketRule) Burst() int { return int(r.capacity) }

// Decide reports whether n requests at now are admitted and returns the
// next state; see [Rule]. n > burst is never admitted, unless the rule
// comes from NewTokenBucket with an infinite rate, which admits everything.
func (r TokenBucketRule) Decide(s TokenBucketState, now int64, n int) (TokenBucketState, bool) {
	ok := r.Update(&s, now, n)
	return s, ok
}

// Update is Decide in place; see [Rule].
func (r TokenBucketRule) Update(s *TokenBucketState, now int64, n int) bool {
	if n <= 0 || r.inf {
		return true
	}
	if int64(n) > r.capacity {
		return false
	}
	d, last := s.Deficit, s.Last
	if now > last { // last >= 0 (it starts at 0 and only moves forward): no overflow
		if r.interval > 0 {
			d = max(d-(now-last), 0)
		}
		last = now
	}
	need := int64(n) * r.unit // <= full
	if d > r.full-need {
		return false
	}
	s.Deficit, s.Last = d+need, last
	return true
}

// deficit returns the deficit of s at now without changing s.
func (r TokenBucketRule) deficit(s TokenBucketState, now int64) int64 {
	if now > s.Last && r.interval > 0 {
		return max(s.Deficit-(now-s.Last), 0)
	}
	return s.Deficit
}

// Tokens returns the tokens the bucket holds at now, in [0, burst], with a
// fractional part; +Inf for an infinite rate.
func (r TokenBucketRule) Tokens(s TokenBucketState, now int64) float64 {
	if r.inf {
		return math.Inf(1)
	}
	avail := r.full - r.deficit(s, now)
	return float64(avail/r.unit) + float64(avail%r.unit)/float64(r.unit)
}

// Estimate returns burst minus [TokenBucketRule.Tokens]: the tokens in use,
// with a fractional part; 0 for an infinite rate.
func (r TokenBucketRule) Estimate(s TokenBucketState, now int64) float64 {
	if r.inf {
		return 0
	}
	d := r.deficit(s, now)
	return float64(d/r.unit) + float64(d%r.unit)/float64(r.unit)
}

// Delay returns how long after now the bucket will hold one token; see
// [TokenBucket.Delay].
func (r TokenBucketRule) Delay(s TokenBucketState, now int64) time.Duration {
	if r.inf {
		return 0
	}
	d := r.deficit(s, now)
	if r.capacity >= 1 && d <= r.full-r.unit {
		return 0
	}
	if r.capacity < 1 || r.interval == 0 {
		return InfDuration
	}
	wait := d - (r.full - r.unit)
	if s.Last > now {
		// Refill starts at s.Last. The unsigned difference is exact.
		gap := uint64(s.Last) - uint64(now)
		if gap >= uint64(math.MaxInt64-wait) {
			return InfDuration
		}
		wait += int64(gap)
	}
	return time.Duration(wait)
}

// Counters reports that the token bucket cannot run on increment-only
// counters.
func (r TokenBucketRule) Counters() (Counters, error) {
	return Counters{}, errBucketCounters
}

// TokenBucket is an in-process token bucket: a [TokenBucketRule] and one
// key's state behind a mutex. It is safe for concurrent use. The zero value
// is not usable; use [NewTokenBucket] or [NewTokenBucketLimit].
//
// Unlike golang.org/x/time/rate it has no reservations and no waiting; a
// caller that wants to wait sleeps for [TokenBucket.Delay] itself.
type TokenBucket struct {
	rule  TokenBucketRule
	mu    sync.Mutex
	state TokenBucketState
}

// NewTokenBucket returns a bucket that holds up to burst tokens, refills at
// rate tokens per second, and starts full.
//
// The bucket refills one token per interval, 1s/rate rounded up to a whole
// nanosecond: exact for rates such as 2 or 0.25 per second, and never
// faster than rate; rates of 1e9 per second and more all refill one token
// per nanosecond. A rate of 0 means the bucket never refills, so only the
// initial burst is ever allowed, and so does a rate below one token per
// about 73 years; a rate of +Inf means every call is allowed, whatever n
// and burst (as with rate.Inf in golang.org/x/time/rate,
// NewTokenBucket(math.Inf(1), 0) is a limiter that never limits). A
// negative or NaN rate is treated as 0, and a negative burst as 0.
func NewTokenBucket(rate float64, burst int) *TokenBucket {
	return &TokenBucket{rule: tokenBucketRuleFromRate(rate, burst)}
}

// NewTokenBucketLimit returns a bucket that holds up to burst tokens,
// refills at l's rate, and starts full; see [NewTokenBucketRule]. For a
// comparison with a window of l.Count per l.Per, use burst = l.Count.
func NewTokenBucketLimit(l Limit, burst int) *TokenBucket {
	return &TokenBucket{rule: NewTokenBucketRule(l, burst)}
}

// Rule returns the bucket's rule.
func (b *TokenBucket) Rule() TokenBucketRule { return b.rule }

// Allow reports whether one token is available now, and if so takes it.
// It is shorthand for AllowN(time.Now(), 1).
func (b *TokenBucket) Allow() bool {
	return b.AllowN(time.Now(), 1)
}

// AllowN reports whether n tokens are available at time now, and if so
// takes them. If it reports false the bucket is left unchanged.
//
// With a finite rate, AllowN reports false whenever n > burst, since the
// bucket can never hold that many tokens; with a rate of +Inf it always
// reports true. A call with n <= 0 takes nothing and reports true; in
// particular a negative n never adds tokens.
//
// Elapsed time is measured from the latest time the bucket has been given
// by a successful call. A time before that one is treated as no elapsed
// time: it adds no tokens and does not move the bucket's clock back.
func (b *TokenBucket) AllowN(now time.Time, n int) bool {
	if n <= 0 || b.rule.inf {
		return true
	}
	t := now.UnixNano()
	b.mu.Lock()
	ok := b.rule.Update(&b.state, t, n)
	b.mu.Unlock()
	return ok
}

// Tokens returns the number of tokens available at time now, a value in
// [0, burst] that may have a fractional part. It does not change the
// bucket: asking about a later time does not move the bucket's clock.
// With a rate of +Inf it returns +Inf, consistent with AllowN allowing any n;
// callers that serialise the value (JSON has no infinities) must check for
// that with math.IsInf.
func (b *TokenBucket) Tokens(now time.Time) float64 {
	t := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rule.Tokens(b.state, t)
}

// Estimate returns burst minus Tokens(now), the tokens in use (0 with a
// rate of +Inf); see [TokenBucketRule.Estimate].
func (b *TokenBucket) Estimate(now time.Time) float64 {
	t := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rule.Estimate(b.state, t)
}

// Delay returns how long after now the bucket will next hold one token, so
// that AllowN(now.Add(d), 1) succeeds if no other call takes tokens in
// between. It returns 0 if a token is available at now, and InfDuration if
// none ever will be: when the rate is 0 and the bucket is short of a token,
// or when burst is 0 with a finite rate. It does not change the bucket.
//
// The delay is exact: the bucket holds a token after exactly that many
// nanoseconds and not one nanosecond earlier. If now is before the time of
// the latest successful call, the delay includes the gap up to that time,
// since no tokens are added for it.
func (b *TokenBucket) Delay(now time.Time) time.Duration {
	t := now.UnixNano()
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.rule.Delay(b.state, t)
}

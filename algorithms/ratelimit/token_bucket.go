package ratelimit

import (
	"math"
	"sync"
	"time"
)

// InfDuration is the duration [TokenBucket.Delay] returns when a token will
// never become available.
const InfDuration = time.Duration(math.MaxInt64)

// TokenBucket holds up to burst tokens and refills at rate tokens per second,
// burst and rate being the arguments of [NewTokenBucket]. The zero value is
// not usable; use NewTokenBucket. It is safe for concurrent use: its state is
// guarded by a sync.Mutex.
//
// Tokens refill continuously: after an elapsed time e the bucket holds
// min(burst, tokens + e·rate), fractions included. A call that takes n
// tokens succeeds only if n whole tokens are there at that moment; a
// refused call takes nothing. Hence, with a finite rate, n > burst is never
// allowed, and a rate of 0 allows only the initial burst. A rate of +Inf is
// the exception: it allows every call, whatever n and burst.
//
// Elapsed time is measured from the latest time the bucket has been given
// by a successful call. A time before that one is treated as no elapsed
// time: it adds no tokens and does not move the bucket's clock back, so
// calls that arrive out of order never earn the same interval twice.
//
// This is the algorithm of the "token bucket" section of the Criteo post
// cited in the package documentation: a token count plus the time of the
// last refill, refilled lazily on each call. Unlike
// golang.org/x/time/rate it has no reservations and no waiting; a caller
// that wants to wait sleeps for [TokenBucket.Delay] itself.
type TokenBucket struct {
	rate  float64 // tokens per second, >= 0 or +Inf; immutable
	burst int     // capacity, >= 0; immutable

	mu     sync.Mutex
	tokens float64   // tokens at last, in [0, burst]
	last   time.Time // time of the latest refill; zero before the first
}

// NewTokenBucket returns a bucket that holds up to burst tokens, refills at
// rate tokens per second, and starts full.
//
// A rate of 0 means the bucket never refills, so only the initial burst is
// ever allowed; a rate of +Inf means every call is allowed, whatever n and
// burst (as with rate.Inf in golang.org/x/time/rate, NewTokenBucket(math.Inf(1), 0)
// is a limiter that never limits). A negative or NaN rate is treated as 0,
// and a negative burst as 0.
func NewTokenBucket(rate float64, burst int) *TokenBucket {
	if !(rate > 0) { // negative, zero or NaN
		rate = 0
	}
	burst = max(burst, 0)
	return &TokenBucket{rate: rate, burst: burst, tokens: float64(burst)}
}

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
func (b *TokenBucket) AllowN(now time.Time, n int) bool {
	if n <= 0 || math.IsInf(b.rate, 1) {
		return true
	}
	if n > b.burst {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens, last := b.advance(now)
	if tokens < float64(n) {
		return false
	}
	b.tokens = tokens - float64(n)
	b.last = last
	return true
}

// Tokens returns the number of tokens available at time now, a value in
// [0, burst] that may have a fractional part. It does not change the
// bucket: asking about a later time does not move the bucket's clock.
// With a rate of +Inf it returns +Inf, consistent with AllowN allowing any n;
// callers that serialise the value (JSON has no infinities) must check for
// that with math.IsInf.
func (b *TokenBucket) Tokens(now time.Time) float64 {
	if math.IsInf(b.rate, 1) {
		return math.Inf(1)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens, _ := b.advance(now)
	return tokens
}

// Delay returns how long after now the bucket will next hold one token, so
// that AllowN(now.Add(d), 1) succeeds if no other call takes tokens in
// between. It returns 0 if a token is available at now, and InfDuration if
// none ever will be: when the rate is 0 and the bucket is short of a token,
// or when burst is 0 with a finite rate. It does not change the bucket.
//
// The delay is rounded to the nearest nanosecond and then, if
// floating-point rounding would still leave the bucket a hair short of a
// token, moved forward by the few nanoseconds that takes; so it is never
// too early and at most a few nanoseconds late. If now is before the time
// of the latest successful call, the delay includes the gap up to that
// time, since no tokens are added for it.
func (b *TokenBucket) Delay(now time.Time) time.Duration {
	if math.IsInf(b.rate, 1) {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	tokens, start := b.advance(now)
	if tokens >= 1 {
		return 0
	}
	if b.rate == 0 || b.burst < 1 {
		return InfDuration
	}
	// Refill starts at start = max(now, b.last).
	ns := float64(start.Sub(now)) + math.Round((1-tokens)/b.rate*float64(time.Second))
	if !(ns < float64(InfDuration)) {
		return InfDuration
	}
	d := time.Duration(ns)
	for step := time.Duration(1); ; step *= 2 {
		if t, _ := b.advance(now.Add(d)); t >= 1 {
			return d
		}
		if step <= 0 || d > InfDuration-step {
			return InfDuration
		}
		d += step
	}
}

// advance returns the tokens the bucket holds at time now and the time to
// record as its latest refill if those tokens are taken: now, or b.last if
// now is not after it. It does not modify b; b.mu must be held.
func (b *TokenBucket) advance(now time.Time) (tokens float64, last time.Time) {
	tokens, last = b.tokens, b.last
	if !now.After(last) {
		return tokens, last
	}
	// Before the first call last is the zero Time and Sub saturates at
	// about 292 years, which is harmless: the bucket starts full anyway.
	if b.rate > 0 {
		tokens += now.Sub(last).Seconds() * b.rate
		tokens = min(tokens, float64(b.burst))
	}
	return tokens, now
}

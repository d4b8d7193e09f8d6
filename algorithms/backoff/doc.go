// Package backoff holds retry delay policies: how long a client sleeps before
// retrying a call that failed. The policies are plain values that work in
// ordinary Go code with any random source, and they are the same values the
// playground's backoff lab simulates.
//
// # Policies
//
// A [Policy] maps a retry number (1 for the first retry) and the sleep it
// returned for the previous retry to the sleep before this retry:
//
//	None          0
//	Constant      Delay
//	Linear        min(Cap, Base·attempt)
//	Exponential   min(Cap, Base·r^attempt)
//	FullJitter    U(0, v)                   where v = min(Cap, Base·r^attempt)
//	EqualJitter   v/2 + U(0, v/2)
//	Decorrelated  min(Cap, U(Base, 3·prev))  with prev = Base before the first retry
//
// U(a, b) is a + (b-a)·u for one draw u from [Rand.Float64], and r is the
// policy's Multiplier (2 when zero). A Cap of zero or less means no cap.
//
// The exponential family follows Marc Brooker, "Exponential Backoff and
// Jitter", AWS Architecture Blog, March 2015
// (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/),
// and matches its reference simulator,
// https://github.com/aws-samples/aws-arch-backoff-simulator
// (src/backoff_simulator.py), formula for formula: the simulator computes
// expo(n) = min(cap, 2**n * base) and its first retry uses n = 1, so the
// first exponential sleep is 2·Base, not Base. [Exponential], [FullJitter] and
// [EqualJitter] keep that convention. The simulator's decorrelated jitter
// starts from sleep = base; [Decorrelated] does the same when prev is 0.
//
// The Zenn post "リトライ処理時のExponential Backoff(指数関数バックオフ)戦略"
// compares linear and exponential growth with a 100ms base: 100, 200, 300,
// 400, 500ms against 100, 200, 400, 800, 1600ms. [Linear] reproduces the
// first column at attempts 1 to 5; [Exponential] reproduces the second at
// attempts 0 to 4, because the post counts its exponent from zero.
//
// # Random draws
//
// Each jittered policy draws exactly one [Rand.Float64] per call, and the
// deterministic policies (None, Constant, Linear, Exponential) draw none.
// The number of draws never depends on the parameters or on the values
// drawn, so when a simulation compares policies over one stream of jitter
// draws per client (common random numbers), trial k of every jittered policy
// consumes the same draws.
//
// # Arithmetic
//
// Policies compute in float64 nanoseconds, clamp, and only then convert to
// [time.Duration], rounding to the nearest nanosecond. Growth therefore
// saturates instead of overflowing: attempt 10000 with r = 2 gives exactly
// Cap, or the largest Duration when there is no cap. Nothing is validated
// beyond that clamping: a negative Base, Delay or Cap behaves as zero
// (for Cap, as no cap), and results are never negative.
//
// # Schedules
//
// [Schedule] tabulates the deterministic exponential schedule in the
// convention of the Qiita post
// "Exponential backoff における経過時間とリトライ間隔の関係",
// where the first sleep is the base a: t_n = a·r^(n-1) and the elapsed time
// is T_n = t_1 + … + t_n. Its observation that the next sleep is
// a linear function of the elapsed time, t_{n+1} = a + (r-1)·T_n, gives
// [NextSleep], and [MultiplierForRatio] turns a wanted ratio of sleep to
// elapsed time into a multiplier: to retry about every 100s around T = 1000s,
// use r = 1 + 0.1 = 1.1.
//
// # Real code
//
// A [Sequence] carries the retry count and previous sleep for one operation;
// see its example. Policies themselves are immutable values, safe for
// concurrent use, and never allocate.
package backoff

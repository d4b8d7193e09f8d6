package backoff

import (
	"math"
	"time"
)

// Step is one row of a [Schedule]: the sleep before retry number Retry, and
// the total time slept from the first failure up to that retry.
type Step struct {
	// Retry is the retry number, from 1.
	Retry int
	// Sleep is t_n, the sleep just before this retry.
	Sleep time.Duration
	// Elapsed is T_n = t_1 + … + t_n, the time from the first failure to
	// this retry, not counting the time the calls themselves take.
	Elapsed time.Duration
}

// Schedule returns the first n steps (retries 1 to n) of the deterministic
// exponential schedule with first sleep base and multiplier r:
//
//	t_n = min(cap, base·r^(n-1))
//	T_n = t_1 + … + t_n
//
// This is the convention of the Qiita post
// "Exponential backoff における経過時間とリトライ間隔の関係",
// where the first sleep is the base itself; it
// equals [Exponential] at attempt n-1, one step behind the reference
// simulator's numbering. A multiplier of 0 means 2, and a cap of zero or less
// means no cap. Elapsed is the exact sum of the rounded sleeps, saturating at
// the largest Duration. Schedule returns nil when n <= 0.
//
// For example, Schedule(time.Second, 0, 2, 11) ends with retry 10 sleeping
// 512s at 1023s elapsed and retry 11 sleeping 1024s at 2047s.
func Schedule(base, cap time.Duration, multiplier float64, n int) []Step {
	if n <= 0 {
		return nil
	}
	e := Exponential{Base: base, Cap: cap, Multiplier: multiplier}
	steps := make([]Step, n)
	var elapsed time.Duration
	for i := range steps {
		t := e.Sleep(i, 0, nil)
		if elapsed > math.MaxInt64-t {
			elapsed = math.MaxInt64
		} else {
			elapsed += t
		}
		steps[i] = Step{Retry: i + 1, Sleep: t, Elapsed: elapsed}
	}
	return steps
}

// NextSleep returns the sleep that follows a retry made after elapsed time
// in the uncapped schedule of [Schedule]:
//
//	t_{n+1} = base·r^n = base + (r-1)·T_n
//
// where T_n is elapsed. The identity follows from the geometric sum
// T_n = base·(r^n - 1)/(r - 1); it lets one reason about sleeps in terms of
// elapsed time without knowing n. For r > 1 and large T, the sleep is about
// (r-1) times the elapsed time. A multiplier of 0 means 2. The result is
// rounded to the nearest nanosecond and clamped to [0, the largest Duration].
//
// For example, NextSleep(time.Second, 2, 1023*time.Second) is 1024s.
func NextSleep(base time.Duration, multiplier float64, elapsed time.Duration) time.Duration {
	a := float64(nonNeg(base))
	r := mult(multiplier)
	return toDuration(a + (r-1)*float64(elapsed))
}

// MultiplierForRatio returns the multiplier r for which, once the elapsed
// time is large compared with the base, the next sleep is about ratio times
// the elapsed time: r = 1 + ratio. For example, to sleep about 100s after a
// retry at 1000s, use MultiplierForRatio(0.1), which is 1.1.
func MultiplierForRatio(ratio float64) float64 {
	return 1 + ratio
}

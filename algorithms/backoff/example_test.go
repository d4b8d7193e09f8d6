package backoff_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

// ExampleSequence retries a flaky call with capped full jitter, giving up
// after a fixed number of retries. Real code would usually leave Rand nil
// (the global source of math/rand/v2) and wait on a timer together with its
// context; the seeded source here makes the output reproducible.
func ExampleSequence() {
	calls := 0
	flaky := func() error {
		calls++
		if calls < 4 {
			return errors.New("503 service unavailable")
		}
		return nil
	}

	const maxRetries = 5
	seq := backoff.Sequence{
		Policy: backoff.FullJitter{Base: time.Millisecond, Cap: 20 * time.Millisecond},
		Rand:   rand.New(rand.NewPCG(1, 2)),
	}
	for {
		err := flaky()
		if err == nil {
			fmt.Printf("succeeded after %d retries\n", seq.Attempt())
			break
		}
		if seq.Attempt() == maxRetries {
			fmt.Println("giving up:", err)
			break
		}
		d := seq.Next()
		fmt.Printf("%v; retry %d in %v\n", err, seq.Attempt(), d.Round(10*time.Microsecond))
		time.Sleep(d)
	}
	// Output:
	// 503 service unavailable; retry 1 in 1.35ms
	// 503 service unavailable; retry 2 in 1.85ms
	// 503 service unavailable; retry 3 in 4.07ms
	// succeeded after 3 retries
}

// ExampleSchedule prints the first sleeps of a schedule whose sleep is about
// a tenth of the elapsed time, with the relation t_{n+1} = a + (r-1)·T_n.
func ExampleSchedule() {
	r := backoff.MultiplierForRatio(0.1)
	for _, s := range backoff.Schedule(time.Second, 0, r, 49)[45:] {
		fmt.Printf("retry %d: sleep %6.3fs, elapsed %8.3fs, next %6.3fs\n",
			s.Retry, s.Sleep.Seconds(), s.Elapsed.Seconds(),
			backoff.NextSleep(time.Second, r, s.Elapsed).Seconds())
	}
	// Output:
	// retry 46: sleep 72.890s, elapsed  791.795s, next 80.180s
	// retry 47: sleep 80.180s, elapsed  871.975s, next 88.197s
	// retry 48: sleep 88.197s, elapsed  960.172s, next 97.017s
	// retry 49: sleep 97.017s, elapsed 1057.190s, next 106.719s
}

package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

// Trials runs trials 0..n-1 on at most workers goroutines. newWorker is called once per
// goroutine and returns the function that runs one trial with that goroutine's private state
// (a reusable world, say); that function must store its result by trial index, so the caller
// can combine results in a fixed order and the outcome does not depend on scheduling.
//
// Trials stops handing out trials when ctx is done or a trial fails, and returns the first
// error by trial index, or ctx's error.
func Trials(ctx context.Context, n, workers int, newWorker func() func(trial int) error) error {
	if workers < 1 {
		workers = 1
	}
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		run := newWorker()
		for t := 0; t < n; t++ {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := run(t); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, n)
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := newWorker()
			for {
				t := int(next.Add(1) - 1)
				if t >= n || failed.Load() || ctx.Err() != nil {
					return
				}
				if err := run(t); err != nil {
					errs[t] = err
					failed.Store(true)
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return ctx.Err()
}

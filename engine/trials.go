package engine

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Trials runs trials 0..n-1 on at most workers goroutines. newWorker is called once per
// goroutine, before any trial starts, and returns the function that runs one trial with that
// goroutine's private state (a reusable world, say); that function must store its result by
// trial index, so the caller can combine results in a fixed order and the outcome does not
// depend on scheduling.
//
// Trials returns nil when every trial ran. Otherwise it returns the error of the failing trial
// with the lowest index (trials above a failure are skipped, those below still run, so this
// does not depend on scheduling either), or the error that stopped it early: ctx's, or that of
// ctx's [Pacer], which admits each worker's trials a [Quantum] at a time.
func Trials(ctx context.Context, n, workers int, newWorker func() func(trial int) error) error {
	workers = max(1, min(workers, n))
	runs := make([]func(int) error, workers)
	for w := range runs {
		runs[w] = newWorker()
	}
	var (
		next      atomic.Int64
		completed atomic.Int64
		firstFail atomic.Int64 // lowest failed index, or n
		wg        sync.WaitGroup
		errs      = make([]error, n)
		stopped   atomic.Pointer[error] // why a worker's pacer stopped it
		pacer     = PacerOf(ctx)
	)
	firstFail.Store(int64(n))
	// one runs trials until none are left or, when paced, for about a quantum; it reports
	// whether there may be more to do.
	one := func(run func(int) error, until time.Time) bool {
		for {
			t := next.Add(1) - 1
			if t >= int64(n) || t > firstFail.Load() || ctx.Err() != nil {
				return false
			}
			if err := run(int(t)); err != nil {
				errs[t] = err
				for f := firstFail.Load(); t < f && !firstFail.CompareAndSwap(f, t); f = firstFail.Load() {
				}
			} else {
				completed.Add(1)
			}
			if pacer != nil && !time.Now().Before(until) {
				return true
			}
		}
	}
	work := func(run func(int) error) {
		if pacer == nil {
			one(run, time.Time{})
			return
		}
		for {
			if next.Load() >= int64(n) {
				return
			}
			if err := pacer.Acquire(ctx); err != nil {
				stopped.CompareAndSwap(nil, &err)
				return
			}
			var m meter
			m.start(pacer)
			more := one(run, m.wall.Add(Quantum))
			pacer.Release(m.stop())
			if !more {
				return
			}
		}
	}
	for _, run := range runs[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work(run)
		}()
	}
	work(runs[0])
	wg.Wait()
	if f := firstFail.Load(); f < int64(n) {
		return errs[f]
	}
	if completed.Load() == int64(n) {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := stopped.Load(); err != nil {
		return *err
	}
	return ctx.Err()
}

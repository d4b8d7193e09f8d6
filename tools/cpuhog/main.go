// Command cpuhog keeps CPUs busy: one busy loop per CPU (or -n of them) until it is stopped or
// its -for duration has passed, then says how much CPU time it took. .ci/under-load runs it
// beside the test suite, so that anyone can check the suite is green on a machine whose every
// core is busy with other work:
//
//	go run ./tools/cpuhog            # every core, until interrupted
//	go run ./tools/cpuhog -n 1 -for 30s
//
// The loops are pure arithmetic at normal priority: they take CPU time from the tests as any
// other busy process would, without touching their memory or files.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	n := flag.Int("n", runtime.NumCPU(), "busy loops (one per CPU by default)")
	d := flag.Duration("for", 0, "stop after this long (0: run until interrupted or terminated)")
	flag.Parse()
	if *n < 1 {
		fmt.Fprintln(os.Stderr, "cpuhog: -n must be at least 1")
		os.Exit(2)
	}
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), *n))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, *d)
		defer cancel()
	}
	start := time.Now()
	spins := hog(ctx, *n)
	wall := time.Since(start)
	cpu := processCPU()
	fmt.Fprintf(os.Stderr, "cpuhog: %d busy loops for %v took %.1f CPU-s (%.2f CPUs on average), %d spins\n",
		*n, wall.Round(time.Second), cpu.Seconds(), cpu.Seconds()/wall.Seconds(), spins)
}

// hog runs n busy loops until ctx ends and returns how many rounds of arithmetic they did.
func hog(ctx context.Context, n int) uint64 {
	var (
		wg    sync.WaitGroup
		total atomic.Uint64
		done  atomic.Bool
	)
	for range n {
		wg.Go(func() {
			x, spins := uint64(1), uint64(0)
			for !done.Load() {
				for range 1 << 16 { // a few hundred microseconds between checks
					x ^= x << 13
					x ^= x >> 7
					x ^= x << 17
				}
				spins++
			}
			total.Add(spins)
			sink.Store(x) // the loop's result is used: its work is not optimised away
		})
	}
	<-ctx.Done()
	done.Store(true)
	wg.Wait()
	return total.Load()
}

var sink atomic.Uint64

// processCPU returns the CPU time, user and system, this process has used.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

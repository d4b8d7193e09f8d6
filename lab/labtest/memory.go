package labtest

import (
	"context"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
)

// PeakHeap runs scenario query of l and returns the most live heap its run held above what
// was live before it: the largest live heap a garbage collection found (runtime/metrics'
// /gc/heap/live:bytes), sampled every half millisecond with the collector made eager (a heap
// goal 10% above the live heap) so that collections come often. Sampling may miss a short
// peak, never add one. Tests compare it with the lab's Memory estimate.
func PeakHeap(tb testing.TB, l *lab.Lab, query string) int64 {
	tb.Helper()
	v, err := l.Params.ParseQuery(query)
	if err != nil {
		tb.Fatal(err)
	}
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	live := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	runtime.GC()
	base := live()
	var (
		peak uint64
		wg   sync.WaitGroup
	)
	ctx, stop := context.WithCancel(context.Background())
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond / 2)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				peak = max(peak, live())
			}
		}
	})
	_, err = l.Execute(context.Background(), v, nil)
	runtime.GC() // what is live at the end counts too
	stop()
	wg.Wait()
	peak = max(peak, live())
	if err != nil {
		tb.Fatal(err)
	}
	return int64(peak) - int64(base)
}

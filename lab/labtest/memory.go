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

// CheckMemory runs each scenario of queries on a fresh lab and fails tb when the heap the run
// held at its peak (PeakHeap) is above the lab's Memory estimate, with a margin of 20% and
// 4 MB for what the collector has not reclaimed when it is sampled.
func CheckMemory(tb testing.TB, fresh func() *lab.Lab, queries ...string) {
	tb.Helper()
	for _, q := range queries {
		l := fresh()
		v, err := l.Params.ParseQuery(q)
		if err != nil {
			tb.Fatal(err)
		}
		est := l.Memory(v)
		peak := PeakHeap(tb, l, q)
		tb.Logf("%-100s estimate %5.1f MB, peak heap %5.1f MB (×%.2f)", q, float64(est)/1e6, float64(peak)/1e6, float64(est)/float64(peak))
		if float64(peak) > 1.2*float64(est)+4e6 {
			tb.Errorf("%s: the run held %d bytes at its peak, over the estimate %d", q, peak, est)
		}
	}
}

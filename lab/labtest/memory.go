package labtest

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
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

// Grid returns the scenarios (queries) of every combination of one setting from each axis: an
// axis lists settings of one or a few parameters ("window=1s", "window=1h"; "" for the
// defaults). A lab's memory corners are such a grid over the parameters its estimate grows
// with.
func Grid(axes ...[]string) []string {
	out := []string{""}
	for _, axis := range axes {
		var next []string
		for _, q := range out {
			for _, a := range axis {
				switch {
				case q == "":
					next = append(next, a)
				case a == "":
					next = append(next, q)
				default:
					next = append(next, q+"&"+a)
				}
			}
		}
		out = next
	}
	return out
}

// Admitted returns scenario query of l taken to the work budget and the memory bound
// (lab.Lab.Fitted): the heaviest admitted along the parameters its refusals name. It returns
// false for a scenario l's rules refuse, or one no value brings within the bounds.
func Admitted(l *lab.Lab, budget int64, query string) (param.Values, bool) {
	v, err := l.Parse(query)
	if err != nil {
		return v, false
	}
	v, err = l.Fitted(v, budget)
	return v, err == nil
}

// CheckMemoryCorners checks a lab's memory estimate (lab.Lab.Memory) against the heap its runs
// really hold at their peak (PeakHeap), as a lab's TestCostWithinTwice checks its work
// estimate: for each corner (a query; see Grid), taken to the work budget and the memory
// bound (Admitted) — the heaviest scenario admitted there — on a fresh lab. The estimate must
// be within 2× of the peak: not below it (beyond a margin of 20% and 4 MB for what the
// collector has not reclaimed when it is sampled; a corner over it is measured twice, the
// smaller peak counting), since admission relies on it, and not above twice it (and 4 MB),
// since it refuses what would fit (a corner under half the estimate is measured twice, the
// larger peak counting). A corner the lab's rules refuse is
// skipped; one that cannot be admitted fails. Any lab can opt in with a test calling it.
func CheckMemoryCorners(tb testing.TB, fresh func() *lab.Lab, budget int64, corners ...string) {
	tb.Helper()
	worst := [2]float64{math.Inf(1), 0} // the least and most estimate/peak
	for _, q := range corners {
		l := fresh()
		if _, err := l.Parse(q); err != nil {
			tb.Logf("%-90s skipped: %v", q, err)
			continue
		}
		v, ok := Admitted(l, budget, q)
		if !ok {
			tb.Errorf("%s: no value brings it within the budget %.3g and the memory bound: %v", q, float64(budget), l.CheckBudget(v, budget))
			continue
		}
		est := l.Memory(v)
		peak := PeakHeap(tb, fresh(), v.Encode())
		if float64(peak) > 1.2*float64(est)+4e6 {
			// The heap a collection finds live includes what was allocated while it marked,
			// garbage or not, which varies from run to run with the allocations' churn:
			// measured again, the smaller peak counts.
			peak = min(peak, PeakHeap(tb, fresh(), v.Encode()))
		} else if float64(est) > 2*float64(peak)+4e6 {
			// Sampling may miss a short peak, never add one (a busy machine delays the sampler):
			// measured again, the larger peak counts.
			peak = max(peak, PeakHeap(tb, fresh(), v.Encode()))
		}
		r := float64(est) / float64(max(peak, 1))
		if peak >= 4e6 { // smaller, the estimate's fixed part and the collector's noise decide
			worst[0], worst[1] = min(worst[0], r), max(worst[1], r)
		}
		tb.Logf("%-110s estimate %5.1f MB, peak heap %5.1f MB (×%.2f)", v.Encode(), float64(est)/1e6, float64(peak)/1e6, r)
		switch {
		case float64(peak) > 1.2*float64(est)+4e6:
			tb.Errorf("%s: the run held %.1f MB at its peak, over its estimate %.1f MB", v.Encode(), float64(peak)/1e6, float64(est)/1e6)
		case float64(est) > 2*float64(peak)+4e6:
			tb.Errorf("%s: the estimate %.1f MB is more than twice the %.1f MB the run held at its peak", v.Encode(), float64(est)/1e6, float64(peak)/1e6)
		}
	}
	if worst[1] > 0 {
		tb.Logf("estimate/peak from ×%.2f to ×%.2f over the corners whose runs held 4 MB or more, of %d", worst[0], worst[1], len(corners))
	} else {
		tb.Logf("no run of the %d corners held 4 MB", len(corners))
	}
}

package retry

import "time"

// window sums two counters over a sliding window of n time slices of width w nanoseconds,
// aligned to multiples of w since time zero: the current slice, floor(now/w), and the n-1
// slices before it. A count added at time t is forgotten when slice floor(t/w)+n begins,
// between (n-1)·w and n·w after t. Memory is n slots of two int64 counters, whatever the
// rate; advancing the clock costs one step per slice passed, at most n.
//
// A time before the latest one seen is treated as the latest one: counts made then land in
// the current slice, and nothing expires.
type window struct {
	width   int64
	cur     int64 // index of the current slice
	started bool
	slots   []pair // slot of slice k: slots[k mod n]
	sum     pair
}

type pair struct{ a, b int64 }

// newWindow returns a window of n slices covering span: each slice is span/n rounded up to a
// whole nanosecond, at least 1ns. n must be at least 1.
func newWindow(span time.Duration, n int) window {
	w := (int64(span) + int64(n) - 1) / int64(n)
	if span <= 0 {
		w = 1
	}
	return window{width: max(w, 1), slots: make([]pair, n)}
}

// slice returns floor(t/width).
func (w *window) slice(t int64) int64 {
	k := t / w.width
	if t%w.width < 0 {
		k--
	}
	return k
}

// advance moves the window to now, forgetting the slices that left it.
func (w *window) advance(now int64) {
	k := w.slice(now)
	if !w.started {
		w.cur, w.started = k, true
		return
	}
	if k <= w.cur {
		return
	}
	n := int64(len(w.slots))
	if k-w.cur >= n {
		clear(w.slots)
		w.sum = pair{}
	} else {
		for i := w.cur + 1; i <= k; i++ {
			s := &w.slots[mod(i, n)]
			w.sum.a -= s.a
			w.sum.b -= s.b
			*s = pair{}
		}
	}
	w.cur = k
}

// add adds da and db to the counters at now.
func (w *window) add(now int64, da, db int64) {
	w.advance(now)
	s := &w.slots[mod(w.cur, int64(len(w.slots)))]
	s.a += da
	s.b += db
	w.sum.a += da
	w.sum.b += db
}

// sums returns both counters over the window at now.
func (w *window) sums(now int64) (a, b int64) {
	w.advance(now)
	return w.sum.a, w.sum.b
}

// mod returns i mod n in [0, n).
func mod(i, n int64) int64 {
	m := i % n
	if m < 0 {
		m += n
	}
	return m
}

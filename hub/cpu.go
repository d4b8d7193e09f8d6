package hub

import (
	"container/heap"
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

// cpus shares a fixed number of CPUs among runs, a quantum at a time (see engine.Pacer). A
// free CPU goes to the waiting run that has computed least so far (least attained service):
// a run that has just started, a viewer's new scenario, goes before runs that have computed
// for seconds, so a light scenario finishes in about the time it takes on an idle server
// however many heavy ones are in flight, and heavy runs share what is left among themselves.
type cpus struct {
	mu    sync.Mutex
	free  int
	queue waiters
	seq   uint64
}

func newCPUs(n int) *cpus { return &cpus{free: max(n, 1)} }

// share is one run's engine.Pacer. A run that has computed for more than limit (0: no limit)
// is refused further quanta with errTooLong.
type share struct {
	cpus  *cpus
	used  atomic.Int64 // nanoseconds computed
	limit time.Duration
	wall  bool // measure computing in wall time (Config.WallClock)
}

// Wall reports whether the run's computing is measured in wall time.
func (s *share) Wall() bool { return s.wall }

// errTooLong is a share's refusal: the run has computed for longer than its limit.
type errTooLong struct{ limit time.Duration }

func (e errTooLong) Error() string {
	return fmt.Sprintf("hub: the run computed for more than %v", e.limit)
}

type waiter struct {
	key     int64 // the run's computing time when it asked
	seq     uint64
	ready   chan struct{}
	granted bool
	index   int
}

// Acquire waits for a CPU.
func (s *share) Acquire(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.limit > 0 && time.Duration(s.used.Load()) > s.limit {
		return errTooLong{s.limit}
	}
	c := s.cpus
	c.mu.Lock()
	if c.free > 0 && c.queue.Len() == 0 {
		c.free--
		c.mu.Unlock()
		return nil
	}
	c.seq++
	w := &waiter{key: s.used.Load(), seq: c.seq, ready: make(chan struct{})}
	heap.Push(&c.queue, w)
	c.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		if w.granted { // granted as ctx ended: pass the CPU on
			c.mu.Unlock()
			c.release()
			return ctx.Err()
		}
		heap.Remove(&c.queue, w.index)
		c.mu.Unlock()
		return ctx.Err()
	}
}

// Release hands the CPU back.
func (s *share) Release(used time.Duration) {
	s.used.Add(int64(used))
	s.cpus.release()
}

func (c *cpus) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.queue.Len() == 0 {
		c.free++
		return
	}
	w := heap.Pop(&c.queue).(*waiter)
	w.granted = true
	close(w.ready)
}

// waiters is a min-heap of waiters by (key, seq).
type waiters []*waiter

func (q waiters) Len() int { return len(q) }
func (q waiters) Less(i, j int) bool {
	if q[i].key != q[j].key {
		return q[i].key < q[j].key
	}
	return q[i].seq < q[j].seq
}
func (q waiters) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *waiters) Push(x any) {
	w := x.(*waiter)
	w.index = len(*q)
	*q = append(*q, w)
}
func (q *waiters) Pop() any {
	old := *q
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return w
}

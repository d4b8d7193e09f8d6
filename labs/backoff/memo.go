package backoff

import (
	"container/list"
	"sync"

	"github.com/resilience-playground/playground/engine"
)

// pointKey identifies the outcome of one strategy at one client count: everything a
// simulation depends on. Strategies are independent given these (each client's streams are
// keyed by seed, trial and client only), so a point computed for one scenario serves any other
// that shares it: dragging the clients slider recomputes only the chosen N, never the sweep.
type pointKey struct {
	strategy string
	clients  int
	setting
}

// pointValue is a memoised outcome: means over trials with the half-widths of their 95%
// intervals and, when computed at the chosen N, the writes-over-time histogram coarsened for
// display.
type pointValue struct {
	writes, completion         float64 // means over trials; completion in ms
	writesHalf, completionHalf float64 // half-widths of their 95% intervals
	trials                     int
	hist                       *engine.Histogram // nil when not recorded
}

// memo is a bounded LRU of points shared by every run of one lab value.
type memo struct {
	mu    sync.Mutex
	max   int
	items map[pointKey]*list.Element
	order *list.List
}

type memoEntry struct {
	key pointKey
	val pointValue
}

func newMemo(max int) *memo {
	return &memo{max: max, items: map[pointKey]*list.Element{}, order: list.New()}
}

func (m *memo) get(k pointKey, needHist bool) (pointValue, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[k]
	if !ok {
		return pointValue{}, false
	}
	v := e.Value.(*memoEntry).val
	if needHist && v.hist == nil {
		return pointValue{}, false
	}
	m.order.MoveToFront(e)
	return v, true
}

func (m *memo) put(k pointKey, v pointValue) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[k]; ok {
		if v.hist == nil {
			v.hist = e.Value.(*memoEntry).val.hist
		}
		e.Value.(*memoEntry).val = v
		m.order.MoveToFront(e)
		return
	}
	m.items[k] = m.order.PushFront(&memoEntry{key: k, val: v})
	for m.order.Len() > m.max {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.items, old.Value.(*memoEntry).key)
	}
}

package lab

import (
	"container/list"
	"sync"
)

// Cache is a bounded map from keys to values, safe for concurrent use, with one eviction
// rule: when a Put would make it hold more than its bounds, the entries least recently used
// (got or put) go. Its bounds are a number of entries and, for a cache made with
// [NewWeighedCache], the sum of its values' weights. Labs keep what they have computed in one
// (finished simulations, cost-model pilots), on the lab value, keyed by [MemoKey]: the
// canonical URL of what was computed.
type Cache[V any] struct {
	mu    sync.Mutex
	max   int
	limit int64                    // most total weight, when weigh is set
	weigh func(V) int64            // nil: no bound on weight
	total int64                    // the entries' weights
	items map[string]*list.Element // of *cacheEntry[V]
	order list.List                // most recently used at the front
}

type cacheEntry[V any] struct {
	key string
	val V
	w   int64 // weight
}

// NewCache returns an empty cache of at most size entries (at least one).
func NewCache[V any](size int) *Cache[V] {
	return &Cache[V]{max: max(size, 1), items: map[string]*list.Element{}}
}

// NewWeighedCache returns an empty cache of at most size entries (at least one) whose weights,
// as weigh tells them (bytes, say), add up to at most limit. A value heavier than limit alone
// is not kept.
func NewWeighedCache[V any](size int, limit int64, weigh func(V) int64) *Cache[V] {
	c := NewCache[V](size)
	c.limit, c.weigh = limit, weigh
	return c
}

// Get returns the value of key, and whether the cache holds it.
func (c *Cache[V]) Get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cacheEntry[V]).val, true
}

// Put sets the value of key, evicting the entries least recently used while the cache is over
// its bounds. A value heavier than a weighed cache's limit is not kept (nor is the key's
// previous value).
func (c *Cache[V]) Put(key string, v V) {
	var w int64
	if c.weigh != nil {
		w = c.weigh(v)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		c.remove(e)
	}
	if c.weigh != nil && w > c.limit {
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry[V]{key: key, val: v, w: w})
	c.total += w
	for c.order.Len() > c.max || c.weigh != nil && c.total > c.limit {
		c.remove(c.order.Back())
	}
}

// remove drops entry e; c.mu is held.
func (c *Cache[V]) remove(e *list.Element) {
	ce := e.Value.(*cacheEntry[V])
	c.order.Remove(e)
	delete(c.items, ce.key)
	c.total -= ce.w
}

// Len returns how many entries the cache holds.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

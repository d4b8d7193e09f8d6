package lab

import (
	"container/list"
	"sync"
)

// Cache is a bounded map from keys to values, safe for concurrent use, with one eviction
// rule: when a Put would make it hold more than its bound, the entry least recently used (got
// or put) goes. Labs keep what they have computed in one (finished simulations, cost-model
// pilots), on the lab value, keyed by [MemoKey]: the canonical URL of what was computed.
type Cache[V any] struct {
	mu    sync.Mutex
	max   int
	items map[string]*list.Element // of *cacheEntry[V]
	order list.List                // most recently used at the front
}

type cacheEntry[V any] struct {
	key string
	val V
}

// NewCache returns an empty cache of at most size entries (at least one).
func NewCache[V any](size int) *Cache[V] {
	return &Cache[V]{max: max(size, 1), items: map[string]*list.Element{}}
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

// Put sets the value of key, evicting the least recently used entry if the cache is full.
func (c *Cache[V]) Put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[key]; ok {
		e.Value.(*cacheEntry[V]).val = v
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(&cacheEntry[V]{key: key, val: v})
	for c.order.Len() > c.max {
		old := c.order.Back()
		c.order.Remove(old)
		delete(c.items, old.Value.(*cacheEntry[V]).key)
	}
}

// Len returns how many entries the cache holds.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

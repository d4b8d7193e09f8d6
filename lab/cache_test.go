package lab_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestCacheEvictsLeastRecentlyUsed: a full cache drops the entry least recently got or put.
func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := lab.NewCache[int](2)
	c.Put("a", 1)
	c.Put("b", 2)
	if v, ok := c.Get("a"); !ok || v != 1 {
		t.Fatalf("Get(a) = %d, %v", v, ok)
	}
	c.Put("c", 3) // b is the least recently used
	if _, ok := c.Get("b"); ok {
		t.Error("b was kept; want it evicted")
	}
	for k, want := range map[string]int{"a": 1, "c": 3} {
		if v, ok := c.Get(k); !ok || v != want {
			t.Errorf("Get(%s) = %d, %v; want %d", k, v, ok, want)
		}
	}
	c.Put("a", 10) // replaces, and a becomes the most recently used
	c.Put("d", 4)  // evicts c
	if _, ok := c.Get("c"); ok {
		t.Error("c was kept; want it evicted")
	}
	if v, _ := c.Get("a"); v != 10 {
		t.Errorf("Get(a) = %d after Put(a, 10)", v)
	}
	if c.Len() != 2 {
		t.Errorf("Len = %d, want 2", c.Len())
	}
}

// TestCacheBoundUnderConcurrency: many goroutines putting and getting never leave more entries
// than the bound (run with -race).
func TestCacheBoundUnderConcurrency(t *testing.T) {
	c := lab.NewCache[string](16)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				k := fmt.Sprint(g, "/", i%40)
				c.Put(k, k)
				if v, ok := c.Get(k); ok && v != k {
					t.Errorf("Get(%s) = %s", k, v)
				}
			}
		})
	}
	wg.Wait()
	if c.Len() != 16 {
		t.Errorf("Len = %d, want the bound 16", c.Len())
	}
}

// TestMemoKey: the key is the canonical query with the part's parameters set and the ignored
// ones at their defaults, however the scenario was written.
func TestMemoKey(t *testing.T) {
	v, err := labtest.Params.ParseQuery("steps=0005&n=7&pause=1000ms")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := lab.MemoKey(v, nil), "n=7&steps=5&pause=1s"; got != want {
		t.Errorf("MemoKey(v) = %q, want %q", got, want)
	}
	if got, want := lab.MemoKey(v, map[string]string{"n": "9", "hold": "1"}, "pause"), "n=9&steps=5&hold=true"; got != want {
		t.Errorf("MemoKey(v, n=9, hold=1, ignore pause) = %q, want %q", got, want)
	}
}

// TestWeighedCacheBoundsWeight: a weighed cache keeps the weights of its entries under its
// limit, evicting the least recently used, refuses a value heavier than the limit alone, and
// counts a replaced value's weight once.
func TestWeighedCacheBoundsWeight(t *testing.T) {
	c := lab.NewWeighedCache(100, 10, func(s string) int64 { return int64(len(s)) })
	c.Put("a", "aaaa")
	c.Put("b", "bbbb")
	c.Get("a")
	c.Put("c", "cccc") // 12 > 10: b, the least recently used, goes
	if _, ok := c.Get("b"); ok {
		t.Error("b was kept; want it evicted for weight")
	}
	for _, k := range []string{"a", "c"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s was evicted", k)
		}
	}
	c.Put("a", "a") // replaced: 1 + 4
	c.Put("d", "ddddd")
	if c.Len() != 3 {
		t.Errorf("Len = %d after replacing a with a lighter value, want 3 (a, c, d: weight 10)", c.Len())
	}
	c.Put("e", "eeeeeeeeeee") // 11 > 10 alone: not kept, and nothing evicted for it
	if _, ok := c.Get("e"); ok || c.Len() != 3 {
		t.Errorf("a value over the limit alone: kept %v, Len %d; want not kept and 3 entries", ok, c.Len())
	}
	c.Put("a", "aaaaaaaaaaaa") // a key's heavier value replaces nothing and goes
	if _, ok := c.Get("a"); ok {
		t.Error("a is kept with a value over the limit")
	}
}

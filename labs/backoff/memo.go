package backoff

import (
	"strconv"

	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// pointKey identifies the outcome of one strategy at one client count. Strategies are
// independent given the rest of the scenario (each client's streams are keyed by seed, trial
// and client only), and a point does not depend on the sweep it is part of nor on the retry
// schedule's length, so a point computed for one scenario serves any other that shares it:
// dragging the clients slider recomputes only the chosen N, never the sweep.
type pointKey struct {
	strategy string
	url      string // memoKey: what the memo keeps the point under
}

// memoKey is the key of the point of the named strategy at n clients in scenario v: the
// scenario with that strategy alone at n clients, its sweep and retries at their defaults
// (lab.MemoKey).
func memoKey(v param.Values, strategy string, n int) string {
	return lab.MemoKey(v, map[string]string{"strategies": strategy, "clients": strconv.Itoa(n)}, "sweep", "retries")
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

// memo keeps the points of one lab value, shared by all of its runs.
type memo struct{ c *lab.Cache[pointValue] }

func newMemo(size int) *memo { return &memo{c: lab.NewCache[pointValue](size)} }

// get returns the point of k, if the memo holds it with its histogram when needHist.
func (m *memo) get(k pointKey, needHist bool) (pointValue, bool) {
	v, ok := m.c.Get(k.url)
	if !ok || needHist && v.hist == nil {
		return pointValue{}, false
	}
	return v, true
}

// put keeps v as the point of k, keeping the histogram already held if v has none. (Two
// runs putting the same point at once may leave it without its histogram; a run that needs
// it then computes the point again, with the same result.)
func (m *memo) put(k pointKey, v pointValue) {
	if v.hist == nil {
		if old, ok := m.c.Get(k.url); ok {
			v.hist = old.hist
		}
	}
	m.c.Put(k.url, v)
}

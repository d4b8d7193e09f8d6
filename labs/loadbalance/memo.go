package loadbalance

import (
	"container/list"
	"sync"
	"time"
)

// outcomeKey identifies one policy's simulation: everything it depends on. Policies are
// independent given the rest of the scenario (each sees the same environment and requests), so
// a simulation done for one scenario serves any other that shares it: ticking a policy on or
// off simulates only the policies not seen before.
type outcomeKey struct {
	policy                    string
	clients, backends, subset int
	subsetting                string
	costSpread, machineSpread float64
	antagonists, rate         float64
	duration                  time.Duration
	maxActive                 int
	clientSpread              float64
	event                     string
	eventShare                float64
	failing                   int
	countErrors               bool
	seed                      uint64
}

func keyOf(s Scenario, policy string) outcomeKey {
	return outcomeKey{
		policy: policy, clients: s.Clients, backends: s.Backends, subset: s.Subset, subsetting: s.Subsetting,
		costSpread: s.CostSpread, machineSpread: s.MachineSpread, antagonists: s.Antagonists, rate: s.Rate,
		duration: s.Duration, maxActive: s.MaxActive, clientSpread: s.ClientSpread, event: s.Event,
		eventShare: s.EventShare, failing: s.Failing, countErrors: s.CountErrors, seed: s.Seed,
	}
}

// outcome is what a run shows of one policy: every sampling interval, each backend's
// utilisation and the summary. From a finished simulation it is final.
type outcome struct {
	samples []Sample
	cpu     []float64
	summary PolicySummary
}

// outcomeOf is w's outcome so far.
func outcomeOf(w *World) outcome {
	cpu := w.cpuSoFar()
	return outcome{samples: w.Samples, cpu: cpu, summary: w.summary(cpu)}
}

// memoSize is how many policy outcomes a lab keeps: each is at most some 40 kB.
const memoSize = 256

// memo is a bounded LRU of finished outcomes shared by every run of one lab value.
type memo struct {
	mu    sync.Mutex
	items map[outcomeKey]*list.Element
	order *list.List
}

type memoEntry struct {
	key outcomeKey
	val outcome
}

func newMemo() *memo { return &memo{items: map[outcomeKey]*list.Element{}, order: list.New()} }

func (m *memo) get(k outcomeKey) (outcome, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.items[k]
	if !ok {
		return outcome{}, false
	}
	m.order.MoveToFront(e)
	return e.Value.(*memoEntry).val, true
}

func (m *memo) put(k outcomeKey, v outcome) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.items[k]; ok {
		m.order.MoveToFront(e)
		return
	}
	m.items[k] = m.order.PushFront(&memoEntry{key: k, val: v})
	for m.order.Len() > memoSize {
		old := m.order.Back()
		m.order.Remove(old)
		delete(m.items, old.Value.(*memoEntry).key)
	}
}

package subset

import "fmt"

// Change is a change to the set of clients or backends.
//
// A resize (AddClient, RemoveClient, AddBackend, RemoveBackend) changes how
// many tasks a job has. Clients and backends are identified by their
// positions, so that every other client and backend keeps its identity, a
// resize acts at the end of the lists: adding appends one, removing drops
// the last one. This is how a job that is resized gains or loses tasks, and
// every client then subsets a list of a new length.
//
// A failure (FailBackend) is not a resize: the last backend fails but stays
// in the list every client subsets, as a task that crashes or restarts does.
type Change int

// The changes [MeasureChurn] can apply.
const (
	AddClient Change = iota
	RemoveClient
	AddBackend
	RemoveBackend
	FailBackend
)

// String returns the change's name, such as "add-client".
func (c Change) String() string {
	switch c {
	case AddClient:
		return "add-client"
	case RemoveClient:
		return "remove-client"
	case AddBackend:
		return "add-backend"
	case RemoveBackend:
		return "remove-backend"
	case FailBackend:
		return "fail-backend"
	}
	return fmt.Sprintf("Change(%d)", int(c))
}

// Churn counts the connections a change opens and closes.
type Churn struct {
	Added, Removed int
}

// Total returns Added + Removed, the number of connections that change.
func (c Churn) Total() int { return c.Added + c.Removed }

// MeasureChurn compares the subsets a gives clients clients over backends
// backends with the subsets it gives after change, and counts the
// connections (client, backend) that exist only after (Added) and only
// before (Removed). A client that joins adds all its connections and one
// that leaves removes all of its own. A removal from an empty list changes
// nothing.
//
// For FailBackend, every client that had the failed backend loses that
// connection. An algorithm that fills subsets from healthy backends only
// ([Random] and [Rendezvous], which take a Healthy filter) replaces it with
// the next backend in the client's own order, and no other subset changes:
// the chapter's point that random subsetting copes with restarts and
// failures by skipping unhealthy backends in its shuffled list. The others
// ([Deterministic], [Aperture]) keep their subsets, one backend short, and
// spread its load over the rest, as the chapter describes for
// deterministic subsetting when backends of a subset are down.
//
// What to expect, with N clients, B backends and subset size k < B: adding
// or removing a client changes only that client's k connections under
// [Random], [Deterministic] and [Rendezvous], whose subsets do not depend on
// N, while under [Aperture] every aperture moves a little. Adding a backend
// changes about 2·N·k/(B+1) connections under [Rendezvous] (one removal and
// one addition in each of about N·k/(B+1) subsets), on the order of N under
// [Aperture] when the aperture keeps its width, and a large share of all N·k
// connections under [Random] and [Deterministic], whose shuffles depend on B.
// A failure changes the m ≈ N·k/B connections to the failed backend, and as
// many again under [Random] and [Rendezvous], which replace it.
func MeasureChurn(a Algorithm, clients, backends, size int, change Change) Churn {
	clients, backends = max(clients, 0), max(backends, 0)
	if change == FailBackend {
		return failChurn(a, clients, backends, size)
	}
	n2, b2 := clients, backends
	switch change {
	case AddClient:
		n2++
	case RemoveClient:
		n2 = max(n2-1, 0)
	case AddBackend:
		b2++
	case RemoveBackend:
		b2 = max(b2-1, 0)
	default:
		panic("subset: unknown Change " + change.String())
	}
	// All subsets before, then all after, so that an Algorithm that keeps
	// work between calls (Deterministic) sees each configuration in client
	// order.
	var flat, buf []int
	ends := make([]int, clients+1)
	for c := range clients {
		buf = a.Subset(buf, c, clients, backends, size)
		flat = append(flat, buf...)
		ends[c+1] = len(flat)
	}
	var ch Churn
	mark := make([]int, max(backends, b2)) // mark[b] == c+1: client c had b before
	for c := range max(clients, n2) {
		before := 0
		if c < clients {
			for _, b := range flat[ends[c]:ends[c+1]] {
				mark[b] = c + 1
			}
			before = ends[c+1] - ends[c]
		}
		kept := 0
		buf = buf[:0]
		if c < n2 {
			buf = a.Subset(buf, c, n2, b2, size)
		}
		for _, b := range buf {
			if mark[b] == c+1 {
				kept++
			}
		}
		ch.Added += len(buf) - kept
		ch.Removed += before - kept
	}
	return ch
}

// healthAware is an Algorithm that can leave unhealthy backends out of its
// subsets, filling them from the backends it would otherwise not choose.
type healthAware interface {
	// without returns a copy of the algorithm that also takes backend b
	// as unhealthy.
	without(b int) Algorithm
}

func (r *Random) without(b int) Algorithm {
	h := r.Healthy
	return &Random{Seed: r.Seed, Healthy: func(x int) bool { return x != b && (h == nil || h(x)) }}
}

func (r Rendezvous) without(b int) Algorithm {
	h := r.Healthy
	r.Healthy = func(x int) bool { return x != b && (h == nil || h(x)) }
	return r
}

// failChurn is MeasureChurn's FailBackend: the last backend fails.
func failChurn(a Algorithm, clients, backends, size int) Churn {
	var ch Churn
	if backends == 0 {
		return ch
	}
	failed := backends - 1
	ha, replaces := a.(healthAware)
	var after Algorithm
	if replaces {
		after = ha.without(failed)
	}
	var before, buf []int
	mark := make([]int, backends) // mark[b] == c+1: client c had b before
	for c := range clients {
		before = a.Subset(before, c, clients, backends, size)
		had := false
		for _, b := range before {
			mark[b] = c + 1
			had = had || b == failed
		}
		if !had {
			continue
		}
		if !replaces {
			ch.Removed++ // the connection to the failed backend, and nothing else
			continue
		}
		buf = after.Subset(buf, c, clients, backends, size)
		kept := 0
		for _, b := range buf {
			if mark[b] == c+1 {
				kept++
			}
		}
		ch.Added += len(buf) - kept
		ch.Removed += len(before) - kept
	}
	return ch
}

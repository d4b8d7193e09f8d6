package subset

import "fmt"

// Change is a change to the set of clients or backends.
//
// Clients and backends are identified by their positions, so that every
// other client and backend keeps its identity, a change acts at the end of
// the lists: adding appends one, removing drops the last one. This is how a
// job that is resized gains or loses tasks.
type Change int

// The changes [MeasureChurn] can apply.
const (
	AddClient Change = iota
	RemoveClient
	AddBackend
	RemoveBackend
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
// What to expect, with N clients, B backends and subset size k < B: adding
// or removing a client changes only that client's k connections under
// [Random], [Deterministic] and [Rendezvous], whose subsets do not depend on
// N, while under [Aperture] every aperture moves a little. Adding a backend
// changes about 2·N·k/(B+1) connections under [Rendezvous] (one removal and
// one addition in each of about N·k/(B+1) subsets), on the order of N under
// [Aperture] when the aperture keeps its width, and a large share of all N·k
// connections under [Random] and [Deterministic], whose shuffles depend on B.
func MeasureChurn(a Algorithm, clients, backends, size int, change Change) Churn {
	clients, backends = max(clients, 0), max(backends, 0)
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

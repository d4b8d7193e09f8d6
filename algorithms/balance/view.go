package balance

import (
	"math/bits"
	"math/rand/v2"
)

// View is what a picker sees of one client's subset: per-backend signals,
// indexed by position in the subset, 0 ≤ i < Len(). A simulation implements
// it over its own state; real code can fill a [Table].
//
// Pickers only read a View. Each picker documents which methods it calls.
type View interface {
	// Len returns the number of backends in the subset.
	Len() int
	// Available reports whether backend i may receive a request: false
	// when the connection is refused, when the backend is in lame duck
	// state, or when the client's flow control holds it back.
	Available(i int) bool
	// Active returns the number of this client's requests to backend i
	// that have not completed.
	Active(i int) int
	// RecentErrors returns the number of errors this client recently got
	// from backend i, over whatever window or decay the caller chooses.
	RecentErrors(i int) int
	// Report returns the load backend i last reported.
	Report(i int) Report
}

// Report is the load a backend reports to its clients with its responses,
// as the chapter's weighted round robin assumes.
type Report struct {
	// QPS is the rate of queries the backend served, from all clients.
	QPS float64
	// EPS is the rate of those queries that failed.
	EPS float64
	// Utilization is the share of the backend's capacity in use, such as
	// CPU utilisation: 0.5 for half.
	Utilization float64
}

// Table is a [View] backed by slices, one element per subset position:
// InFlight holds the active requests and Errors the recent errors. Len is
// len(InFlight). Errors, Reports and Down may be nil, meaning no errors, no
// reports and every backend available; when not nil they must be as long
// as InFlight. Use a *Table as the View: the methods have pointer
// receivers, so passing it neither copies the slices nor allocates.
type Table struct {
	InFlight []int
	Errors   []int
	Reports  []Report
	Down     []bool
}

// Len returns len(t.InFlight).
func (t *Table) Len() int { return len(t.InFlight) }

// Available reports !t.Down[i], or true when Down is nil.
func (t *Table) Available(i int) bool { return t.Down == nil || !t.Down[i] }

// Active returns t.InFlight[i].
func (t *Table) Active(i int) int { return t.InFlight[i] }

// RecentErrors returns t.Errors[i], or 0 when Errors is nil.
func (t *Table) RecentErrors(i int) int {
	if t.Errors == nil {
		return 0
	}
	return t.Errors[i]
}

// Report returns t.Reports[i], or the zero Report when Reports is nil.
func (t *Table) Report(i int) Report {
	if t.Reports == nil {
		return Report{}
	}
	return t.Reports[i]
}

// Picker chooses the backend of a client's subset that gets the next
// request.
//
// Pick returns the position in v of the chosen backend, one for which
// v.Available is true, or −1 when there is none. It does not change v: the
// caller counts the request as active, and later completed, in its own
// state. Pickers keep state between picks (a round-robin position, smoothed
// weights), so each client needs its own, and none is safe for concurrent
// use. No picker allocates per pick once its state has grown to the subset
// size.
type Picker interface {
	Pick(v View) int
}

// global draws from the top-level functions of math/rand/v2.
type global struct{}

func (global) Uint64() uint64 { return rand.Uint64() }

// source returns src, or the global source when src is nil.
func source(src rand.Source) rand.Source {
	if src == nil {
		return global{}
	}
	return src
}

// uintn returns a uniform value in [0, n) from src, n > 0, by Lemire's
// multiply-and-reject method, so that draws stay the same across Go
// releases.
func uintn(src rand.Source, n int) int {
	un := uint64(n)
	hi, lo := bits.Mul64(src.Uint64(), un)
	if lo < un {
		thresh := -un % un
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), un)
		}
	}
	return int(hi)
}

// nth returns the position of the available backend with rank r (from 0)
// among the available backends of v, or −1.
func nth(v View, r int) int {
	for i := range v.Len() {
		if v.Available(i) {
			if r == 0 {
				return i
			}
			r--
		}
	}
	return -1
}

// available returns the number of available backends in v.
func available(v View) int {
	c := 0
	for i := range v.Len() {
		if v.Available(i) {
			c++
		}
	}
	return c
}

// load returns backend i's active requests, plus its recent errors when
// countErrors is set.
func load(v View, i int, countErrors bool) int {
	l := v.Active(i)
	if countErrors {
		l += v.RecentErrors(i)
	}
	return l
}

package loadbalance

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// algorithm returns the named subsetting algorithm for seed.
func algorithm(name string, seed uint64) subset.Algorithm {
	switch name {
	case "random":
		return &subset.Random{Seed: seed}
	case "deterministic":
		return &subset.Deterministic{Seed: seed}
	case "rendezvous":
		return subset.Rendezvous{Seed: seed}
	case "aperture":
		return subset.Aperture{}
	}
	panic("loadbalance: unknown subsetting " + name)
}

// subsets returns every client's subset, flattened: client c's is conns[starts[c]:starts[c+1]].
func subsets(name string, seed uint64, clients, backends, size int) (starts, conns []int32) {
	a := algorithm(name, seed)
	starts = make([]int32, clients+1)
	conns = make([]int32, 0, clients*size)
	var buf []int
	for c := range clients {
		buf = a.Subset(buf, c, clients, backends, size)
		for _, b := range buf {
			conns = append(conns, int32(b))
		}
		starts[c+1] = int32(len(conns))
	}
	return starts, conns
}

// connections counts the connections of each backend.
func connections(backends int, conns []int32) []int {
	n := make([]int, backends)
	for _, b := range conns {
		n[b]++
	}
	return n
}

// ConnStats is summary.connections: the spread of connections per backend.
type ConnStats struct {
	Min  int     `json:"min"`
	Max  int     `json:"max"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

func connStats(counts []int) ConnStats {
	st := subset.Summarize(counts)
	return ConnStats{Min: st.Min, Max: st.Max, Mean: st.Mean, SD: st.StdDev}
}

// Comparison is one row of summary.subsettings: an algorithm's connection spread at the
// scenario's sizes and, when the sizes are small enough to count them, its churn: the
// connections opened plus closed when a job is resized by one task (a client or a backend
// added or removed at the end of its list, so that every client subsets a list of a new
// length) and when one backend fails (it stays in the list; see subset.FailBackend).
type Comparison struct {
	Subsetting     string  `json:"subsetting"`
	Min            int     `json:"min"`
	Max            int     `json:"max"`
	SD             float64 `json:"sd"`
	MaxOverMean    float64 `json:"max_over_mean"`
	AddClient      *int    `json:"churn_add_client,omitempty"`
	RemoveClient   *int    `json:"churn_remove_client,omitempty"`
	AddBackend     *int    `json:"churn_add_backend,omitempty"`    // a resize: the backend job grows by one
	RemoveBackend  *int    `json:"churn_remove_backend,omitempty"` // a resize: the backend job shrinks by one
	FailBackend    *int    `json:"churn_fail_backend,omitempty"`   // one backend fails and stays in the list
	ConnectionsAll int     `json:"connections"`
}

// compareLimit is the most clients × backends for which every algorithm is compared, churn
// included (rendezvous scores every backend for every client, ten times over).
const compareLimit = 1 << 20

// subsetsWork is the work, in World.Work units, of computing every client's subset under the
// named algorithm: a unit per connection made (a quarter of an event's worth) and, for
// rendezvous, which scores every backend for every client, workScale per scanPerWorkUnit
// backends scored.
func subsetsWork(name string, s Scenario) int64 {
	w := int64(s.Clients) * int64(s.Subset)
	if name == "rendezvous" {
		w += workScale * int64(s.Clients) * int64(s.Backends) / scanPerWorkUnit
	}
	return w
}

// churnComputations is how many times measuring one algorithm's churn computes every subset:
// before and after each of the four changes.
const churnComputations = 8

// compareWork is the work of compare(s, ...): the other algorithms' subsets and, when every
// algorithm is compared, each one's churn.
func compareWork(s Scenario) int64 {
	if s.Clients*s.Backends > compareLimit {
		return 0
	}
	var w int64
	for _, name := range Subsettings {
		if name != s.Subsetting {
			w += subsetsWork(name, s)
		}
		w += churnComputations * subsetsWork(name, s)
	}
	return w
}

// compare returns the comparison rows: every algorithm when the sizes are small, else only the
// chosen one, without churn. Its work is compareWork(s).
func compare(s Scenario, chosen []int) []Comparison {
	names := Subsettings
	all := s.Clients*s.Backends <= compareLimit
	if !all {
		names = []string{s.Subsetting}
	}
	var rows []Comparison
	for _, name := range names {
		counts := chosen
		if name != s.Subsetting {
			_, conns := subsets(name, s.Seed, s.Clients, s.Backends, s.Subset)
			counts = connections(s.Backends, conns)
		}
		st := connStats(counts)
		row := Comparison{Subsetting: name, Min: st.Min, Max: st.Max, SD: st.SD}
		for _, c := range counts {
			row.ConnectionsAll += c
		}
		if st.Mean > 0 {
			row.MaxOverMean = float64(st.Max) / st.Mean
		}
		if all {
			churn := func(ch subset.Change) *int {
				n := subset.MeasureChurn(algorithm(name, s.Seed), s.Clients, s.Backends, s.Subset, ch).Total()
				return &n
			}
			row.AddClient, row.RemoveClient = churn(subset.AddClient), churn(subset.RemoveClient)
			row.AddBackend, row.RemoveBackend = churn(subset.AddBackend), churn(subset.RemoveBackend)
			row.FailBackend = churn(subset.FailBackend)
		}
		rows = append(rows, row)
	}
	return rows
}

// Small sizes show the subsets themselves.
const (
	roundsMaxClients  = 32
	roundsMaxBackends = 32
)

// ClientSubset is one row of summary.subsets: a client's subset and, under deterministic
// subsetting, the round (shuffled list) it starts in.
type ClientSubset struct {
	Client int    `json:"client"`
	Round  string `json:"round"`
	Subset string `json:"subset"`
}

// Round is one row of summary.rounds: a shuffled list of deterministic subsetting, cut into
// the clients' subsets.
type Round struct {
	Round int    `json:"round"`
	List  string `json:"list"`
}

// smallTables returns summary.subsets and, under deterministic subsetting, summary.rounds, or
// nils when the sizes are too large to read.
func smallTables(s Scenario, starts, conns []int32) ([]ClientSubset, []Round) {
	if s.Clients > roundsMaxClients || s.Backends > roundsMaxBackends {
		return nil, nil
	}
	det := s.Subsetting == "deterministic"
	var rows []ClientSubset
	for c := range s.Clients {
		sub := conns[starts[c]:starts[c+1]]
		row := ClientSubset{Client: c, Subset: join(sub)}
		if det && s.Backends > 0 {
			row.Round = strconv.Itoa(int(starts[c]) / s.Backends)
		}
		rows = append(rows, row)
	}
	if !det || s.Backends == 0 {
		return rows, nil
	}
	// The subsets read in client order are the rounds' lists one after the other.
	var rounds []Round
	var b strings.Builder
	c := 0
	for r := 0; r*s.Backends < len(conns); r++ {
		b.Reset()
		for pos := r * s.Backends; pos < min((r+1)*s.Backends, len(conns)); pos++ {
			for int(starts[c+1]) <= pos {
				c++
			}
			if pos == int(starts[c]) || pos == r*s.Backends {
				if pos > r*s.Backends {
					b.WriteString("] ")
				}
				fmt.Fprintf(&b, "c%d [", c)
			} else {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.Itoa(int(conns[pos])))
		}
		b.WriteString("]")
		rounds = append(rounds, Round{Round: r, List: b.String()})
	}
	return rows, rounds
}

func join(bs []int32) string {
	var b strings.Builder
	for i, x := range bs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

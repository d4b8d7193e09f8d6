package loadbalance

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/resilience-playground/playground/algorithms/subset"
	"github.com/resilience-playground/playground/engine"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// algorithm returns the named subsetting algorithm for seed.
func algorithm(name string, seed uint64) subset.Algorithm { return subsettingOptions.Make(name)(seed) }

// subsets returns every client's subset, flattened: client c's is conns[starts[c]:starts[c+1]].
func subsets(name string, seed uint64, clients, backends, size int) (starts, conns []int32) {
	s := scenario{Subsetting: name, Seed: seed, Clients: clients, Backends: backends, Subset: size}
	starts, conns, _ = subsetsPaced(context.Background(), name, s) // unpaced, it never fails
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

// connStatsRow is summary.connections: the spread of connections per backend.
type connStatsRow struct {
	Min  int     `json:"min"`
	Max  int     `json:"max"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

func connStats(counts []int) connStatsRow {
	st := subset.Summarize(counts)
	return connStatsRow{Min: st.Min, Max: st.Max, Mean: st.Mean, SD: st.StdDev}
}

// comparisonRow is one row of summary.subsettings: an algorithm's connection spread at the
// scenario's sizes and, when the sizes are small enough to count them, its churn: the
// connections opened plus closed when a job is resized by one task (a client or a backend
// added or removed at the end of its list, so that every client subsets a list of a new
// length) and when one backend fails (it stays in the list; see subset.FailBackend).
type comparisonRow struct {
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
func subsetsWork(name string, s scenario) int64 {
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
func compareWork(s scenario) int64 {
	if s.Clients*s.Backends > compareLimit {
		return 0
	}
	var w int64
	for _, name := range subsettingNames {
		if name != s.Subsetting {
			w += subsetsWork(name, s)
		}
		w += churnComputations * subsetsWork(name, s)
	}
	return w
}

// compareParams are the parameters the comparison rows depend on.
var compareParams = []string{"clients", "backends", "subset", "seed"}

// compareKey is the cache key of the comparison row of the named algorithm in scenario v: its
// memo key (lab.MemoKey) with the algorithm set and every parameter but compareParams at its
// default.
func compareKey(v param.Values, name string) string {
	var ignore []string
	for _, sp := range v.Set() {
		if sp.Name != "subsetting" && !slices.Contains(compareParams, sp.Name) {
			ignore = append(ignore, sp.Name)
		}
	}
	return lab.MemoKey(v, map[string]string{"subsetting": name}, ignore...)
}

// compareRow returns the comparison row of the named algorithm, as paced work of ctx, counting
// the work of each piece with add (its share of compareWork). chosen are the connection counts of the scenario's
// own subsetting. Every piece — the subsets of a few clients, one change's churn — is paced
// on its own, so that a cancelled run stops within a piece.
func compareRow(ctx context.Context, s scenario, name string, chosen []int, add func(int64)) (comparisonRow, error) {
	all := s.Clients*s.Backends <= compareLimit
	counts := chosen
	if name != s.Subsetting {
		_, conns, err := subsetsPaced(ctx, name, s)
		if err != nil {
			return comparisonRow{}, err
		}
		counts = connections(s.Backends, conns)
		add(subsetsWork(name, s))
	}
	st := connStats(counts)
	row := comparisonRow{Subsetting: name, Min: st.Min, Max: st.Max, SD: st.SD}
	for _, c := range counts {
		row.ConnectionsAll += c
	}
	if st.Mean > 0 {
		row.MaxOverMean = float64(st.Max) / st.Mean
	}
	if !all {
		return row, nil
	}
	for _, f := range []struct {
		ch subset.Change
		to **int
	}{{subset.AddClient, &row.AddClient}, {subset.RemoveClient, &row.RemoveClient},
		{subset.AddBackend, &row.AddBackend}, {subset.RemoveBackend, &row.RemoveBackend},
		{subset.FailBackend, &row.FailBackend}} {
		err := engine.Pace(ctx, func() error {
			n := subset.MeasureChurn(algorithm(name, s.Seed), s.Clients, s.Backends, s.Subset, f.ch).Total()
			*f.to = &n
			return nil
		})
		if err != nil {
			return comparisonRow{}, err
		}
		add(churnComputations * subsetsWork(name, s) / 5) // five changes
	}
	return row, nil
}

// comparison is the subsettings comparison of one run, computed on a goroutine of its own.
type comparison struct {
	done chan struct{}
	rows []comparisonRow
	err  error
	sent bool
}

// startComparison starts computing the comparison rows of scenario v: every algorithm when
// the sizes are small, else only the chosen one, without churn. Rows the lab's cache holds
// are not computed again. Its work is compareWork(s) less the rows cached.
func (r *runner) startComparison(ctx context.Context, v param.Values, s scenario, chosen []int) *comparison {
	names := subsettingNames
	if s.Clients*s.Backends > compareLimit {
		names = []string{s.Subsetting}
	}
	c := &comparison{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		for _, name := range names {
			key := compareKey(v, name)
			row, ok := r.rows.Get(key)
			if !ok {
				var err error
				if row, err = compareRow(ctx, s, name, chosen, func(n int64) { r.work.Add(n) }); err != nil {
					c.err = err
					return
				}
				r.rows.Put(key, row)
			}
			c.rows = append(c.rows, row)
		}
	}()
	return c
}

// take returns the rows once, when they are ready (waiting for them if block), or the error
// that stopped them. ok is false when there is nothing new to send.
func (c *comparison) take(block bool) (rows []comparisonRow, err error, ok bool) {
	if c.sent {
		return nil, nil, false
	}
	if block {
		<-c.done
	}
	select {
	case <-c.done:
	default:
		return nil, nil, false
	}
	c.sent = true
	return c.rows, c.err, c.err == nil
}

// wait waits for the comparison's goroutine to end (its ctx cancelled, it ends within a
// piece).
func (c *comparison) wait() { <-c.done }

// rowCacheSize is how many comparison rows a lab keeps: a hundred bytes or so each.
const rowCacheSize = 1024

// Small sizes show the subsets themselves.
const (
	roundsMaxClients  = 32
	roundsMaxBackends = 32
)

// clientSubset is one row of summary.subsets: a client's subset and, under deterministic
// subsetting, the round (shuffled list) it starts in.
type clientSubset struct {
	Client int    `json:"client"`
	Round  string `json:"round"`
	Subset string `json:"subset"`
}

// roundRow is one row of summary.rounds: a shuffled list of deterministic subsetting, cut into
// the clients' subsets.
type roundRow struct {
	Round int    `json:"round"`
	List  string `json:"list"`
}

// smallTables returns summary.subsets and, under deterministic subsetting, summary.rounds, or
// nils when the sizes are too large to read.
func smallTables(s scenario, starts, conns []int32) ([]clientSubset, []roundRow) {
	if s.Clients > roundsMaxClients || s.Backends > roundsMaxBackends {
		return nil, nil
	}
	det := s.Subsetting == "deterministic"
	var rows []clientSubset
	for c := range s.Clients {
		sub := conns[starts[c]:starts[c+1]]
		row := clientSubset{Client: c, Subset: join(sub)}
		if det && s.Backends > 0 {
			row.Round = strconv.Itoa(int(starts[c]) / s.Backends)
		}
		rows = append(rows, row)
	}
	if !det || s.Backends == 0 {
		return rows, nil
	}
	// The subsets read in client order are the rounds' lists one after the other.
	var rounds []roundRow
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
		rounds = append(rounds, roundRow{Round: r, List: b.String()})
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

// subsetsPaced is subsets(name, s.Seed, ...) computed as paced work of ctx, a few
// milliseconds at a time, so that a cancelled run stops within a quantum and other runs get
// the CPUs meanwhile.
func subsetsPaced(ctx context.Context, name string, s scenario) (starts, conns []int32, err error) {
	a := algorithm(name, s.Seed)
	starts = make([]int32, s.Clients+1)
	conns = make([]int32, 0, s.Clients*s.Subset)
	perClient := max(subsetsWork(name, s)/max(int64(s.Clients), 1), 1)
	step := int(max(chunkWork/perClient, 1))
	var buf []int
	for c0 := 0; c0 < s.Clients; c0 += step {
		err := engine.Pace(ctx, func() error {
			for c := c0; c < min(s.Clients, c0+step); c++ {
				buf = a.Subset(buf, c, s.Clients, s.Backends, s.Subset)
				for _, b := range buf {
					conns = append(conns, int32(b))
				}
				starts[c+1] = int32(len(conns))
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return starts, conns, nil
}

package loadbalance

import (
	"fmt"
	"testing"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// chapterCode counts the connections per backend that the chapter's printed Subset function
// gives, over the same shuffled lists as the lab's deterministic subsetting: round r's list is
// list r of subset.Deterministic (a subset the size of the whole list, client r's, is exactly
// list r), cut into backends/size whole subsets.
func chapterCode(seed uint64, clients, backends, size int) subset.Stats {
	d := &subset.Deterministic{Seed: seed}
	counts := make([]int, backends)
	perRound := backends / size
	for c := range clients {
		list := d.Subset(nil, c/perRound, 1, backends, backends)
		id := c % perRound
		for _, b := range list[id*size : (id+1)*size] {
			counts[b]++
		}
	}
	return subset.Summarize(counts)
}

// TestDeterministicProseNotCode measures both readings of the chapter at 300 clients, 300
// backends and subsets of 7 (seed 1): the lab's gives exactly 7 connections per backend, the
// printed code's counts more than one apart (the note quotes both, held by TestQuotes).
func TestDeterministicProseNotCode(t *testing.T) {
	const n, b, k = 300, 300, 7
	code := chapterCode(1, n, b, k)
	lab := connSummary(t, mustRun(t, fmt.Sprintf("clients=%d&backends=%d&subset=%d&subsetting=deterministic", n, b, k)+noTraffic))
	t.Logf("the chapter's code: %d to %d; the lab: %d to %d", code.Min, code.Max, lab.Min, lab.Max)
	if lab.Min != k || lab.Max != k {
		t.Errorf("the lab: %d to %d connections, want exactly %d", lab.Min, lab.Max, k)
	}
	if code.Max-code.Min <= 1 {
		t.Errorf("the chapter's code: %d to %d; expected more than one apart", code.Min, code.Max)
	}
	// Its first rounds are the lab's: where the size divides the backends the two agree.
	if c, l := chapterCode(1, n, b, 10), connSummary(t, mustRun(t, "clients=300&backends=300&subset=10&subsetting=deterministic"+noTraffic)); c.Min != l.Min || c.Max != l.Max {
		t.Errorf("subsets of 10: the code %d to %d, the lab %d to %d: want the same", c.Min, c.Max, l.Min, l.Max)
	}
}

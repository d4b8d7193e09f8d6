package loadbalance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestPreempted: a run cancelled in any stage — subsets, the subsettings' comparison and
// churn, the simulation — stops within a piece of paced work, so a viewer's new value never
// waits for the old run's setup.
func TestPreempted(t *testing.T) {
	for _, q := range []string{
		"clients=300&backends=300&subset=60&duration=10s",
		"subsetting=rendezvous&clients=400&backends=400&subset=40&duration=5s&policy=least_loaded",
	} {
		labtest.CheckPreempted(t, q, 12, 0.15, func() (*lab.Lab, func() int64) {
			r := newRunner()
			return r.lab(), r.work.Load
		})
	}
}

// TestCoarseFirst: the first coarse picture has every series.
func TestCoarseFirst(t *testing.T) {
	queries := []string{"", "clients=901&backends=901&subset=301&rate=0.8&duration=20s"}
	if raceEnabled || testing.Short() {
		queries = queries[:1] // the heavy one takes minutes under the race detector
	}
	for _, q := range queries {
		labtest.CheckCoarseFirst(t, newRunner().lab(), q)
	}
}

// TestFirstPictureShowsTheSubset: the first picture of the default scenario covers a subset
// cycle, so that it differs from one subset size to the next as the final one does — a viewer
// dragging the subset size sees the CPU charts move. Before, it covered the first second, in
// which no client had sent a request to more than its first ten backends: the same numbers
// at every size from 20 up.
func TestFirstPictureShowsTheSubset(t *testing.T) {
	r := newRunner()
	r.firstWait = time.Hour // however slow the machine, the first picture covers the cycle
	l := r.lab()
	first := func(q string) string {
		v, err := l.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var cpu []lab.Series
		if err := l.Stream(ctx, v, func(u lab.Update) {
			if u.Refine != nil && cpu == nil {
				for _, s := range u.Series {
					if s.Chart == "cpu" || s.Chart == "cpu_hist" {
						cpu = append(cpu, s)
					}
				}
				cancel()
			}
		}); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", q, err)
		}
		if len(cpu) == 0 {
			t.Fatalf("%s: no CPU series in the first picture", q)
		}
		return fmt.Sprint(cpu)
	}
	sizes := []int{20, 40, 80, 120}
	seen := map[string]int{}
	for _, n := range sizes {
		p := first(fmt.Sprintf("subset=%d", n))
		if m, ok := seen[p]; ok {
			t.Errorf("the first pictures of subset=%d and subset=%d have the same CPU numbers", m, n)
		}
		seen[p] = n
	}
}

// TestFirstPictureWaitsAtMostFirstWait: a first picture that would cover a long subset cycle
// goes out once the run has waited its first wait, with the intervals simulated so far (here,
// a wait of a nanosecond: after the first interval, where the cycle of a subset of 150 at 10
// requests a second is 15).
func TestFirstPictureWaitsAtMostFirstWait(t *testing.T) {
	r := newRunner()
	r.firstWait = time.Nanosecond
	l := r.lab()
	v, err := l.Parse("subset=150")
	if err != nil {
		t.Fatal(err)
	}
	if s := scenarioOf(v); cycleSamples(s) != 15 || firstStep(s, scenarioSamples(s), stepOf(s, chunkWork)) < 2 {
		t.Fatalf("subset=150: a cycle of %d intervals, a first step of %d; want 15 and several",
			cycleSamples(s), firstStep(s, scenarioSamples(s), stepOf(s, chunkWork)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var first *lab.Refinement
	if err := l.Stream(ctx, v, func(u lab.Update) {
		if u.Refine != nil && first == nil {
			first = u.Refine
			cancel()
		}
	}); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	if first == nil || first.Done != 1 {
		t.Errorf("first picture %+v, want one second simulated", first)
	}
}

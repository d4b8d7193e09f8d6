package loadbalance

import (
	"context"
	"errors"
	"fmt"
	"testing"

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
	l := newRunner().lab()
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

package loadbalance

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
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
	heavy.Test(t)
	queries := []string{"", "clients=901&backends=901&subset=301&rate=0.8&duration=20s"}
	if heavy.Light() {
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
	heavy.Test(t)
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

// TestFirstPictureCut: a first picture of a run shorter than a subset cycle (the issue-17
// scenario: 301 backends at 0.8 requests a second take a client 376 s, the run 181 s) is sent
// at fewer sampling intervals once it is due, so a slow step (weighted round robin reading 301
// backends a request) does not hold it back; one on its way to a cycle (the default
// scenario's subset sizes, up to 150 backends at 10 a second in 60 s) is never cut, however
// late. Whether the picture is due is decided here by firstBy, not by the machine: 1 ns
// (always due) against an hour (never).
func TestFirstPictureCut(t *testing.T) {
	heavy.Test(t)
	firstDone := func(q string, firstBy time.Duration) int64 {
		t.Helper()
		r := newRunner()
		r.firstBy = firstBy
		l := r.lab()
		v, err := l.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := int64(-1)
		if err := l.Stream(ctx, v, func(u lab.Update) {
			if u.Refine != nil && done < 0 {
				done = u.Refine.Done
				cancel()
			}
		}); err != nil && !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: %v", q, err)
		}
		return done
	}
	big := "clients=901&backends=901&subset=301&rate=0.8&duration=3m1s"
	if heavy.Light() {
		big = "clients=301&backends=301&subset=300&rate=0.8&duration=3m1s"
	}
	s := mustParse(t, big)
	samples := scenarioSamples(s)
	first, least := firstStep(s, samples, stepOf(s, chunkWork))
	if !(least < first && first < samples) {
		t.Fatalf("%s: first step %d of %d, at least %d: want one that may be cut", big, first, samples, least)
	}
	if cut, whole := firstDone(big, time.Nanosecond), firstDone(big, time.Hour); !(cut < whole && whole == int64(first)) {
		t.Errorf("%s: first picture at %d s when due at once, %d s when never due; want fewer than %d", big, cut, whole, first)
	}
	for _, n := range []int{20, 80, 150} {
		q := fmt.Sprintf("subset=%d", n)
		s := mustParse(t, q)
		samples := scenarioSamples(s)
		if first, least := firstStep(s, samples, stepOf(s, chunkWork)); first != least {
			t.Errorf("%s: first step %d may be cut to %d: it covers a subset cycle", q, first, least)
		}
		if cut, whole := firstDone(q, time.Nanosecond), firstDone(q, time.Hour); cut != whole {
			t.Errorf("%s: first picture at %d s when due at once, %d s when never due: it covers a subset cycle, never cut", q, cut, whole)
		}
	}
}

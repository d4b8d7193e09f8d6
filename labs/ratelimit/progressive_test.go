package ratelimit

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
)

// progressive are scenarios whose progressive runs must end in the one-shot result: every
// store semantics, with store latencies that carry writes, retries, decrements and deliveries
// across slice boundaries, and every traffic shape.
var progressive = map[string]string{
	"default":  "",
	"some":     "algorithms=fixed_window,subwindows,leaky_queue,gcra&duration=8s&seed=3",
	"boundary": "traffic=boundary&duration=9s&load=1.3",
	"racy":     "store=racy&instances=4&store_latency=300ms&duration=10s&limit=200&skew=2s",
	"cas":      "store=cas&instances=3&store_latency=150ms&duration=10s&limit=100&balancer=random",
	"incr":     "store=incr&instances=5&store_latency=400ms&duration=10s&limit=100&traffic=bursty&subwindows=7",
	"async":    "store=async&instances=6&store_latency=900ms&duration=10s&limit=100&traffic=ramp&load=3",
	"sticky":   "store=local&balancer=sticky&duration=10s&limit=100&leak=2.5&burst=30",
	"latency":  "algorithms=sliding_log,gcra&instances=4&store=cas&store_latency=150ms&duration=10s&limit=100&load=2&latency_sweep=0:400:200",
}

// TestProgressiveEqualsOneShot: the fold of a progressive run's updates — slices of simulated
// time appended one after another — equals a one-shot run's result byte for byte, whatever
// the number of slices and GOMAXPROCS.
func TestProgressiveEqualsOneShot(t *testing.T) {
	heavy.Test(t)
	for name, q := range progressive {
		t.Run(name, func(t *testing.T) {
			want := marshal(t, mustRunOn(t, newRunner(1).lab(), q))
			for _, procs := range []int{1, 2, 7} {
				old := runtime.GOMAXPROCS(procs)
				for _, slices := range []int{defaultSlices, 13} {
					if got := marshal(t, mustRunOn(t, newRunner(slices).lab(), q)); !bytes.Equal(got, want) {
						t.Errorf("GOMAXPROCS=%d, %d slices: result differs from the one-shot result", procs, slices)
					}
				}
				runtime.GOMAXPROCS(old)
			}
		})
	}
}

// TestMemoEqualsOneShot: a run that replays some algorithms from the lab's memo (a
// neighbouring scenario ran them) and simulates the others, or replays them all, ends in the
// one-shot result byte for byte.
func TestMemoEqualsOneShot(t *testing.T) {
	heavy.Test(t)
	for name, q := range progressive {
		t.Run(name, func(t *testing.T) {
			want := marshal(t, mustRunOn(t, newRunner(1).lab(), q))
			l := Lab()
			v, err := Params.ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			algs := v.List("algorithms")
			neighbour, err := v.With("algorithms", strings.Join(algs[:(len(algs)+1)/2], ","))
			if err != nil {
				t.Fatal(err)
			}
			mustRunOn(t, l, neighbour.Encode())
			if got := marshal(t, mustRunOn(t, l, q)); !bytes.Equal(got, want) {
				t.Errorf("half the algorithms from the memo: result differs from the one-shot result")
			}
			if got := marshal(t, mustRunOn(t, l, q)); !bytes.Equal(got, want) {
				t.Errorf("every algorithm from the memo: result differs from the one-shot result")
			}
		})
	}
}

// TestFirstFrame: the first refinement already carries every chart and every algorithm's
// summary; refinements count simulated milliseconds up to the duration; series only append.
func TestFirstFrame(t *testing.T) {
	heavy.Test(t)
	l := Lab()
	v, err := Params.ParseQuery("duration=20s&sweep=1:31:10&latency_sweep=0:20:10")
	if err != nil {
		t.Fatal(err)
	}
	var (
		refines []int64
		picture *lab.Result
		fold    = lab.NewResult(l, v)
	)
	if _, err := l.Execute(context.Background(), v, func(u lab.Update) {
		fold.Apply(u)
		for _, s := range u.Series {
			if s.Name != "limit" && !s.Append && !(s.Chart == "rate" && s.Upsert) && !strings.HasPrefix(s.Chart, "sweep_") && s.Chart != "latency_admitted" { // the sweeps' few points go whole
				t.Errorf("series %s is neither appended nor a rate upserted", s.Name)
			}
		}
		if u.Refine == nil {
			return
		}
		refines = append(refines, u.Refine.Done)
		if u.Refine.Total != 20000 {
			t.Errorf("refinement total %d, want 20000 ms", u.Refine.Total)
		}
		if picture == nil {
			b, _ := json.Marshal(fold)
			picture = &lab.Result{}
			if err := json.Unmarshal(b, picture); err != nil {
				t.Fatal(err)
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if len(refines) != defaultSlices || refines[0] != 500 || refines[len(refines)-1] != 20000 {
		t.Errorf("refinements %v", refines)
	}
	charts := map[string]int{}
	for _, s := range picture.Series {
		if len(s.X) > 0 {
			charts[s.Chart]++
		}
	}
	for _, c := range view.Charts {
		if charts[c.ID] == 0 {
			t.Errorf("the first picture has nothing in chart %s", c.ID)
		}
	}
	if a, ok := picture.Summary["algorithms"].(map[string]any); !ok || len(a) != len(Algorithms) {
		t.Errorf("the first picture's summary.algorithms: %v", picture.Summary["algorithms"])
	}
}

// BenchmarkDefault is what a viewer waits for at the default scenario and at three minutes of
// traffic: the first picture and the final numbers.
func BenchmarkDefault(b *testing.B) {
	for _, q := range []string{"", "duration=3m"} {
		b.Run("q="+q, func(b *testing.B) {
			l := Lab()
			v, err := Params.ParseQuery(q)
			if err != nil {
				b.Fatal(err)
			}
			var picture, final time.Duration
			for b.Loop() {
				start := time.Now()
				seen := false
				if _, err := l.Execute(context.Background(), v, func(u lab.Update) {
					if u.Refine != nil && !seen {
						seen = true
						picture += time.Since(start)
					}
				}); err != nil {
					b.Fatal(err)
				}
				final += time.Since(start)
			}
			b.ReportMetric(float64(picture.Microseconds())/1e3/float64(b.N), "ms-to-picture")
			b.ReportMetric(float64(final.Microseconds())/1e3/float64(b.N), "ms-to-final")
		})
	}
}

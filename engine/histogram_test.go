package engine_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/engine"
)

// refHistogram builds the histogram of ts directly at the smallest width w0·2^k that fits all
// of them in maxBins bins (negative times count as 0).
func refHistogram(ts []time.Duration, w0 time.Duration, maxBins int) (time.Duration, []uint64) {
	var top time.Duration
	for _, t := range ts {
		top = max(top, t)
	}
	w := w0
	for int64(top/w) >= int64(maxBins) {
		w *= 2
	}
	return w, countAt(ts, w)
}

// countAt counts ts in bins of width w, up to the last non-empty bin.
func countAt(ts []time.Duration, w time.Duration) []uint64 {
	var counts []uint64
	for _, t := range ts {
		i := int(max(t, 0) / w)
		for len(counts) <= i {
			counts = append(counts, 0)
		}
		counts[i]++
	}
	return counts
}

func checkHistogram(t *testing.T, what string, h *engine.Histogram, wantWidth time.Duration, want []uint64) {
	t.Helper()
	if h.Width != wantWidth || !slices.Equal(h.Counts, want) {
		t.Fatalf("%s: width %v counts %v, want width %v counts %v", what, h.Width, h.Counts, wantWidth, want)
	}
	if len(h.Counts) > h.MaxBins {
		t.Fatalf("%s: %d bins, more than MaxBins=%d", what, len(h.Counts), h.MaxBins)
	}
}

func TestHistogramAdd(t *testing.T) {
	tests := []struct {
		name       string
		width      time.Duration
		maxBins    int
		add        []time.Duration
		wantWidth  time.Duration
		wantCounts []uint64
	}{
		{"empty", 10, 4, nil, 10, nil},
		{"within range", 10, 4, []time.Duration{0, 9, 10, 39}, 10, []uint64{2, 1, 0, 1}},
		{"bin edges", 10, 4, []time.Duration{10, 20, 30, 19}, 10, []uint64{0, 2, 1, 1}},
		{"one past range doubles", 10, 4, []time.Duration{0, 9, 10, 39, 40}, 20, []uint64{3, 1, 1}},
		{"far past range doubles repeatedly", 10, 4, []time.Duration{5, 1000}, 320, []uint64{1, 0, 0, 1}},
		{"negative times count in the first bin", 10, 4, []time.Duration{-1, -5 * time.Hour, 3, 15}, 10, []uint64{3, 1}},
		{"zero width becomes 1", 0, 4, []time.Duration{0, 1, 3}, 1, []uint64{1, 1, 0, 1}},
		{"negative width becomes 1", -5, 4, []time.Duration{2}, 1, []uint64{0, 0, 1}},
		{"maxBins below 2 becomes 2", 10, 1, []time.Duration{0, 15}, 10, []uint64{1, 1}},
		{"maxBins 0 becomes 2", 10, 0, []time.Duration{25}, 20, []uint64{0, 1}},
		{"largest time", 1, 2, []time.Duration{0, 1<<63 - 1}, 1 << 62, []uint64{1, 1}},
		{"odd width", 3, 5, []time.Duration{0, 2, 3, 14, 15}, 6, []uint64{3, 0, 2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := engine.NewHistogram(tc.width, tc.maxBins)
			for _, x := range tc.add {
				h.Add(x)
			}
			checkHistogram(t, "Add", h, tc.wantWidth, tc.wantCounts)
			if h.Total() != uint64(len(tc.add)) {
				t.Errorf("Total() = %d, want %d", h.Total(), len(tc.add))
			}
		})
	}
}

func TestHistogramNegativeTimes(t *testing.T) {
	h := engine.NewHistogram(time.Millisecond, 8)
	for _, x := range []time.Duration{-1, -time.Millisecond, -1 << 63, 0, time.Millisecond - 1} {
		h.Add(x)
	}
	checkHistogram(t, "negative", h, time.Millisecond, []uint64{5})
	// Negative times stay in the first bin after the width grows.
	h.Add(100 * time.Millisecond)
	h.Add(-3)
	checkHistogram(t, "negative after growth", h, 16*time.Millisecond, []uint64{6, 0, 0, 0, 0, 0, 1})
}

func TestHistogramTotal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	h := engine.NewHistogram(time.Microsecond, 16)
	if h.Total() != 0 {
		t.Fatalf("empty Total() = %d", h.Total())
	}
	for i := 1; i <= 5000; i++ {
		h.Add(time.Duration(r.Int64N(int64(time.Second))) - time.Millisecond)
		if i%1000 == 0 && h.Total() != uint64(i) {
			t.Fatalf("after %d adds Total() = %d", i, h.Total())
		}
	}
	h.Coarsen(3)
	if h.Total() != 5000 {
		t.Errorf("Total() after Coarsen = %d, want 5000", h.Total())
	}
	g := engine.NewHistogram(time.Microsecond, 16)
	g.Add(1)
	g.Add(time.Hour)
	h.Merge(g)
	if h.Total() != 5002 {
		t.Errorf("Total() after Merge = %d, want 5002", h.Total())
	}
	h.Reset(time.Microsecond, 16)
	if h.Total() != 0 || len(h.Counts) != 0 {
		t.Errorf("after Reset: Total() = %d, %d bins; want empty", h.Total(), len(h.Counts))
	}
}

func TestHistogramCoarsen(t *testing.T) {
	// Eleven bins of width 1 with count i+1 in bin i.
	var ts []time.Duration
	for i := range 11 {
		for range i + 1 {
			ts = append(ts, time.Duration(i))
		}
	}
	tests := []struct {
		n         int
		wantWidth time.Duration
	}{
		{0, 1}, // no-op
		{-1, 1},
		{11, 1},
		{100, 1},
		{10, 2},
		{6, 2},
		{5, 4},
		{3, 4},
		{2, 8},
		{1, 16},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			h := engine.NewHistogram(1, 64)
			for _, x := range ts {
				h.Add(x)
			}
			h.Coarsen(tc.n)
			checkHistogram(t, "Coarsen", h, tc.wantWidth, countAt(ts, tc.wantWidth))
			if tc.n > 0 && len(h.Counts) > tc.n {
				t.Errorf("%d bins after Coarsen(%d)", len(h.Counts), tc.n)
			}
			// Later adds land in bins of the coarsened width.
			h.Add(12)
			h.Add(-4)
			more := append(append([]time.Duration(nil), ts...), 12, -4)
			checkHistogram(t, "Add after Coarsen", h, tc.wantWidth, countAt(more, tc.wantWidth))
		})
	}
	t.Run("empty", func(t *testing.T) {
		h := engine.NewHistogram(5, 4)
		h.Coarsen(1)
		checkHistogram(t, "Coarsen empty", h, 5, nil)
	})
}

func TestHistogramMergeEdgeCases(t *testing.T) {
	t.Run("into empty", func(t *testing.T) {
		h := engine.NewHistogram(10, 4)
		g := engine.NewHistogram(10, 4)
		for _, x := range []time.Duration{3, 300} {
			g.Add(x)
		}
		h.Merge(g)
		checkHistogram(t, "merge into empty", h, 80, []uint64{1, 0, 0, 1})
		checkHistogram(t, "merged-from histogram", g, 80, []uint64{1, 0, 0, 1})
	})
	t.Run("empty into full", func(t *testing.T) {
		h := engine.NewHistogram(10, 4)
		h.Add(15)
		h.Merge(engine.NewHistogram(10, 4))
		checkHistogram(t, "merge empty", h, 10, []uint64{0, 1})
	})
	t.Run("finer into coarser", func(t *testing.T) {
		h := engine.NewHistogram(10, 4)
		h.Add(300) // width 80
		g := engine.NewHistogram(10, 4)
		g.Add(15)
		g.Add(35)
		h.Merge(g)
		checkHistogram(t, "finer into coarser", h, 80, []uint64{2, 0, 0, 1})
	})
	t.Run("coarser into finer", func(t *testing.T) {
		h := engine.NewHistogram(10, 4)
		h.Add(15)
		h.Add(35)
		g := engine.NewHistogram(10, 4)
		g.Add(300)
		h.Merge(g)
		checkHistogram(t, "coarser into finer", h, 80, []uint64{2, 0, 0, 1})
	})
	t.Run("union needs a wider range", func(t *testing.T) {
		h := engine.NewHistogram(10, 4)
		h.Add(35) // width 10, bin 3
		g := engine.NewHistogram(10, 4)
		g.Add(0)
		g.Add(39) // width 10, bin 3
		g.Add(40) // width 20, bin 2
		h.Merge(g)
		h.Merge(g) // merging twice counts twice
		checkHistogram(t, "wider union", h, 20, []uint64{2, 3, 2})
	})
}

// TestHistogramRandomMerge adds times in random order to three histograms and merges them in a
// random order and shape; the result must equal the histogram computed directly at the final
// width, whichever way the events were split and merged.
func TestHistogramRandomMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	widths := []time.Duration{1, 3, 1000, time.Millisecond}
	for iter := range 500 {
		w0 := widths[r.IntN(len(widths))]
		maxBins := []int{2, 3, 5, 16, 100}[r.IntN(5)]
		scale := int64(w0) << r.IntN(20) // range of times, from a few bins to far past maxBins
		n := r.IntN(400)
		ts := make([]time.Duration, n)
		for i := range ts {
			ts[i] = time.Duration(r.Int64N(scale*int64(maxBins)) - scale/8) // some negative
		}
		wantWidth, want := refHistogram(ts, w0, maxBins)
		what := fmt.Sprintf("iter %d (w0=%v maxBins=%d n=%d)", iter, w0, maxBins, n)

		direct := engine.NewHistogram(w0, maxBins)
		for _, i := range r.Perm(n) {
			direct.Add(ts[i])
		}
		checkHistogram(t, what+" direct", direct, wantWidth, want)

		// Split: most events go to three partial histograms in random order; the rest are
		// added to the merged result afterwards.
		parts := [3]*engine.Histogram{}
		for i := range parts {
			parts[i] = engine.NewHistogram(w0, maxBins)
		}
		var tail []time.Duration
		for _, i := range r.Perm(n) {
			if k := r.IntN(7); k < 6 {
				parts[k/2].Add(ts[i])
			} else {
				tail = append(tail, ts[i])
			}
		}
		p := r.Perm(3)
		a, b, c := parts[p[0]], parts[p[1]], parts[p[2]]
		if r.IntN(2) == 0 {
			a.Merge(b)
			a.Merge(c)
		} else {
			b.Merge(c)
			a.Merge(b)
		}
		for _, x := range tail {
			a.Add(x)
		}
		checkHistogram(t, what+" merged", a, wantWidth, want)
		if a.Total() != uint64(n) {
			t.Fatalf("%s: Total() = %d, want %d", what, a.Total(), n)
		}
	}
}

func TestHistogramAddDoesNotAllocateOnceGrown(t *testing.T) {
	h := engine.NewHistogram(time.Millisecond, 64)
	h.Add(time.Hour) // grows to its final range
	x := time.Duration(0)
	allocs := testing.AllocsPerRun(1000, func() {
		h.Add(x)
		x += 3 * time.Second
		if x > time.Hour {
			x = 0
		}
	})
	if allocs != 0 {
		t.Errorf("Add: %v allocs per run, want 0", allocs)
	}
}

func BenchmarkHistogramAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 10))
	ts := make([]time.Duration, 4096)
	for i := range ts {
		ts[i] = time.Duration(r.ExpFloat64() * float64(50*time.Millisecond))
	}
	h := engine.NewHistogram(time.Microsecond, 1024)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		h.Add(ts[i&(len(ts)-1)])
	}
}

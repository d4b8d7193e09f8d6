package engine

import "time"

// Histogram counts events by time in bins of equal width starting at time 0. It holds at most
// MaxBins bins: when an event falls beyond them, adjacent pairs of bins are merged and the
// width doubles. Since bins of width 2w are unions of bins of width w, the result is exact:
// it equals the histogram built directly at the final width, whatever order events and merges
// came in. Memory stays bounded however long the simulated run.
type Histogram struct {
	Width   time.Duration // current bin width
	MaxBins int           // most bins kept
	Counts  []uint64      // Counts[i] counts events in [i·Width, (i+1)·Width)
}

// NewHistogram returns an empty histogram of the given starting width and bin limit.
func NewHistogram(width time.Duration, maxBins int) *Histogram {
	h := &Histogram{}
	h.Reset(width, maxBins)
	return h
}

// Reset empties h and sets its starting width and bin limit, keeping its memory.
func (h *Histogram) Reset(width time.Duration, maxBins int) {
	if width <= 0 {
		width = 1
	}
	if maxBins < 2 {
		maxBins = 2
	}
	h.Width, h.MaxBins, h.Counts = width, maxBins, h.Counts[:0]
}

// Add counts one event at time t (negative times count in the first bin).
func (h *Histogram) Add(t time.Duration) {
	if t < 0 {
		t = 0
	}
	i := int(t / h.Width)
	for i >= h.MaxBins {
		h.halve()
		i = int(t / h.Width)
	}
	h.grow(i + 1)
	h.Counts[i]++
}

// Total returns the number of events counted.
func (h *Histogram) Total() uint64 {
	var n uint64
	for _, c := range h.Counts {
		n += c
	}
	return n
}

// Merge adds other's counts into h, coarsening whichever is finer so both share one width.
// Both must have started from the same width (so that one width is a power-of-two multiple of
// the other) and the same bin limit.
func (h *Histogram) Merge(other *Histogram) {
	if len(other.Counts) == 0 {
		return
	}
	for h.Width < other.Width {
		h.halve()
	}
	f := int(h.Width / other.Width) // other's bins per bin of h
	for i, c := range other.Counts {
		if c == 0 {
			continue
		}
		j := i / f
		for j >= h.MaxBins {
			h.halve()
			f = int(h.Width / other.Width)
			j = i / f
		}
		h.grow(j + 1)
		h.Counts[j] += c
	}
}

// Coarsen merges bins until at most n remain.
func (h *Histogram) Coarsen(n int) {
	for len(h.Counts) > n && n > 0 {
		h.halve()
	}
}

func (h *Histogram) grow(n int) {
	for len(h.Counts) < n {
		h.Counts = append(h.Counts, 0)
	}
}

func (h *Histogram) halve() {
	n := (len(h.Counts) + 1) / 2
	for i := 0; i < n; i++ {
		c := h.Counts[2*i]
		if 2*i+1 < len(h.Counts) {
			c += h.Counts[2*i+1]
		}
		h.Counts[i] = c
	}
	h.Counts = h.Counts[:n]
	h.Width *= 2
}

package ratelimit

import (
	"math"
	"math/rand/v2"

	"github.com/resilience-playground/playground/engine"
)

// traffic generates one client's arrival times, in order, below the duration.
//
//   - poisson: exponential gaps at rate λ = load·limit/window.
//   - bursty: Poisson at 4λ during on-periods of half a window every two windows, placed
//     across every other window boundary (from 0.75 to 1.25 windows, 2.75 to 3.25...): the
//     same mean rate, in bursts that straddle boundaries.
//   - boundary: the Criteo post's case, a full limit at 07:09:59 and another at 07:10:00:
//     ⌈load·limit⌉ requests evenly spread over the sixtieth of a window before a boundary and
//     as many over the sixtieth after it, at every other boundary (1, 3, 5... windows).
//   - ramp: Poisson with a rate growing linearly from 0 to 2λ over the duration.
type traffic struct {
	kind   string
	lambda float64 // mean arrivals per ns
	d, w   int64   // duration and window, ns
	rng    *rand.Rand
	u      float64 // poisson, bursty: on-time so far, ns; ramp: the integrated rate so far
	n      int64   // boundary: requests per half burst
	k      int64   // boundary: index of the next request in the schedule
	peek   int64   // the next arrival, or -1 when there is none
}

func newTraffic(s scenario) *traffic {
	w := int64(s.window)
	tr := &traffic{
		kind:   s.traffic,
		lambda: s.load * float64(s.limit) / float64(w),
		d:      int64(s.duration),
		w:      w,
		rng:    engine.NewStream(s.seed, engine.Arrivals, 0, 0),
		n:      int64(math.Ceil(s.load * float64(s.limit))),
	}
	tr.peek = tr.draw()
	return tr
}

// next returns the next arrival before end (and before the duration), or false.
func (tr *traffic) next(end int64) (int64, bool) {
	if tr.peek < 0 || tr.peek >= end {
		return 0, false
	}
	t := tr.peek
	tr.peek = tr.draw()
	return t, true
}

// draw returns the arrival after the last one, or -1 past the duration.
func (tr *traffic) draw() int64 {
	var t float64
	switch tr.kind {
	case "poisson":
		tr.u += tr.rng.ExpFloat64() / tr.lambda
		t = tr.u
	case "bursty":
		on := float64(tr.w) / 2
		tr.u += tr.rng.ExpFloat64() / (4 * tr.lambda)
		k := math.Floor(tr.u / on)
		t = k*2*float64(tr.w) + 0.75*float64(tr.w) + (tr.u - k*on)
	case "ramp":
		tr.u += tr.rng.ExpFloat64()
		t = math.Sqrt(tr.u * float64(tr.d) / tr.lambda)
	case "boundary":
		pair, j := tr.k/(2*tr.n), tr.k%(2*tr.n)
		tr.k++
		b := float64((2*pair + 1) * tr.w)
		h := float64(tr.w) / 60
		t = b - h + float64(j)*h/float64(tr.n)
	}
	if !(t < float64(tr.d)) { // NaN too
		return -1
	}
	return max(int64(t), 0)
}

// expectedArrivals is the mean number of arrivals over the duration.
func expectedArrivals(s scenario) float64 {
	d := float64(s.duration)
	if s.traffic == "boundary" {
		// Bursts of n requests over the sixtieth of a window h before each of the boundaries at
		// 1, 3, 5... windows, and n over the h after it, those before the end drawn.
		w, n := float64(s.window), math.Ceil(s.load*float64(s.limit))
		h := w / 60
		full := math.Max(0, math.Floor((d-h-w)/(2*w))+1) // pairs whose bursts end by d
		total := full * 2 * n
		if b := (2*full + 1) * w; b-h < d { // the pair cut by the end
			total += math.Min(2*n, math.Ceil((d-(b-h))/(h/n)))
		}
		return total
	}
	return s.load * float64(s.limit) / float64(s.window) * d
}

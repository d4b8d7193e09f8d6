package retrystorm

import "math"

// latencies counts the latencies of the requests that succeeded in buckets 1/16 of an octave
// (about 4.4%) wide, from latMin up: a quantile read from it is within a bucket's width.
type latencies struct {
	n      int64
	counts []int64
}

const (
	latMin      = 0.001 // ms: the first bucket's lower edge
	latPerOctav = 16
)

func (l *latencies) add(ms float64) {
	i := 0
	if ms > latMin {
		i = int(math.Log2(ms/latMin) * latPerOctav)
	}
	for len(l.counts) <= i {
		l.counts = append(l.counts, 0)
	}
	l.counts[i]++
	l.n++
}

// quantile returns the q-quantile (0 < q < 1), in ms, interpolated log-linearly within its
// bucket; 0 when nothing was counted.
func (l *latencies) quantile(q float64) float64 {
	if l.n == 0 {
		return 0
	}
	target := q * float64(l.n)
	acc := 0.0
	for i, c := range l.counts {
		if c == 0 {
			continue
		}
		if acc+float64(c) >= target {
			frac := (target - acc) / float64(c)
			return latMin * math.Exp2((float64(i)+frac)/latPerOctav)
		}
		acc += float64(c)
	}
	return latMin * math.Exp2(float64(len(l.counts))/latPerOctav)
}

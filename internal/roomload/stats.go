package roomload

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"
)

// DistOf summarizes samples by nearest-rank percentiles; it sorts them in place.
func DistOf(samples []time.Duration) Dist {
	slices.Sort(samples)
	d := Dist{N: len(samples)}
	if d.N == 0 {
		return d
	}
	d.P50, d.P99, d.Max = percentile(samples, 50), percentile(samples, 99), samples[d.N-1]
	return d
}

// percentile returns the p-th percentile of sorted by the nearest-rank method: the smallest
// sample such that at least p% of the samples are no larger.
func percentile(sorted []time.Duration, p float64) time.Duration {
	rank := int(math.Ceil(p / 100 * float64(len(sorted))))
	return sorted[min(max(rank, 1), len(sorted))-1]
}

// WriteText prints the result as a table of milliseconds.
func (r *Result) WriteText(w io.Writer) {
	fmt.Fprintf(w, "room %s: %d followers, %d changes of %s\n", r.Code, r.Followers, r.Changes, r.Scenario)
	fmt.Fprintf(w, "connecting the followers and serving them the first run took %v\n\n", r.Connect.Round(time.Millisecond))
	fmt.Fprintf(w, "time from the presenter's change to the message, ms\n")
	fmt.Fprintf(w, "%-8s %28s   %28s   %12s\n", "", "last follower, per change", "each follower, per change", "first follower")
	fmt.Fprintf(w, "%-8s %8s %8s %8s %3s   %8s %8s %8s %3s   %12s\n", "message", "p50", "p99", "max", "", "p50", "p99", "max", "", "p50")
	for k := range NumKinds {
		l, e, f := r.Last[k], r.Each[k], r.First[k]
		fmt.Fprintf(w, "%-8s %8s %8s %8s %3s   %8s %8s %8s %3s   %12s\n", k,
			ms(l.P50, l.N), ms(l.P99, l.N), ms(l.Max, l.N), "", ms(e.P50, e.N), ms(e.P99, e.N), ms(e.Max, e.N), "", ms(f.P50, f.N))
	}
	fmt.Fprintf(w, "\nsamples: %d changes for the last and first follower columns, %d follower-changes for each follower\n",
		r.Last[Done].N, r.Each[Done].N)
	for k := range NumKinds {
		if r.Missing[k] > 0 {
			fmt.Fprintf(w, "%d follower-changes ended without a %s message\n", r.Missing[k], k)
		}
	}
	if r.Busy > 0 {
		fmt.Fprintf(w, "%d busy replies (every run slot was taken)\n", r.Busy)
	}
	fmt.Fprintf(w, "the followers received %.1f kB of messages (uncompressed) during the changes, %.1f kB per follower-change\n", float64(r.Bytes)/1e3, float64(r.Bytes)/1e3/float64(max(1, r.Followers*r.Changes)))
}

// ms formats d in milliseconds, or "-" for no samples.
func ms(d time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond))
}

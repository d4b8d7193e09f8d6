package loadtest

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"
)

// Dist summarizes latency samples by nearest-rank percentiles. In JSON its times are
// milliseconds: {"n", "p50_ms", "p90_ms", "p99_ms", "max_ms", "mean_ms"}.
type Dist struct {
	N                        int
	P50, P90, P99, Max, Mean time.Duration
}

// distOf summarizes samples; it sorts them in place.
func distOf(samples []time.Duration) Dist {
	slices.Sort(samples)
	d := Dist{N: len(samples)}
	if d.N == 0 {
		return d
	}
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	d.P50, d.P90, d.P99 = percentile(samples, 50), percentile(samples, 90), percentile(samples, 99)
	d.Max, d.Mean = samples[d.N-1], sum/time.Duration(d.N)
	return d
}

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the nearest-rank method:
// the smallest sample such that at least p% of the samples are no larger. It returns 0 for no
// samples; p <= 0 gives the minimum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(rank, 1), n)-1]
}

// MarshalJSON encodes d with its times in milliseconds, to two decimals.
func (d Dist) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		N    int     `json:"n"`
		P50  float64 `json:"p50_ms"`
		P90  float64 `json:"p90_ms"`
		P99  float64 `json:"p99_ms"`
		Max  float64 `json:"max_ms"`
		Mean float64 `json:"mean_ms"`
	}{d.N, msOf(d.P50), msOf(d.P90), msOf(d.P99), msOf(d.Max), msOf(d.Mean)})
}

// msOf is x in milliseconds, rounded to two decimals.
func msOf(x time.Duration) float64 { return round(float64(x)/float64(time.Millisecond), 2) }

// ms formats x in milliseconds with one decimal, or "-" when there are no samples (n == 0).
func ms(x time.Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return strconv.FormatFloat(float64(x)/float64(time.Millisecond), 'f', 1, 64)
}

func round(x float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(x*p) / p
}

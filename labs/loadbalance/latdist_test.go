package loadbalance

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
)

// bucketWidth is the relative width of a latency bucket, 2^(1/16) − 1 (about 4.4%): the most a
// percentile from the histogram can be off, since it is interpolated within the bucket that
// holds the exact one.
var bucketWidth = math.Exp2(1.0/latencyBuckets) - 1

// TestLatencySketchBound: whatever the latencies — a few, many, all equal, spread over
// decades — a percentile from the histogram lies within one bucket's width (about 4.4%) of the
// exact percentile of the same requests.
func TestLatencySketchBound(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	worst := 0.0
	for trial := range 2000 {
		var w world
		n := 1 + rng.IntN(2000)
		spread := []float64{0, 0.05, 1, 4}[trial%4] // decades: 0 is every request the same
		base := 1e6 * math.Pow(10, 3*rng.Float64())
		all := make([]float64, n)
		for i := range all {
			d := time.Duration(base * math.Pow(10, spread*rng.Float64()))
			w.latency[latencyBucket(d)]++
			w.succeeded++
			all[i] = float64(d) / 1e6
		}
		slices.Sort(all)
		for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
			exact := all[int(math.Ceil(q*float64(n)))-1]
			err := math.Abs(w.Latency(q)/exact - 1)
			worst = max(worst, err)
			if err > bucketWidth {
				t.Fatalf("%d requests over %g decades: p%g %.4f ms, exact %.4f ms: off by %.2f%%, more than a bucket (%.2f%%)",
					n, spread, 100*q, w.Latency(q), exact, 100*err, 100*bucketWidth)
			}
		}
	}
	t.Logf("worst error %.2f%% (bound %.2f%%)", 100*worst, 100*bucketWidth)
}

// closedForm is a scenario whose latency has a closed form: every client has a backend of its
// own (deterministic subsets of one), machines all of speed 1, no antagonists, and 5% load on
// eight cores, so that a request hardly ever waits for a core (Erlang C: a wait in about one
// request in a million). Its latency is then its CPU cost, log-uniform between c and 100c with
// mean 400 ms: the q-quantile is c·100^q, c = 0.4 s · ln 100 / 99.
const closedForm = "clients=100&backends=100&subset=1&subsetting=deterministic&rate=1&duration=10m&machine_spread=1&antagonists=0&cost_spread=100&policy=round_robin"

// TestLatencyClosedForm: on closedForm (60,000 requests) p50 and p99 match c·100^q within 1.5%
// (sampling error about 0.3%, the histogram's within a bucket about 0.5%), the latency chart's
// distribution matches ln(x/c)/ln 100 within a percentage point at every point, and the time
// spent queueing is nil.
func TestLatencyClosedForm(t *testing.T) {
	r := mustRun(t, closedForm)
	ps := policies(t, r)["round_robin"]
	c := meanCost.Seconds() * 1e3 * math.Log(100) / 99 // ms
	for _, x := range []struct {
		q   float64
		got float64
	}{{0.5, ps.LatencyP50MS}, {0.99, ps.LatencyP99MS}} {
		want := c * math.Pow(100, x.q)
		t.Logf("p%g: %.2f ms, closed form %.2f ms (%+.2f%%)", 100*x.q, x.got, want, 100*(x.got/want-1))
		if math.Abs(x.got/want-1) > 0.015 {
			t.Errorf("p%g = %.2f ms, closed form %.2f ms: want within 1.5%%", 100*x.q, x.got, want)
		}
	}
	if ps.QueuePct > 0.1 {
		t.Errorf("queueing share %.3f%% at 5%% load on 8 cores, want about 0", ps.QueuePct)
	}
	cdf := seriesNamed(t, r, "latency round_robin")
	if cdf.Chart != "latency" || len(cdf.X) < 16*6 {
		t.Fatalf("latency distribution: chart %q, %d points; want the latency chart, 1/16 octave apart over 6.6 octaves", cdf.Chart, len(cdf.X))
	}
	worst := 0.0
	for i, x := range cdf.X {
		want := 100 * math.Min(1, math.Max(0, math.Log(x/c)/math.Log(100)))
		worst = max(worst, math.Abs(cdf.Y[i]-want))
		if math.Abs(cdf.Y[i]-want) > 1 {
			t.Errorf("latency distribution at %.3f ms: %.3f%%, closed form %.3f%%", x, cdf.Y[i], want)
		}
	}
	t.Logf("distribution: %d points, worst %.3f percentage points from the closed form", len(cdf.X), worst)
}

// TestLatencyDefault: on the default scenario no policy's p50 or p99 is a bucket edge, each
// lies where its latency distribution crosses 50% and 99% (the table and the chart agree), the
// distributions end at 100%, and some of every policy's latency is queueing (70% load).
func TestLatencyDefault(t *testing.T) {
	heavy.Test(t)
	r := mustRun(t, "")
	for name, ps := range policies(t, r) {
		cdf := seriesNamed(t, r, "latency "+name)
		for _, x := range []struct {
			q   float64
			got float64
		}{{50, ps.LatencyP50MS}, {99, ps.LatencyP99MS}} {
			b := math.Log2(x.got*1e6) * latencyBuckets
			if math.Abs(b-math.Round(b)) < 1e-6 {
				t.Errorf("%s: p%g = %v ms is a bucket edge (2^(%g/16) ns)", name, x.q, x.got, math.Round(b))
			}
			i := slices.IndexFunc(cdf.Y, func(y float64) bool { return y >= x.q })
			if i < 1 || x.got < cdf.X[i-1]*(1-1e-4) || x.got > cdf.X[i]*(1+1e-4) {
				t.Errorf("%s: p%g = %.3f ms, but the distribution crosses %g%% at point %d of %v", name, x.q, x.got, x.q, i, cdf.X)
			}
		}
		if last := cdf.Y[len(cdf.Y)-1]; last != 100 {
			t.Errorf("%s: the latency distribution ends at %v%%, want 100%%", name, last)
		}
		if ps.QueuePct <= 0 || ps.QueuePct >= 100 {
			t.Errorf("%s: queueing share %v%%, want some", name, ps.QueuePct)
		}
		t.Logf("%s: p50 %.2f ms, p99 %.2f ms, %.2f%% queueing", name, ps.LatencyP50MS, ps.LatencyP99MS, ps.QueuePct)
	}
}

func seriesNamed(tb testing.TB, r *lab.Result, name string) lab.Series {
	tb.Helper()
	for _, s := range r.Series {
		if s.Name == name {
			return s
		}
	}
	tb.Fatalf("no series %q", name)
	return lab.Series{}
}

package loadbalance

import (
	"math"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
)

// binomialSpread is the relative spread (standard deviation over mean) of connections per
// backend that random subsetting gives: each client includes a given backend with
// probability p = subset/backends, independently of the other clients, so a backend's
// connections are Binomial(clients, p), of relative spread √((1−p)/(clients·p)).
func binomialSpread(clients, backends, subset int) float64 {
	p := float64(subset) / float64(backends)
	return math.Sqrt((1 - p) / (float64(clients) * p))
}

// TestSweepFollowsBinomial runs the subset-size sweep of the chapter's sizes (300 clients, 300
// backends) and checks the connection spread against the binomial model: random
// subsetting's relative spread (sd/mean) is the model's within noise at every size, and so
// falls with the size; deterministic subsetting's is flat, every backend within one
// connection of the mean.
func TestSweepFollowsBinomial(t *testing.T) {
	heavy.Test(t)
	const q = "sweep=10:290:40&duration=2s&policy=round_robin"
	r := mustRunOn(t, Lab(), q)
	sweep, ok := r.Summary["subset_sweep"].(map[string][]sweepPoint)
	if !ok {
		t.Fatalf("summary.subset_sweep is %T", r.Summary["subset_sweep"])
	}
	random, det := sweep["random"], sweep["deterministic"]
	if sizes := []int{10, 50, 90, 130, 170, 210, 250, 290}; len(random) != len(sizes) || len(det) != len(sizes) {
		t.Fatalf("sweep has %d random and %d deterministic points, want %d", len(random), len(det), len(sizes))
	}
	for i, p := range random {
		want := binomialSpread(300, 300, p.Subset)
		// The sd of 300 backends' counts is known to some 1/√(2·300) ≈ 4%; allow four of that.
		if got := p.ConnSDOverMean; math.Abs(got/want-1) > 0.16 {
			t.Errorf("random, subset %d: sd/mean %.4f, binomial model %.4f", p.Subset, got, want)
		}
		if i > 0 && p.ConnMaxOverMean >= random[i-1].ConnMaxOverMean {
			t.Errorf("random: max/mean %.3f at subset %d, not below %.3f at %d", p.ConnMaxOverMean, p.Subset, random[i-1].ConnMaxOverMean, random[i-1].Subset)
		}
		t.Logf("random subset %d: sd/mean %.4f (binomial %.4f), max/mean %.3f, cpu max/mean %.3f",
			p.Subset, p.ConnSDOverMean, want, p.ConnMaxOverMean, p.CPUMaxOverMean)
	}
	for _, p := range det {
		// Every backend holds 300·k/300 = k connections, within one.
		mean := float64(p.Subset)
		if max := p.ConnMaxOverMean * mean; max > mean+1+1e-9 {
			t.Errorf("deterministic, subset %d: max %.1f connections, mean %.0f", p.Subset, max, mean)
		}
		if p.ConnSDOverMean*mean > 1 {
			t.Errorf("deterministic, subset %d: sd %.2f connections", p.Subset, p.ConnSDOverMean*mean)
		}
		t.Logf("deterministic subset %d: max/mean %.3f, cpu max/mean %.3f", p.Subset, p.ConnMaxOverMean, p.CPUMaxOverMean)
	}
	// The charts carry the same points, and the CPU spread is measured at every size.
	for _, s := range r.Series {
		if s.Chart == "sweep_cpu" && s.Label == "random" {
			if !slices.Equal(s.X, []float64{10, 50, 90, 130, 170, 210, 250, 290}) {
				t.Errorf("cpu sweep of random at %v", s.X)
			}
			for i, y := range s.Y {
				if y != random[i].CPUMaxOverMean || y < 1 {
					t.Errorf("cpu sweep of random at %v: %v, summary %v", s.X[i], y, random[i].CPUMaxOverMean)
				}
			}
		}
	}
}

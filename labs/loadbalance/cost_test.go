package loadbalance

import (
	"math"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
)

// costScenarios span the parameter space: every slider's extremes and the combinations that
// change the work per request (scanning pickers over large subsets, overload and errors,
// events, connections that outgrow the caches, subsetting and churn at the sizes where every
// algorithm is compared).
var costScenarios = []string{
	"",
	"policy=round_robin,least_loaded,weighted,random,p2c&duration=20s",
	"subset=200&policy=least_loaded&duration=10s",
	"subsetting=aperture&clients=30&backends=300&subset=5&duration=20s",
	"subsetting=deterministic&clients=1000&backends=1000&subset=1000&rate=0.1&duration=1s",
	"subsetting=rendezvous&clients=1000&backends=1000&subset=10&rate=0.1&duration=1s",
	"subsetting=rendezvous&clients=3000&backends=3000&subset=1&rate=0.1&duration=1s",
	"clients=40&rate=50&duration=10s&cost_spread=1",
	"event=abrupt_stop&event_share=0.5&duration=30s&clients=100",
	"event=lame_duck&event_share=0.01&duration=10m&clients=30&rate=1",
	"failing=20&backends=100&clients=50&policy=least_loaded,weighted&duration=20s",
	"failing=100&backends=100&clients=50&policy=least_loaded,p2c&count_errors=true&duration=10s",
	"rate=100&clients=20&backends=5&subset=2&max_active=3&duration=10s&policy=round_robin", // overloaded
	"rate=100&clients=300&backends=30&duration=5s&max_active=1000",                         // overloaded, queues full
	"clients=1&backends=1&subset=1&duration=1s&rate=0.1",
	"clients=1&backends=3000&subset=1000&duration=10m&rate=100&policy=least_loaded,weighted",
	"clients=3000&backends=1&subset=1&duration=1s&rate=0.1",
	"clients=3000&backends=3000&subset=30&rate=0.1&duration=10m&policy=p2c",
	"clients=3000&backends=300&subset=100&rate=1&duration=20s&policy=weighted",
	"cost_spread=1000&machine_spread=4&client_spread=100&antagonists=1&duration=1m",
	"cost_spread=1&machine_spread=1&antagonists=0&duration=1m",
	"sweep=20:300:70&duration=20s",
	"load_sweep=50:100:10&duration=20s",
	"load_sweep=1:200:7&clients=50&backends=50&subset=5&duration=10s&policy=round_robin,weighted",
	"subsetting=aperture&policy=weighted&clients=1000&backends=1000&rate=0.2&duration=10s&sweep=10:1000:99",
}

// TestCostWithinTwice compares the cost estimate with the work runs really do (counted as they
// go: World.Work, subsetsWork, compareWork): within 2× either way across the parameter space.
func TestCostWithinTwice(t *testing.T) {
	t.Parallel()  // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t) // the estimate's arithmetic: nothing for the race detector
	scenarios := costScenarios
	worst := 1.0
	for _, q := range scenarios {
		v, err := params.ParseQuery(q)
		if err != nil {
			t.Fatal(err)
		}
		rn := newRunner()
		mustRunOn(t, rn.lab(), q)
		est, got := float64(costOf(v)), float64(rn.work.Load())
		ratio := max(est, 1000) / max(got, 1000) // a thousand units are nothing
		worst = math.Max(worst, math.Max(ratio, 1/ratio))
		t.Logf("%q: estimated %.0f, counted %.0f (×%.2f)", q, est, got, ratio)
		if ratio > 2 || ratio < 0.5 {
			t.Errorf("%q: estimated %.0f work, counted %.0f", q, est, got)
		}
	}
	t.Logf("worst estimate off by ×%.2f", worst)
}

package loadbalance

import (
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
)

// TestOverload: the lab says when a scenario is overloaded, and the runs bear it out: at 150%
// of capacity every policy fails requests; at the default (about 50%) none does, and the
// summary says it is within capacity.
func TestOverload(t *testing.T) {
	heavy.Test(t)
	for _, c := range []struct {
		q          string
		pct        float64
		overloaded bool
	}{
		{"duration=10s&sweep=off", 50, false},
		{"rate=30&duration=10s&sweep=off&policy=round_robin,least_loaded,weighted,random,p2c", 150, true},
	} {
		r := mustRun(t, c.q)
		loads, ok := r.Summary["load"].([]loadRow)
		if !ok || len(loads) != 1 {
			t.Fatalf("%s: summary.load is %#v", c.q, r.Summary["load"])
		}
		l := loads[0]
		if l.OfferedPct < c.pct*0.995 || l.OfferedPct > c.pct*1.005 || l.Overloaded != c.overloaded || r.Summary["overloaded"] != c.overloaded {
			t.Errorf("%s: offered %.1f%%, overloaded %v (summary %v), want %.0f%%, %v", c.q, l.OfferedPct, l.Overloaded, r.Summary["overloaded"], c.pct, c.overloaded)
		}
		if word := map[bool]string{true: "Overloaded", false: "Within capacity"}[c.overloaded]; !strings.HasPrefix(l.Verdict, word) {
			t.Errorf("%s: verdict %q, want %s", c.q, l.Verdict, word)
		}
		for name, p := range policies(t, r) {
			t.Logf("%s: %s: %.1f%% errors (%d shed, %d rejected)", c.q, name, p.ErrorPct, p.Shed, p.Rejected)
			if failed := p.Shed + p.Rejected; c.overloaded && failed == 0 || !c.overloaded && p.Errors > 0 {
				t.Errorf("%s: %s: %d errors (%d shed or rejected), overloaded %v", c.q, name, p.Errors, failed, c.overloaded)
			}
		}
	}
}

package api_test

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestSwitchLiveness measures, for each lab at its default and at its heaviest admitted
// scenario (the load-balancing URL too), how soon a new value sent on a stream while
// the old value's run is in flight is started (switch-to-start) and has a picture with every
// series (switch-to-every-series: its first frame with a refinement, which holds every series
// — each lab's TestCoarseFirst). The new value is the old one with another seed, which
// neither the hub's cache nor a lab's memo holds. It only runs with PLAYGROUND_MEASURE=1 and
// prints one table:
//
//	PLAYGROUND_MEASURE=1 go test ./api -run TestSwitchLiveness -count=1 -v
func TestSwitchLiveness(t *testing.T) {
	if os.Getenv("PLAYGROUND_MEASURE") == "" {
		t.Skip("a measurement: set PLAYGROUND_MEASURE=1 to run it")
	}
	srv := mustOpenServed(t)
	type position struct {
		lab, name string
		v         param.Values
	}
	var positions []position
	for _, l := range srv.Labs.All() {
		if l.Name == "gated" || l.Name == "free" || l.Name == "prog" {
			continue
		}
		positions = append(positions, position{l.Name, "default", l.Params.Defaults()})
		if v, ok := heaviestAtSeeds(t, l, 100, 106); ok {
			positions = append(positions, position{l.Name, "heaviest", v})
		}
		if l.Name == "loadbalance" {
			v, err := l.Parse("clients=901&backends=901&subset=301&rate=0.8&duration=3m1s")
			if err != nil {
				t.Fatal(err)
			}
			positions = append(positions, position{l.Name, "issue 17", v})
		}
	}
	var rows []string
	for _, p := range positions {
		const moves = 3
		var starts, pictures []float64
		for i := range moves {
			old, err := p.v.With("seed", fmt.Sprint(100+2*i))
			if err != nil {
				t.Fatal(err)
			}
			next, _ := old.With("seed", fmt.Sprint(101+2*i))
			st := srv.MustDial(t, p.lab, nil)
			st.Send(1, old.Encode())
			for r := st.MustNext(); r.Type != "frame"; r = st.MustNext() { // the old run is in flight
				if r.Type == "error" || r.Type == "done" {
					t.Fatalf("%s %s: %s %s", p.lab, p.name, r.Type, r.Error)
				}
			}
			t0 := time.Now()
			st.Send(2, next.Encode())
			var start, picture time.Duration
			for picture == 0 {
				r := st.MustNext()
				switch {
				case r.ID != 2:
				case r.Type == "busy" || r.Type == "error":
					t.Fatalf("%s %s: the new value got %s %s", p.lab, p.name, r.Type, r.Error)
				case r.Type == "start":
					start = time.Since(t0)
				case r.Type == "frame" && r.Refine != nil, r.Type == "done":
					picture = time.Since(t0)
				}
			}
			st.C.CloseNow()
			starts, pictures = append(starts, ms(start)), append(pictures, ms(picture))
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s |", p.lab, p.name, spread(starts), spread(pictures)))
		t.Logf("%s %s: %s?%s", p.lab, p.name, p.lab, p.v.Encode())
	}
	load, _ := os.ReadFile("/proc/loadavg")
	t.Logf("switch while the old value's run is in flight (%d moves each; min–max ms); loadavg %s\n| lab | position | switch-to-start | switch-to-every-series |\n|---|---|---|---|\n%s",
		3, strings.TrimSpace(string(load)), strings.Join(rows, "\n"))
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func spread(xs []float64) string {
	lo, hi := xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return fmt.Sprintf("%.0f–%.0f", lo, hi)
}

// heaviestAtSeeds is the heaviest scenario of l admitted (heaviestAdmitted) at every seed
// from lo up to hi, exclusive: a lab whose estimate depends on the seed (the rate limiter's
// pilots) may refuse at one seed the heaviest corner of another, so the corner is looked for
// under a budget lowered by tenths until it fits at all of them.
func heaviestAtSeeds(tb testing.TB, l *lab.Lab, lo, hi int) (param.Values, bool) {
	tb.Helper()
	for budget := int64(api.DefaultBudget); budget > api.DefaultBudget/4; budget = budget * 9 / 10 {
		v, ok := heaviestAdmitted(tb, l, budget)
		if !ok {
			return v, false
		}
		fits := true
		for seed := lo; seed < hi && fits; seed++ {
			w, err := v.With("seed", fmt.Sprint(seed))
			fits = err == nil && l.CheckBudget(w, api.DefaultBudget) == nil
		}
		if fits {
			return v, true
		}
	}
	return param.Values{}, false
}

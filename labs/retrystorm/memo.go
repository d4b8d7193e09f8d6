package retrystorm

import (
	"maps"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// Each policy's simulation depends on the scenario but not on the other policies beside it
// (they all see the same arrivals and draws, from streams of their own), nor on the sweeps. A
// lab value therefore keeps every finished simulation — a policy of a scenario, or a point of
// a sweep, which is a scenario too — under the canonical URL of the scenario it simulates,
// and a run that finds one there replays it: ticking a policy on, or a sweep whose points
// were simulated before, simulates only what is new.

// memoSize is how many finished simulations a lab keeps: some 8 kB each (120 sampling
// intervals at most).
const memoSize = 2048

// memoKey is the key of policy p's simulation of scenario v with the parameters of set
// changed (a sweep's point): the scenario with that policy alone and without its sweeps
// (lab.MemoKey).
func memoKey(v param.Values, p string, set map[string]string) string {
	m := map[string]string{"policies": p}
	maps.Copy(m, set)
	return lab.MemoKey(v, m, "sweep", "client_sweep")
}

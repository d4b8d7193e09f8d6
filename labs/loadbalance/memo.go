package loadbalance

import (
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// memoKey is the key of one policy's simulation in scenario v: the scenario with that policy
// alone (lab.MemoKey). Policies are independent given the rest of the scenario (each sees the
// same environment and requests), so a simulation done for one scenario serves any other that
// shares it: ticking a policy on or off simulates only the policies not seen before.
func memoKey(v param.Values, policy string) string {
	return lab.MemoKey(v, map[string]string{"policy": policy}, "sweep")
}

// outcome is what a run shows of one policy: every sampling interval, each backend's
// utilisation and the summary. From a finished simulation it is final.
type outcome struct {
	samples []sample
	cpu     []float64
	summary policySummary
}

// outcomeOf is w's outcome so far.
func outcomeOf(w *world) outcome {
	cpu := w.cpuSoFar()
	return outcome{samples: w.Samples, cpu: cpu, summary: w.summary(cpu)}
}

// memoSize is how many policy outcomes a lab keeps: each is at most some 40 kB.
const memoSize = 256

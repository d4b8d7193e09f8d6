package loadbalance

import (
	"github.com/resilience-playground/playground/param"
)

// memoKey is the key of one policy's simulation in scenario v: the scenario with that policy
// alone (lab.MemoKey). Policies are independent given the rest of the scenario (each sees the
// same environment and requests), so a simulation done for one scenario serves any other that
// shares it: ticking a policy on or off simulates only the policies not seen before.
func memoKey(v param.Values, policy string) string {
	return partKey(v, map[string]string{"policy": policy})
}

// outcome is what a run shows of one policy: every sampling interval, each backend's
// utilisation, the summary and the latency distribution. From a finished simulation it is final.
type outcome struct {
	samples    []sample
	cpu        []float64
	summary    policySummary
	cdfX, cdfY []float64 // world.latencyCDF; nil in a sweep's outcome before the memo keeps it
}

// outcomeOf is w's outcome so far, without the latency distribution (the sweep draws none).
func outcomeOf(w *world) outcome {
	cpu := w.cpuSoFar()
	return outcome{samples: w.Samples, cpu: cpu, summary: w.summary(cpu)}
}

// fullOutcome is w's outcome so far with its latency distribution, as a policy's chart shows it
// and the memo keeps it; it counts the work of the distribution (cdfWork).
func (r *runner) fullOutcome(w *world) outcome {
	o := outcomeOf(w)
	o.cdfX, o.cdfY = w.latencyCDF()
	r.work.Add(cdfWork)
	return o
}

// memoSize is how many policy outcomes a lab keeps: each is at most some 40 kB.
const memoSize = 256

// part is one simulation a sweep shows: simulated by the run for the sweep (world, memoised
// under key once final), from the memo, or a policy's own run.
type part struct {
	key   string
	world *world
	memo  *outcome
	own   *policyRun
}

// outcome is p's outcome so far (final numbers from the memo and memoised policies). A world's
// final outcome goes into the memo with its latency distribution: the memo serves it as a
// policy's outcome too.
func (r *runner) outcome(p part, final bool) outcome {
	switch {
	case p.world != nil && final:
		o := r.fullOutcome(p.world)
		r.memo.Put(p.key, o)
		return o
	case p.world != nil:
		return outcomeOf(p.world)
	case p.memo != nil:
		return *p.memo
	case p.own.world != nil:
		return outcomeOf(p.own.world)
	}
	return *p.own.memo
}

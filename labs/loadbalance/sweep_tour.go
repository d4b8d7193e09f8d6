package loadbalance

import "github.com/resilience-playground/playground/lab"

// sweepStep is the subsetting tour's step on the subset-size sweep: the chapter's argument that
// random subsets must be large before the connections even out, as a curve.
var sweepStep = lab.Step{
	Title: "How big must a random subset be?",
	URL:   "/loadbalance?policy=round_robin&duration=20s&sweep=30:300:45",
	Focus: "sweep_conn", Controls: []string{"sweep", "subsetting"},
	Question: "How large must random subsets grow before every backend has about the same number of connections?",
	Gives:    []string{"need to be large", "large before", "1.53×"},
	Explanation: "The sweep charts (Advanced: Sweep of subset size) measure the spread at each subset size from 30 to 300 backends, the chosen 30 marked. " +
		"Under random subsetting the busiest backend holds 1.53× the mean's connections at subsets of 30, still 1.22× at 120 " +
		"and 1.10× at 210, 70% of the backends; deterministic subsetting holds 1.00× at every size. " +
		"The next chart, CPU spread vs subset size, measures what the spread costs under round robin over 20 s.",
	Answer: &lab.Answer{Unit: "backends in a subset, for the busiest within 10% of the mean", Min: 30, Max: 300, Step: 45, Truth: "210"},
}

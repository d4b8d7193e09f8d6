package loadbalance

import "github.com/resilience-playground/playground/lab"

// tours walk through "Load Balancing in the Datacenter", chapter 20 of Site Reliability
// Engineering (Beyer, Jones, Petoff and Murphy, eds.).
var tours = []lab.Tour{{
	Name:  "subsetting",
	Title: "Subsetting: who talks to whom",
	Steps: []lab.Step{{
		Title: "Random subsets of 30%",
		URL:   "/loadbalance?subset=90",
		Focus: "connections", Controls: []string{"subset", "subsetting"},
		Question: "300 clients each pick 90 of 300 backends at random. How uneven will the connections per backend be?",
		Gives:    []string{"far more connections", "far from equal", "from 66 to 116"},
		Explanation: "Each client shuffles the backends and keeps the first 90. The connections per backend " +
			"are far from equal: from 66 to 116 around a mean of 90.",
		Answer: &lab.Answer{Unit: "connections to the busiest backend", Min: 90, Max: 190, Step: 1, Truth: "116"},
	}, {
		Title: "Random subsets of 10%",
		URL:   "/loadbalance",
		Focus: "connections", Controls: []string{"subset", "subsetting"},
		Text: "With smaller subsets (30 of 300) the spread relative to the mean grows: from 14 to 46 " +
			"connections around a mean of 30, so some backends carry half again the mean's connections " +
			"and others half of it. This is the chapter's case against random subsetting.",
	}, {
		Title: "Deterministic subsetting",
		URL:   "/loadbalance?subsetting=deterministic",
		Focus: "connections", Controls: []string{"subsetting"},
		Text: "Clients are grouped into rounds; each round shuffles the backends once and deals them " +
			"out in turn. Every backend gets the same number of connections, here exactly 30 (within " +
			"one when the sizes do not divide evenly).",
	}, {
		Title: "The chapter's small example",
		URL:   "/loadbalance?clients=10&backends=12&subset=3&subsetting=deterministic",
		Focus: "rounds", Controls: []string{"clients", "backends", "subset"},
		Text: "Twelve backends, subsets of three, ten clients: the rounds table lists each round's " +
			"shuffle and the subset each client takes from it, and every backend gets 2 or 3 connections.",
	}, sweepStep},
}, {
	Name:  "policies",
	Title: "Policies: spreading the load",
	Steps: []lab.Step{{
		Title: "Round robin's spread",
		URL:   "/loadbalance?clients=50&backends=50&subset=5&subsetting=deterministic&policy=round_robin&cost_spread=1000&machine_spread=2&duration=30s",
		Focus: "policies", Controls: []string{"policy", "cost_spread", "machine_spread"},
		Question: "Simple round robin sends every backend the same number of requests. Will the backends be equally busy?",
		Gives:    []string{"cpu spread", "works 2.80 times", "as hard as the idlest"},
		Explanation: "No: queries differ in cost and machines in speed, so the busiest backend works 2.80 times as hard as " +
			"the idlest (the chapter saw up to twice), and 40.3% of the CPU is wasted waiting for it.",
		Answer: &lab.Answer{Unit: "times the idlest backend's CPU, for the busiest", Min: 1, Max: 3, Step: 0.01, Truth: "2.80"},
	}, {
		Title: "Least-loaded and weighted round robin",
		URL:   "/loadbalance?clients=50&backends=50&subset=5&subsetting=deterministic&cost_spread=1000&machine_spread=2&duration=30s",
		Focus: "policies", Controls: []string{"policy"},
		Text: "Least-loaded round robin picks the backend with the fewest requests in flight; weighted " +
			"round robin also uses what backends report about their utilisation. Both narrow the " +
			"spread of round robin's 2.80×: least-loaded to 1.80×, weighted round robin the most, to 1.35×.",
	}, {
		Title: "A backend that fails fast",
		URL:   "/loadbalance?clients=50&backends=50&subset=5&subsetting=deterministic&duration=30s&failing=1",
		Focus: "policies", Controls: []string{"failing", "count_errors", "policy"},
		Question: "One backend answers every request at once with an error. Which policy sends it the most requests?",
		Gives:    []string{"sinkhole", "sees the failing backend"},
		Explanation: "Least-loaded round robin sees the failing backend with no requests in flight and sends it 559 requests where round robin " +
			"sends 303: a sinkhole. Weighted round robin counts the errors it reports against it and sends it 45. Tick “Count errors as " +
			"active” (Advanced) and least-loaded sends it 124. It shows here because each client has about 4 requests in flight over " +
			"subsets of 5; at the default subsets of 30 most backends look idle to a client anyway.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "round_robin", Label: "Round robin"}, {ID: "least_loaded", Label: "Least-loaded round robin"}, {ID: "weighted", Label: "Weighted round robin"}}, Truth: "least_loaded"},
	}, {
		Title: "Lame duck or abrupt stop",
		URL:   "/loadbalance?clients=100&backends=100&subset=10&subsetting=deterministic&duration=40s&event=lame_duck&event_share=0.2",
		Focus: "policies", Controls: []string{"event", "event_share"},
		Text: "A fifth of the backends are stopped a third of the way in. In lame-duck state they " +
			"first tell clients to stop sending new requests and finish what they have, so no request " +
			"fails; switch the event to an abrupt stop to see the errors that saves: 71 under round robin.",
	}},
}}

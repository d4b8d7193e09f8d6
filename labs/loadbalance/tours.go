package loadbalance

import "github.com/resilience-playground/playground/lab"

// tours walk through "Load Balancing in the Datacenter", chapter 20 of Site Reliability
// Engineering (Beyer, Jones, Petoff and Murphy, eds.).
var tours = []lab.Tour{{
	Name:  "subsetting",
	Title: "Subsetting: who talks to whom",
	Steps: []lab.Step{{
		Title:   "Random subsets of 30%",
		URL:     "/loadbalance?subset=90",
		Predict: "300 clients each pick 90 of 300 backends at random. How uneven will the connections per backend be?",
		Text: "Each client shuffles the backends and keeps the first 90. The connections per backend " +
			"are far from equal: the busiest backend has well over the mean, the idlest well under.",
	}, {
		Title: "Random subsets of 10%",
		URL:   "/loadbalance",
		Text: "With smaller subsets (30 of 300) the spread relative to the mean grows: some backends " +
			"carry about half again the mean's connections, others half of it. This is the chapter's " +
			"case against random subsetting.",
	}, {
		Title: "Deterministic subsetting",
		URL:   "/loadbalance?subsetting=deterministic",
		Text: "Clients are grouped into rounds; each round shuffles the backends once and deals them " +
			"out in turn. Every backend gets the same number of connections (within one when the " +
			"sizes do not divide evenly).",
	}, {
		Title: "The chapter's small example",
		URL:   "/loadbalance?clients=10&backends=12&subset=3&subsetting=deterministic",
		Text: "Twelve backends, subsets of three, ten clients: the rounds table lists each round's " +
			"shuffle and the subset each client takes from it.",
	}},
}, {
	Name:  "policies",
	Title: "Policies: spreading the load",
	Steps: []lab.Step{{
		Title:   "Round robin's spread",
		URL:     "/loadbalance?clients=50&backends=50&subset=5&subsetting=deterministic&policy=round_robin&cost_spread=1000&machine_spread=2&duration=30s",
		Predict: "Every backend gets the same number of requests. Will they be equally busy?",
		Text: "Simple round robin sends each backend the same number of requests, but queries differ " +
			"in cost and machines in speed, so the busiest backend works about twice as hard as " +
			"the idlest, and capacity is wasted waiting for it.",
	}, {
		Title: "Least-loaded and weighted round robin",
		URL:   "/loadbalance?clients=50&backends=50&subset=5&subsetting=deterministic&cost_spread=1000&machine_spread=2&duration=30s",
		Text: "Least-loaded round robin picks the backend with the fewest requests in flight; weighted " +
			"round robin also uses what backends report about their utilisation. Both narrow the " +
			"spread, weighted round robin the most.",
	}, {
		Title: "Lame duck or abrupt stop",
		URL:   "/loadbalance?clients=100&backends=100&subset=10&subsetting=deterministic&duration=40s&event=lame_duck&event_share=0.2",
		Text: "A fifth of the backends are stopped a third of the way in. In lame-duck state they " +
			"first tell clients to stop sending new requests and finish what they have, so no request " +
			"fails; switch the event to an abrupt stop to see the errors that saves.",
	}},
}}

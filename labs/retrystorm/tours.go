package retrystorm

import "github.com/resilience-playground/playground/lab"

// tours walk through Marc Brooker's "Fixing retries with token buckets and circuit breakers"
// and his simulators, the SRE book's chapters 21 and 22, and metastable failures.
var tours = []lab.Tour{{
	Name:  "storm",
	Title: "A retry storm outlives its outage",
	Steps: []lab.Step{{
		Title:    "An outage, with and without retries",
		URL:      "/retrystorm?policies=none,retries",
		Focus:    "policies",
		Controls: []string{"policies", "retries"},
		Question: "A dependency fails every call for 10 s. The clients send 600 requests a second to a service that completes 1,000; " +
			"one set of clients never retries, the other retries a failed call up to 3 times. When the outage ends, does the service come back?",
		Explanation: "Without retries it does, within a second of the outage's end. With retries it never does: the failing calls still took the service's time, " +
			"the retries pushed the calls past its capacity, the queue's wait passed the timeout, and from then on every attempt times out " +
			"and is retried. At the end the calls are still 245% of the capacity, with 67,077 calls queued at the worst: a metastable failure, " +
			"sustained by the retries alone.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "both", Label: "Yes, for both"}, {ID: "without", Label: "Only for the clients that never retry"}, {ID: "with", Label: "Only for the clients that retry"}, {ID: "neither", Label: "No, for neither"}}, Truth: "without"},
		Gives:  []string{"never does", "every attempt times out"},
	}, {
		Title:    "Work done for no one",
		URL:      "/retrystorm?policies=none,retries",
		Focus:    "policies",
		Controls: []string{"timeout", "capacity"},
		Text: "Once the queue's wait exceeds the 1-s timeout, the service works for no one: 85.3% of its work goes to calls " +
			"whose callers have already given up. Each request makes 3.50 calls on average, where without retries it makes 1.00: " +
			"the retries alone keep the calls above what the service can complete.",
	}, {
		Title:    "Policies that limit retries",
		URL:      "/retrystorm",
		Focus:    "policies",
		Controls: []string{"policies"},
		Question: "Three policies that limit retries meet the same outage: Brooker's retry token bucket, a retry budget as in Finagle and Linkerd, " +
			"and a circuit breaker with resilience4j's defaults. Which of them bring the service back once the outage ends?",
		Explanation: "The bucket and the budget: they keep retries to a few percent of the requests (1.02 and 1.06 calls per request), " +
			"and the service recovers within a second of the outage's end, as without retries. The circuit breaker opens during the outage and refuses " +
			"every request for its 60-s wait: at the end of the run it is still refusing most of them, and as few requests succeed as with unlimited retries (16.7%).",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "all", Label: "All three"}, {ID: "bucket_budget", Label: "The bucket and the budget"}, {ID: "circuit", Label: "Only the circuit breaker"}, {ID: "none", Label: "None of them"}}, Truth: "bucket_budget"},
		Gives:  []string{"the bucket and the budget"},
	}, {
		Title:    "Breakers and throttling take their time",
		URL:      "/retrystorm?policies=retries,budget,circuit,throttle&duration=2m",
		Focus:    "policies",
		Controls: []string{"policies", "duration"},
		Text: "Over two minutes the circuit breaker recovers 52 s after the outage, once its wait and its trial calls are over; " +
			"the SRE book's client-side throttling, which remembers two minutes of requests, recovers 70 s after; the budget 1 s after.",
	}, {
		Title:    "Shedding load",
		URL:      "/retrystorm?policies=retries&shed=limit",
		Focus:    "policies",
		Controls: []string{"shed", "queue_limit"},
		Text: "A service that refuses calls beyond 1,000 in its queue keeps its wait under the timeout: the refused calls fail at once " +
			"and are retried, but the ones it takes are answered in time, and even unlimited retries recover 1 s after the outage.",
	}},
}, {
	Name:  "brooker",
	Title: "Brooker's retry figures",
	Steps: []lab.Step{{
		Title:    "Independent failures",
		URL:      "/retrystorm?policies=retries&failure=0.5&trigger_start=0s&trigger_length=1m&clients=100&rate=1000&capacity=100000&backoff=none&service=concurrency&service_time=0s&duration=10s",
		Focus:    "policies",
		Controls: []string{"failure", "retries"},
		Question: "As in Brooker's simulator, the service fails half the calls whatever its load, and each request retries up to 3 times. " +
			"How many calls reach the service per request, and what share of the requests succeeds?",
		Explanation: "Each retry happens only if everything before it failed: 1 + 0.5 + 0.25 + 0.125 = 1.875 calls per request in theory, 1.876 here; " +
			"and a request fails only if all 4 attempts do, so 1 − 0.5⁴ = 93.75% succeed in theory, 93.72% here " +
			"(Brooker's simulator: 1.88 and 93.5%; his post writes the failure as x to the N, it is x to the N+1).",
		Answer: &lab.Answer{Unit: "calls per request", Min: 1, Max: 4, Step: 0.02, Truth: "1.88"},
		Gives:  []string{"1.875", "1.876"},
	}, {
		Title:    "Against the failure rate",
		URL:      "/retrystorm?policies=retries,adaptive,breaker&trigger_start=0s&trigger_length=1m&clients=100&rate=1000&capacity=100000&backoff=none&service=concurrency&service_time=0s&duration=10s&sweep=0:100:10",
		Focus:    "sweep_amp",
		Controls: []string{"policies", "sweep"},
		Text: "Brooker's figure: N retries follow the theory up to 4 calls per request when every call fails. His retry token bucket stays near " +
			"1 plus its deposit, 1.14 at every rate from 30% up, and his breaker sends first tries only once failures pass a tenth of them: 1.00 from 20% up. " +
			"Both give up on retries when they matter least: fewer requests succeed than with retries.",
	}, {
		Title:    "Many small clients",
		URL:      "/retrystorm?policies=adaptive,breaker&retries=10&failure=0.5&trigger_start=0s&trigger_length=1m&clients=100&rate=100&capacity=100000&backoff=none&service=concurrency&service_time=0s&duration=10s&client_sweep=10:1000:90",
		Focus:    "clients_amp",
		Controls: []string{"clients", "client_sweep"},
		Text: "The same 100 requests a second from more and smaller clients: each bucket starts full, so small clients retry as if nothing failed. " +
			"The bucket's calls per request grow from 1.14 at 10 clients to 1.51 at 100 and 1.82 at 1,000 (Brooker's simulator: 1.14, 1.45 and 1.87, " +
			"its clients each sending a first request at the start, where these arrive as Poisson from the start); the breaker, which counts failures against requests, stays at 1.00.",
	}},
}, {
	Name:  "layers",
	Title: "Retries at every layer",
	Steps: []lab.Step{{
		Title:    "Three layers, three retries",
		URL:      "/retrystorm?policies=retries,budget&trigger_start=0s&trigger_length=1m&clients=100&rate=100&capacity=100000&backoff=none&layers=3&service=concurrency&service_time=0s&duration=10s",
		Focus:    "policies",
		Controls: []string{"layers", "retries"},
		Question: "A client calls a tier that calls a tier that calls the service, and each of them retries a failed call up to 3 times. " +
			"When every call fails, how many calls reach the service for each of the client's requests?",
		Explanation: "64: each layer makes 4 attempts of every call it gets, and 4 × 4 × 4 = 64, the example of the SRE book's chapter 22. " +
			"With a retry budget at each layer it is 27.5: the budgets' floor of retries a second still lets each layer retry.",
		Answer: &lab.Answer{Unit: "calls per request", Min: 1, Max: 100, Step: 1, Truth: "64"},
		Gives:  []string{"64", "4 × 4 × 4"},
	}},
}, {
	Name:  "collapse",
	Title: "Brooker's collapse: latency that grows with load",
	Steps: []lab.Step{{
		Title:    "A spike of five seconds",
		URL:      "/retrystorm?policies=retries&retries=2&trigger=spike&trigger_start=20s&trigger_length=5s&clients=1&rate=40&capacity=100&timeout=3s&backoff=none&service=concurrency&service_time=1s&network=100ms&duration=1m20s",
		Focus:    "policies",
		Controls: []string{"spike", "seed"},
		Question: "As in Brooker's collapse simulator, the service's latency is 1 s plus 0.01 s per call in flight, callers give up after 3 s " +
			"and try 3 times in all, at once. The load doubles from 40 to 80 requests a second for 5 s. Does the service come back?",
		Explanation: "Not in this run: at 80 a second the latency passes the timeout, every attempt times out, and 3 attempts of 40 requests a second " +
			"are 120 calls, more than the 100 a second the service can complete: the calls stay at 120% of its capacity. " +
			"It is a matter of chance near the edge: Brooker's simulator stays collapsed in 6 of its 10 runs, this lab in 16 of the first 20 seeds — re-roll the seed.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "recovers", Label: "It comes back"}, {ID: "stays_down", Label: "It stays down"}}, Truth: "stays_down"},
		Gives:  []string{"not in this run", "stays down"},
	}, {
		Title:    "Backoff and jitter",
		URL:      "/retrystorm?policies=retries&retries=2&trigger=spike&trigger_start=20s&trigger_length=5s&clients=1&rate=40&capacity=100&timeout=3s&base=10s&cap=40s&service=concurrency&service_time=1s&network=100ms&duration=1m20s",
		Focus:    "policies",
		Controls: []string{"backoff", "base", "cap"},
		Text: "With exponential backoff and full jitter as in his simulator, the retries wait up to 20 s, then up to 40 s: they spread out, " +
			"the service never falls behind for good, and it recovers as soon as the spike ends, in every one of the first 20 seeds as in all 10 of his runs.",
	}, {
		Title:    "A budget, no backoff",
		URL:      "/retrystorm?policies=retries,adaptive,budget&retries=2&trigger=spike&trigger_start=20s&trigger_length=5s&clients=1&rate=40&capacity=100&timeout=3s&backoff=none&service=concurrency&service_time=1s&network=100ms&duration=1m20s",
		Focus:    "policies",
		Controls: []string{"policies"},
		Text: "Without backoff, Brooker's token bucket and a retry budget keep the retries to a few percent (1.01 and 1.06 calls per request), " +
			"and the service recovers as soon as the spike ends while unlimited retries collapse it.",
	}},
}}

package ratelimit

import "github.com/resilience-playground/playground/lab"

// tours walk through the comparisons of Criteo's engineering blog post "Distributed
// Rate-Limiting Algorithms", at its limit of 100 calls per minute, and through the stores it
// weighs for sharing the count between instances.
var tours = []lab.Tour{{
	Name:  "criteo",
	Title: "Which algorithm counts right",
	Steps: []lab.Step{{
		Title: "Fixed window",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log&limit=100&window=1m&duration=5m",
		Focus: "count", Controls: []string{"algorithms", "limit", "window"},
		Question: "A fixed window counts the calls of the current calendar minute. What happens to its count at each minute mark?",
		Gives:    []string{"drops to zero", "forget at every boundary", "forgets at every boundary", "would refuse"},
		Explanation: "The grey line is the exact number of admitted calls in the last minute; the blue one is what the fixed window counts. " +
			"It drops to zero at every minute mark and climbs again, so right after a boundary it admits calls the exact window " +
			"would refuse: up to 113 in one minute. The sliding log, which keeps every call's time, is the exact count itself.",
		Answer: &lab.Answer{Options: []lab.Choice{{ID: "zero", Label: "It drops to zero, then climbs again"}, {ID: "carries", Label: "It carries on from the minute before"}, {ID: "halves", Label: "It halves"}}, Truth: "zero"},
	}, {
		Title: "A full limit on each side of a boundary",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,sliding_window&limit=100&window=1m&traffic=boundary&load=1&duration=5m",
		Focus: "count", Controls: []string{"traffic", "algorithms"},
		Text: "A client sends 100 calls in the last second before the 1-minute mark and 100 more in the first second after it " +
			"(the post's case at 07:10:00), and again at 3 minutes. " +
			"The fixed window admits all 200 within two seconds, twice the limit; the sliding log admits 100. " +
			"The approximation lets one extra call through (101), because it assumes the previous minute's calls were spread evenly.",
	}, {
		Title: "The sliding-window approximation",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_window&limit=100&window=1m&duration=5m",
		Focus: "algorithms", Controls: []string{"algorithms"},
		Question: "At 00:01:43 the approximation adds the count of minute 00:01 and 17/60 of minute 00:00's: the previous " +
			"minute's count, weighted by how much of it is still inside the window. How close does that get to the exact count?",
		Gives: []string{"follows the grey", "no drop at the minute marks", "off by"},
		Explanation: "Close. The sliding window's line now follows the grey one, a little above or below it, with no drop at the minute marks: " +
			"its estimate is off by 2.6% of the limit on average, the fixed window's by 32.4%, " +
			"with two counters and two increments per call, as Cloudflare and HAProxy do it.",
		Answer: &lab.Answer{Unit: "% of the limit, off on average", Min: 0, Max: 20, Step: 0.1, Truth: "2.6"},
	}, {
		Title: "Five 15-second windows",
		URL:   "/ratelimit?algorithms=sliding_window,subwindows&limit=100&window=1m&duration=5m",
		Focus: "algorithms", Controls: []string{"algorithms", "subwindows"},
		Text: "Cutting the minute into four 15-second windows (five counters with the oldest, weighted) brings the estimate closer " +
			"still: its error falls from 2.6% to 1.2% of the limit. Sixty one-second windows would be closer yet, at sixty reads per " +
			"call: accuracy costs counters, with diminishing returns.",
	}, {
		Title: "Token bucket under overload",
		URL:   "/ratelimit?algorithms=sliding_log,token_bucket,gcra&limit=100&window=1m&load=3&duration=5m",
		Focus: "count", Controls: []string{"load", "burst"},
		Question: "A token bucket refills 100 tokens a minute and holds at most 100. How many calls can it admit in its first minute?",
		Gives:    []string{"twice the limit", "199", "starts full"},
		Explanation: "It starts full, so it admits its 100 tokens at once and then the refill: 199 in one minute, " +
			"nearly twice the limit. GCRA, which keeps one timestamp instead of a count and a time, admits exactly the same calls.",
		Answer: &lab.Answer{Unit: "calls in one minute, at most", Min: 100, Max: 300, Step: 1, Truth: "199"},
	}},
}, {
	Name:  "distributed",
	Title: "Sharing the count between instances",
	Steps: []lab.Step{{
		Title: "An atomic script",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,token_bucket&limit=100&load=2&duration=1m&instances=4",
		Focus: "count", Controls: []string{"instances", "store"},
		Text: "Four API instances behind a round-robin balancer share the client's state in one store. With an atomic " +
			"script (Redis and Lua), each call's read, decision and write happen in one step at the store, however far away it is: the limiters admit exactly what " +
			"one in-process limiter would, and the sliding log never lets more than 100 through in any second.",
	}, {
		Title: "Read, then write",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,token_bucket&limit=100&load=2&duration=1m&instances=4&store=racy&store_latency=20ms",
		Focus: "algorithms", Controls: []string{"store"},
		Question: "Without atomicity, instances read the state, decide, and write it back. How much more will they admit?",
		Gives:    []string{"over-admit", "increments are lost", "last write wins", "all 11,937"},
		Explanation: "Calls whose round trips overlap decide on the same state and the last write wins, so most increments are lost: " +
			"the store's count (in colour) stays far below the exact count (grey), and all 11,937 calls are admitted, up to 247 in one second.",
		Answer: &lab.Answer{Unit: "calls admitted in one second, at most (the limit: 100)", Min: 100, Max: 300, Step: 1, Truth: "247"},
	}, {
		Title: "Increments only",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,subwindows&limit=100&load=2&duration=1m&instances=4&store=incr&store_latency=20ms",
		Focus: "algorithms", Controls: []string{"store"},
		Text: "Memcached offers atomic increments and nothing more. The window counters need nothing else: the fixed window admits exactly " +
			"what the atomic script does (6,000 calls), the sub-windows a little less (5,854 against 5,941: a refused call counts until its " +
			"decrement lands). The sliding log cannot be written that way and falls back to GET then SET, with the races of the previous step.",
	}, {
		Title: "Compare-and-swap",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,token_bucket&limit=100&load=2&duration=1m&instances=4&store=cas&store_latency=20ms",
		Focus: "algorithms", Controls: []string{"store"},
		Text: "Optimistic concurrency never over-admits, but every write that lands during another call's round trip sends it back to read " +
			"again. Under this load the retries pile up: 9,019 of 11,937 calls give up, the limiters admit 2,918, about half of what the " +
			"limit allows, and each call costs 14 store operations.",
	}, {
		Title: "Asynchronous propagation",
		URL:   "/ratelimit?algorithms=fixed_window,sliding_log,token_bucket&limit=100&load=2&duration=1m&instances=4&store=async&store_latency=200ms",
		Focus: "algorithms", Controls: []string{"store", "store_latency"},
		Text: "Each instance decides on its own copy and publishes what it admitted, as through Kafka; the others merge it 200 ms later. " +
			"Decisions on stale counts let more than the limit through: up to 144 in a second under the sliding log, 163 under the fixed " +
			"window. A token bucket's state is not a sum of parts, so it cannot be merged: it stays local, and four instances allowing " +
			"100 per second each admit every call (11,937).",
	}, {
		Title: "Sticky sessions and a scale-out",
		URL:   "/ratelimit?algorithms=sliding_log,token_bucket&limit=100&load=2&duration=1m&balancer=sticky&store=local",
		Focus: "algorithms", Controls: []string{"balancer", "store"},
		Text: "With sticky sessions one instance sees all of a client's calls, and a local limiter is exact, until the fleet scales out " +
			"halfway and the client moves to a new instance that has never seen it: the sliding log then lets up to 169 through in one second.",
	}, {
		Title: "Store latency, store by store",
		URL:   "/ratelimit?algorithms=sliding_log&limit=100&load=3&duration=1m&instances=4&store=async&store_latency=100ms&latency_sweep=0:200:20",
		Focus: "latency_admitted", Controls: []string{"store_latency", "latency_sweep", "instances"},
		Text: "The sliding log on four instances, offered three times the limit, on every store whose decisions wait on a round trip, " +
			"as the latency grows from 0 to 200 ms. Without latency each admits the limit (1.00×). Read-then-write loses the increments of " +
			"overlapping round trips and admits every call from 20 ms on (3.02×). Asynchronous propagation over-admits the more the longer " +
			"the delay: 1.15× the limit at 100 ms, 1.26× at 200 ms. Compare-and-swap never over-admits, but a key admits at most one call " +
			"per round trip: 0.10× the limit at 100 ms, on its ceiling, and 0.05× at 200 ms.",
	}},
}}

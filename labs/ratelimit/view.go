package ratelimit

import "github.com/resilience-playground/playground/lab"

var view = lab.View{
	Key:      "algorithms",
	Headline: []string{"count", "rate"},
	Charts: []lab.Chart{
		{ID: "count", Title: "Exact count vs each algorithm's estimate", XLabel: "time", YLabel: "requests in the window",
			Split: true, XUnit: lab.Millis,
			Help: "Grey: the exact number of this algorithm's admitted requests in the last window — for the leaky bucket as a queue, of those it has let out to the service, at the leak rate. In the algorithm's colour: what it counts itself. " +
				"The fixed window's count drops to zero at every boundary; the sliding-window approximation follows the grey line closely."},
		{ID: "rate", Title: "Admitted per second", XLabel: "time", YLabel: "requests/s", Kind: lab.Steps, XUnit: lab.Millis,
			Help: "Requests admitted per second by each algorithm, beside those offered (grey); the difference is rejected. The leaky bucket as a queue shows what it lets out to the service, smoothed to its leak rate."},
		{ID: "sweep_error", Title: "Estimate error vs sub-windows", XLabel: "sub-windows k", YLabel: "mean error, % of limit", Mark: "subwindows", IntX: true, Needs: "sweep",
			Help: "The sliding-window approximation with k sub-windows (k = 1: the classic two counters), each on the same requests: the mean distance between its estimate and the exact count, in % of the limit. More sub-windows, more counters, a closer estimate."},
		{ID: "sweep_worst", Title: "Worst window vs sub-windows", XLabel: "sub-windows k", YLabel: "× limit", Mark: "subwindows", IntX: true, Needs: "sweep",
			Help: "The most requests the approximation with k sub-windows admitted in any window of the limit's length, × limit (grey: the limit)."},
		{ID: "latency_admitted", Key: "store", Needs: "latency_sweep", Title: "Admitted vs store latency", XLabel: "store latency", YLabel: "admitted, × limit", Mark: "store_latency", XUnit: lab.Millis, LogY: true,
			Help: "The first algorithm on each store whose decisions depend on the round trip, on the same requests: its admitted rate × limit against the store latency (grey: the limit and, dashed, the offered rate), on a logarithmic scale so that stores admitting everything offered do not flatten the others. " +
				"Asynchronous propagation admits more the longer the delay, and how much more depends on the algorithm and the load: " +
				"on 4 instances at a limit of 100 over 1 minute (latency_sweep 0:200:20), at 200 ms the fixed window admits 1.45× the limit at load 3 and 1.74× at load 5, the sliding log 1.26× and 1.52×. " +
				"Compare-and-swap admits at most one request per round trip (the dashed curve: window/(latency × limit)), so slow stores starve it. " +
				"With instances_sweep, asynchronous propagation also runs with other numbers of instances, a line each."},
	},
	Tables: []lab.Table{
		{ID: "algorithms", Title: "Each algorithm against the exact sliding window", Key: "algorithms", Rows: lab.MapRows,
			Help: "Admitted while full: requests admitted while the algorithm's own admitted requests in the last window already numbered the limit. " +
				"It counts moments, not an excess: at the defaults the fixed window admits exactly the limit per window and still scores about half its admissions here, " +
				"because the last window is full whenever a new one starts. How far and how long the limit was exceeded are beside it: " +
				"the worst window as × limit, and the area between the grey line and the limit where the grey line is above it (requests × seconds: " +
				"100 too many for 10 s is 1,000), with the share of the time it was above. " +
				"Wrongly rejected: refused although the exact window had room. Estimate error: the mean distance between the coloured and the grey line, " +
				"in % of the limit (the buckets' estimate, tokens in use, is a different quantity that drains at the refill rate).",
			Columns: []lab.Column{
				// The decisive columns first: what a person compares the algorithms by.
				{Field: "", Label: "algorithm"},
				{Field: "over_admitted", Label: "admitted while full"},
				{Field: "max_in_window_x", Label: "worst window × limit", Digits: 2},
				{Field: "over_limit_request_s", Label: "above the limit (requests × s)", Digits: 0},
				{Field: "over_limit_time_pct", Label: "time above", Digits: 1, Unit: lab.Percent},
				{Field: "estimate_error_pct", Label: "estimate error", Digits: 1, Unit: lab.Percent},
				{Field: "store_ops_per_request", Label: "store ops/request", Digits: 2},
				{Field: "admitted", Label: "admitted"},
				{Field: "rejected", Label: "rejected"},
				{Field: "wrongly_rejected", Label: "wrongly rejected"},
				{Field: "max_in_window", Label: "most in a window"},
				{Field: "state_bytes", Label: "state per key", Unit: lab.Bytes},
				{Field: "store", Label: "store"},
				{Field: "mean_wait_ms", Label: "queue wait", Digits: 1, Unit: lab.Millis},
			}},
		{ID: "cas_ceiling", Title: "Compare-and-swap against its ceiling", Key: "cas_ceiling", Rows: lab.MapRows,
			Help: "A swap lands a round trip after the read it was computed from and fails if another landed in between, so one key admits at most one request per round trip: window/(latency × limit) × limit. " +
				"At 90% of it or more the round trips bind, not the limit. Requests that arrived before the end still swap after it, so a run on its ceiling can show more than 100% of it, the more the fewer round trips the run lasts.",
			Columns: []lab.Column{
				{Field: "", Label: "algorithm"},
				{Field: "store_latency_ms", Label: "store latency", Digits: 1, Unit: lab.Millis},
				{Field: "ceiling_x", Label: "ceiling × limit", Digits: 2},
				{Field: "admitted_x", Label: "admitted × limit", Digits: 2},
				{Field: "share_pct", Label: "of the ceiling", Digits: 0, Unit: lab.Percent},
				{Field: "verdict", Label: "verdict"},
			}, Empty: "Filled when the sweep of store latency (Advanced) is on and the store latency above zero: the first algorithm then also runs on compare-and-swap at the chosen latency."},
	},
	// A store the first algorithm cannot use as asked runs as GET then SET (see the package doc).
	Names: map[string]string{"get_set": "GET then SET (no atomic update)", "cas ceiling": "Compare-and-swap ceiling"},
	Notes: []string{
		"After Criteo's engineering blog post “Distributed Rate-Limiting Algorithms”: the fixed window keys a counter per client and minute " +
			"({client}_{yyyyMMddHHmm}) and forgets at every boundary, so a full limit at 07:09:59 and another at 07:10:00 both pass. " +
			"The sliding-window approximation adds the previous window's count weighted by the part still inside the window " +
			"(in the post's example, at 00:01:43, 17/60 of minute 00:00), as Cloudflare and HAProxy do; k sub-windows bring it closer to exact at the price of k+1 counters.",
		"Burst: libraries disagree (golang.org/x/time/rate's burst is the bucket's capacity; GCRA's burst tolerance and redis-cell's max_burst count one less). " +
			"Here every bucket admits burst requests at one instant from rest, and burst 0 means the limit, so that every algorithm starts " +
			"like a window of limit requests. A full bucket under overload (load 3, say) still lets its burst plus a window of refill through: close to twice the limit.",
		"The token bucket, the leaky bucket as a meter, the leaky bucket as a queue and GCRA admit exactly the same requests at the same rate and burst: " +
			"they differ in what they keep per key (two values, or GCRA's one theoretical arrival time) and in what they do with an admitted request " +
			"(the queue holds it until it may leave at the constant rate: its mean wait is in the table). For the queue, the grey line, the most in a window " +
			"and the admitted rate count what it lets out to the service, so its smoothing shows: at the default it lets at most 1,000 out in any second " +
			"where the meter, the token bucket and GCRA let 1,186 through.",
		"In a distributed run the coloured line is the store's view (for local counters and asynchronous propagation, the view of the instance " +
			"that served the latest request): where it stays below the grey line, instances decided on what they read before the others' writes " +
			"landed, or before their messages arrived, and the lost updates let more requests through.",
		"Stores: an atomic script (Redis with Lua) decides as one in-process limiter would; increments only (Memcached) suit the window counters " +
			"(INCR, read the earlier counters, DECR after a refusal), and the other algorithms fall back to GET then SET; read-then-write lets " +
			"instances whose round trips overlap decide on the same state; compare-and-swap retries instead; asynchronous propagation " +
			"(the post's Kafka idea) decides on stale copies; local counters (sticky sessions) forget the client when it moves at the scale-out.",
	},
}

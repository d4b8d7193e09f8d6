package loadbalance

import "github.com/resilience-playground/playground/lab"

var view = lab.View{
	Key:      "policy",
	Headline: []string{"connections", "cpu"},
	Charts: []lab.Chart{
		{ID: "connections", Key: "subsetting", Title: "Connections per backend", XLabel: "connections", YLabel: "backends", Kind: lab.Bars, IntX: true, IntY: true,
			Help: "How many backends hold each number of connections. Random subsets spread them widely; deterministic subsetting gives every backend the same number, or two neighbouring numbers."},
		{ID: "cpu", Band: "Shaded: the least to the most loaded backend; the line: the median backend.", Title: "Backend CPU over time", XLabel: "time", YLabel: "CPU", Split: true, XUnit: lab.Seconds, YUnit: lab.Percent,
			Help: "Median utilisation across backends, with the band from the least to the most loaded backend, per policy."},
		{ID: "cpu_hist", Title: "CPU distribution over the run", XLabel: "CPU", YLabel: "backends", Kind: lab.Bars, Split: true, XUnit: lab.Percent, IntY: true,
			Help: "Backends per 2% of utilisation over the whole run. The busiest backend limits how much traffic the service takes; the gap to the others is wasted CPU."},
		{ID: "latency", Title: "Latency distribution", XLabel: "latency", YLabel: "requests faster", LogX: true, XUnit: lab.Millis, YUnit: lab.Percent,
			Help: "The share of the requests that succeeded answered faster than each latency, per policy, on a log axis: a line crosses 50% at its p50 and 99% at its p99. The shares are counted exactly at points 1/16 of an octave (about 4.4%) apart. Further right is slower; a long climb at the top is a slow tail."},
		{ID: "sweep_conn", Key: "subsetting", Empty: "every subset size of the sweep is larger than the backends; the sweep draws the sizes up to the number of backends.", Title: "Connection spread vs subset size", XLabel: "subset size", YLabel: "max/mean connections", Mark: "subset", IntX: true, Needs: "sweep",
			Help: "The most connections any backend holds over the mean, per subsetting, at each subset size of the sweep (Advanced). Random subsets need to be large before the spread is small; deterministic subsetting gives every backend the same number of connections, give or take one, at every size."},
		{ID: "sweep_cpu", Key: "subsetting", Empty: "every subset size of the sweep is larger than the backends; the sweep draws the sizes up to the number of backends.", Title: "CPU spread vs subset size, first policy", XLabel: "subset size", YLabel: "max/mean CPU", Mark: "subset", IntX: true, Needs: "sweep",
			Help: "The busiest backend's CPU over the mean, under the first policy, per subsetting, at each subset size: a simulation of this scenario at each size under random and deterministic subsetting (and the one chosen), refined as the run goes."},
		{ID: "sweep_p99", Key: "subsetting", Empty: "every subset size of the sweep is larger than the backends; the sweep draws the sizes up to the number of backends.", Title: "p99 latency vs subset size, first policy", XLabel: "subset size", YLabel: "p99 latency", Mark: "subset", IntX: true, Needs: "sweep", YUnit: lab.Millis,
			Help: "The 99th percentile of the latency of the requests that succeeded, under the first policy, at each subset size."},
		{ID: "load_p99", MarkValue: "load_pct", MarkLabel: "this scenario's load", Title: "p99 latency vs offered load", XLabel: "offered load", YLabel: "p99 latency", XUnit: lab.Percent, YUnit: lab.Millis, Needs: "load_sweep",
			Help: "The 99th percentile of the latency of the requests that succeeded, per policy, at each offered load of the sweep (Advanced: Sweep of load): this scenario with the request rate scaled to that share of the backends' capacity. Queues grow with the load, and p99 with them; backends refuse requests once their queues are full, under some policies well below full capacity. In a sweep of load at the defaults (50:110:5), 0.01% of the requests or more fail from 65% of capacity under round robin and random (0.81% and 0.83% at 80%), from 75% under weighted round robin (0.06% at 80%), and only from 105% under least-loaded and two choices (0.20% and 0.88% there), which send each request to an idle backend while one is left."},
		{ID: "load_queue", MarkValue: "load_pct", MarkLabel: "this scenario's load", Title: "Time queueing vs offered load", XLabel: "offered load", YLabel: "latency queueing", XUnit: lab.Percent, YUnit: lab.Percent, Needs: "load_sweep",
			Help: "The share of the successful requests' summed latency spent waiting in a backend's queue for a core, per policy, at each load of the sweep; the rest is service on a core."},
		{ID: "errors", Title: "Errors over time", XLabel: "time", YLabel: "errors", XUnit: lab.Seconds,
			Help: "Failed requests per sampling interval: rejected by flow control, refused by an overloaded backend, answered by a fail-fast backend, or lost in a stop."},
	},
	Tables: []lab.Table{
		{ID: "load", Title: "Offered load", Key: "load", Rows: lab.ListRows, Columns: []lab.Column{
			{Field: "offered_pct", Label: "of capacity", Digits: 0, Unit: lab.Percent},
			{Field: "verdict", Label: "what it means"},
		}, Help: "The CPU the requests need on average, as a share of what all the backends have at mean machine speed. Antagonists and restarts take a little capacity away; requests sent to fail-fast backends take none."},
		{ID: "policies", Title: "Policies", Key: "policies", Rows: lab.MapRows, Columns: []lab.Column{
			// The decisive columns first: what a person compares the policies by.
			{Field: "", Label: "policy"},
			{Field: "max_over_min", Label: "CPU max/min", Digits: 2},
			{Field: "wasted_cpu_pct", Label: "wasted CPU", Digits: 1, Unit: lab.Percent},
			{Field: "latency_p50_ms", Label: "latency p50", Digits: 1, Unit: lab.Millis},
			{Field: "latency_p99_ms", Label: "p99", Digits: 1, Unit: lab.Millis},
			{Field: "queue_pct", Label: "of it queueing", Digits: 1, Unit: lab.Percent},
			{Field: "errors", Label: "errors"},
			{Field: "fail_fast", Label: "to fail-fast backends"},
			{Field: "cpu_min", Label: "CPU min", Digits: 1, Unit: lab.Percent},
			{Field: "cpu_mean", Label: "mean", Digits: 1, Unit: lab.Percent},
			{Field: "cpu_max", Label: "max", Digits: 1, Unit: lab.Percent},
			{Field: "max_over_mean", Label: "max/mean", Digits: 2},
			{Field: "p99_over_mean", Label: "p99/mean", Digits: 2},
			{Field: "active_per_client", Label: "in flight per client", Digits: 1},
		}, Help: "CPU figures are per backend over the run, fail-fast backends left out. p50 and p99: latency percentiles of the requests that succeeded, " +
			"from a histogram of buckets 1/16 of an octave (about 4.4%) wide, interpolated within the bucket: never off by more than the bucket's width, so read them to a few percent, not to the last digit. " +
			"Of it queueing: the share of those requests' summed latency spent waiting in a backend's queue for a core; the rest is service on a core."},
		{ID: "subsettings", Title: "Subsetting algorithms at these sizes", Key: "subsettings", Rows: lab.ListRows, Columns: []lab.Column{
			{Field: "subsetting", Label: "subsetting"},
			{Field: "min", Label: "connections min"},
			{Field: "max", Label: "max"},
			{Field: "sd", Label: "sd", Digits: 2},
			{Field: "max_over_mean", Label: "max/mean", Digits: 2},
			{Field: "churn_fail_backend", Label: "churn: a backend fails"},
			{Field: "churn_add_client", Label: "clients +1"},
			{Field: "churn_remove_client", Label: "clients −1"},
			{Field: "churn_add_backend", Label: "backends +1 (resize)"},
			{Field: "churn_remove_backend", Label: "backends −1 (resize)"},
		}, Help: "Churn: connections opened plus closed. A backend fails: it stays in the list, and only the clients that had it react — " +
			"random and rendezvous clients take the next backend of their own order in its place (the chapter: random subsetting copes with restarts and failures), " +
			"deterministic and aperture clients keep their subsets one backend short. A resize adds or removes the last client or backend of the job, " +
			"so every client subsets a list of a new length: random and deterministic shuffles then change nearly every subset."},
		{ID: "rounds", Title: "Deterministic subsetting: the rounds", Key: "rounds", Rows: lab.ListRows, Bottom: true, Columns: []lab.Column{
			{Field: "round", Label: "round"},
			{Field: "list", Label: "shuffled backends, cut into clients' subsets"},
		}, Help: "Shown for up to 32 clients and 32 backends. Each round is one shuffle of the backends; its clients take consecutive slices.",
			Empty: "Shown under deterministic subsetting, for up to 32 clients and 32 backends."},
		{ID: "subsets", Title: "Subsets", Key: "subsets", Rows: lab.ListRows, Bottom: true, Columns: []lab.Column{
			{Field: "client", Label: "client"},
			{Field: "round", Label: "round"},
			{Field: "subset", Label: "backends"},
		}, Empty: "Shown for up to 32 clients and 32 backends."},
	},
	Notes: []string{
		"The model: clients send Poisson requests whose CPU cost is log-uniform (mean 0.4 s on a machine of speed 1); every backend has eight cores, serves its queue in order (refusing requests when 100 are waiting) and runs at its machine's speed, slowed by up to 20% while an antagonist shares the machine and halved while it warms up after a restart. CPU is utilisation: busy core time over available core time.",
		"Least-loaded round robin sees only the client's own active requests; weighted round robin uses the utilisation, queries and errors per second each backend reports every second (gRPC's weight formula, queries / (utilisation + errors/queries)), and counts errors against a backend even when it uses no CPU, where gRPC would ignore the report: a fail-fast backend's share shrinks second by second. A client stops sending to a backend over the flow-control limit; a request with no backend to go to fails.",
		"Deterministic subsetting is the chapter's code when the subset size divides the number of backends. When it does not, the chapter's prose says the counts still differ by at most one, but its printed code cuts every round into backends/size whole subsets and leaves the rest of the round's backends unused, and the shortfalls add up: for deterministic subsets of 7 at the default 300 clients and 300 backends (42 subsets a round, 6 backends left out each time) the code gives 4 to 8 connections per backend. This lab reads the rounds' shuffled lists as one stream, so a subset that would be cut short continues into the next list: deterministic subsets of 7 give exactly 7 each.",
		"Aperture subsets may be a little larger than the subset size; the policies here ignore the aperture's weights for its two edge backends.",
		"Wasted CPU, as the chapter defines it, is the sum over backends of the busiest backend's CPU minus each one's, shown as a share of the busiest one's level times the number of backends. Fail-fast backends are left out of the CPU figures.",
	},
}

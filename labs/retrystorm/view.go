package retrystorm

import "github.com/resilience-playground/playground/lab"

var view = lab.View{
	Key:      "policies",
	Headline: []string{"success", "load"},
	Charts: []lab.Chart{
		{ID: "success", Title: "Requests that succeed", XLabel: "time", YLabel: "requests ending that succeed", XUnit: lab.Seconds, YUnit: lab.Percent,
			MarkValue: "trigger_end_s", MarkLabel: "trigger ends",
			Help: "Of the requests that end in each interval, the share that succeeded, as their clients see it, after every retry the policy allowed."},
		{ID: "load", Title: "Calls at the service and requests that succeed", XLabel: "time", YLabel: "per second", Split: true,
			XUnit: lab.Seconds, MarkValue: "trigger_end_s", MarkLabel: "trigger ends",
			Help: "Per policy: the calls that reach the service each second, retries included, the requests that succeed each second (goodput), and the service's capacity (grey). Calls above the capacity pile up in the queue."},
		{ID: "amplification", Title: "Calls per request over time", XLabel: "time", YLabel: "calls per new request", XUnit: lab.Seconds,
			MarkValue: "trigger_end_s", MarkLabel: "trigger ends",
			Help: "Calls reaching the service in each interval over the new requests of that interval. Over a whole run that is 1 without retries and at most (N+1) per layer, when every attempt fails. " +
				"An interval strays from it, as a call reaches the service a network delay, a timeout or a backoff sleep after its request begins, often in a later interval: at the defaults, No retries reads 0.97 to 1.03 and N retries up to 4.61."},
		{ID: "in_flight", Title: "Calls at the service", XLabel: "time", YLabel: "calls waiting or in service", XUnit: lab.Seconds,
			MarkValue: "trigger_end_s", MarkLabel: "trigger ends",
			Help: "The service's queue at the end of each interval, with the calls in service. A queue whose wait exceeds the timeout serves only calls their callers have given up on."},
		{ID: "latency", Empty: "no request succeeded in this run, so there is no latency to draw.", Title: "Latency of the requests that succeed", XLabel: "time", YLabel: "mean latency", XUnit: lab.Seconds, YUnit: lab.Millis,
			MarkValue: "trigger_end_s", MarkLabel: "trigger ends",
			Help: "Mean time from a request's first try to its answer, retries and sleeps included, of the requests that succeeded in each interval."},
		{ID: "sweep_amp", Title: "Calls per request vs failure share", XLabel: "calls the outage fails", YLabel: "calls per request", XUnit: lab.Percent, Needs: "sweep",
			Help: "Each point simulates this scenario with an outage failing that share of the calls over the trigger's window; the grey dashed line is the theory for N retries and independent failures, 1 + x + … + x^N per layer (Brooker's “load”)."},
		{ID: "sweep_success", Title: "Requests that succeed vs failure share", XLabel: "calls the outage fails", YLabel: "requests that succeed", XUnit: lab.Percent, YUnit: lab.Percent, Needs: "sweep",
			Help: "The share of the requests that succeeded over the run at each failure share; the grey dashed line is 1 − x^(N+1) per layer, the theory for N retries."},
		{ID: "clients_amp", Title: "Calls per request vs clients, same total rate", XLabel: "clients", YLabel: "calls per request", LogX: true, IntX: true, Mark: "clients", Needs: "client_sweep",
			Help: "This scenario with the same requests a second spread over more, smaller clients: a policy whose state is per client (a bucket, a budget's floor) lets each small client retry as if alone."},
		{ID: "clients_success", Title: "Requests that succeed vs clients, same total rate", XLabel: "clients", YLabel: "requests that succeed", LogX: true, IntX: true, YUnit: lab.Percent, Mark: "clients", Needs: "client_sweep",
			Help: "The share of the requests that succeeded over the run at each number of clients."},
	},
	Tables: []lab.Table{
		{ID: "policies", Title: "After the trigger", Key: "policies", Rows: lab.MapRows, Columns: []lab.Column{
			{Field: "", Label: "policy"},
			{Field: "verdict", Label: "the service"},
			{Field: "amplification", Label: "calls per request", Digits: 2},
			{Field: "success_pct", Label: "requests that succeed", Digits: 1, Unit: lab.Percent},
			{Field: "latency_p50_ms", Label: "latency p50", Digits: 0, Unit: lab.Millis},
			{Field: "latency_p99_ms", Label: "p99", Digits: 0, Unit: lab.Millis},
			{Field: "retries", Label: "retries"},
			{Field: "denied", Label: "refused by the policy"},
			{Field: "timeouts", Label: "timeouts"},
			{Field: "wasted_pct", Label: "service's work wasted", Digits: 1, Unit: lab.Percent},
			{Field: "max_in_flight", Label: "most calls at the service"},
		}, Help: "Recovered: the requests that succeed are back, for good, within 5% of their rate before the trigger (judged over windows that expect 1,600 of them). " +
			"Metastable: at the end the calls reaching the service, retries included, still exceed its capacity although the new requests alone would not. " +
			"Calls per request: calls that reached the service over the requests made. Wasted: calls the service completed after their caller had given up."},
		{ID: "load", Title: "Load", Key: "load", Rows: lab.ListRows, Columns: []lab.Column{
			{Field: "normal_pct", Label: "new requests, of capacity", Digits: 0, Unit: lab.Percent},
			{Field: "storm_pct", Label: "with every retry", Digits: 0, Unit: lab.Percent},
			{Field: "verdict", Label: "what it means"},
		}, Help: "The calls a second of the new requests alone, and of the requests if every one made all its attempts ((N+1) per layer), as a share of the service's capacity."},
	},
	Notes: []string{
		"The model: clients send requests as Poisson arrivals; a request's attempt travels to the service (exponential network delays), waits in its queue for one of its workers (capacity × service time of them, each call an exponential service time) and comes back. A caller waiting longer than the timeout counts the attempt as failed and, if its policy lets it, retries after the backoff sleep; the service still serves the abandoned call. With layers, each tier between the client and the service is a caller of its own with its own policy.",
		"Every policy sees the same arrivals and, attempt by attempt, the same network delays, service times and failures: the differences come from the policies alone.",
		"Each policy keeps its state per client and per layer, with its project's documented defaults (the Policies control's help lists them).",
	},
}

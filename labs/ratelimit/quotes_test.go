package ratelimit

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// alg returns a measure of one algorithm's summary.
func alg(name string, f func(AlgorithmSummary) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return f(algorithms(tb, r)[name]) }
}

func maxIn(a AlgorithmSummary) string     { return labtest.Thousands(a.MaxInWindow) }
func admittedN(a AlgorithmSummary) string { return labtest.Thousands(a.Admitted) }
func errPct(a AlgorithmSummary) string    { return fmt.Sprintf("%.1f%%", a.EstimateErrorPct) }

// atMost returns the figure a text quotes as a ceiling: the limit itself when the most in a
// window stays within it, else the most.
func atMost(limit int64) func(AlgorithmSummary) string {
	return func(a AlgorithmSummary) string {
		if a.MaxInWindow <= limit {
			return labtest.Thousands(limit)
		}
		return labtest.Thousands(a.MaxInWindow)
	}
}

const distributed = "algorithms=fixed_window,sliding_log,token_bucket&limit=100&load=2&duration=1m&instances=4"

// exactPeak returns the top of the count chart's grey line in an algorithm's panel (the exact
// count of its admitted requests in the last window, at the chart's samples), where it is the
// most the algorithm admitted in any window (the table's “most in a window”): the chart's
// samples can pass between two requests and miss the top.
func exactPeak(tb testing.TB, r *lab.Result, name string) (int64, error) {
	for _, s := range r.Series {
		if s.Name == "exact "+name && len(s.Y) > 0 {
			peak, most := int64(slices.Max(s.Y)), algorithms(tb, r)[name].MaxInWindow
			if peak != most {
				return 0, fmt.Errorf("the count chart's grey line tops at %d, the most in a window is %d", peak, most)
			}
			return peak, nil
		}
	}
	return 0, fmt.Errorf("no exact count of %s on the count chart", name)
}

// peak returns a measure of the top of the count chart's grey line in an algorithm's panel
// (see exactPeak).
func peak(name string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		n, err := exactPeak(tb, r, name)
		if err != nil {
			return err.Error()
		}
		return labtest.Thousands(n)
	}
}

// latencyX returns the latency sweep's admitted rate on store at ms, as the texts write it.
func latencyX(tb testing.TB, r *lab.Result, store string, ms float64) string {
	for _, p := range r.Summary["latency_sweep"].([]LatencyPoint) {
		if p.Store == store && p.StoreLatencyMS == ms {
			return fmt.Sprintf("%.2f×", p.AdmittedX)
		}
	}
	tb.Errorf("no latency sweep point on %s at %.0f ms", store, ms)
	return ""
}

// aboutHalf writes share f as the texts do when it is about half (45–55%), else as a percentage.
func aboutHalf(f float64) string {
	if f <= 0.45 || f >= 0.55 {
		return fmt.Sprintf("%.0f%%", 100*f)
	}
	return "about half"
}

// asyncChart is the scenario of the latency chart's help: alg, the first algorithm, at load.
func asyncChart(alg string, load int) string {
	return fmt.Sprintf("algorithms=%s&limit=100&load=%d&duration=1m&instances=4&latency_sweep=0:200:20", alg, load)
}

// asyncAt200 returns a measure of the asynchronous store's admitted rate at 200 ms on the
// latency chart, written into format, after checking that the line is alg's.
func asyncAt200(alg, format string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		for _, p := range r.Summary["latency_sweep"].([]LatencyPoint) {
			if p.Algorithm == alg && p.Store == "async" && p.RunsAs == "async" && p.StoreLatencyMS == 200 {
				return fmt.Sprintf(format, fmt.Sprintf("%.2f×", p.AdmittedX))
			}
		}
		return "no asynchronous line of " + alg + " at 200 ms"
	}
}

// quotes are the figures the lab's texts state, each with the scenario that measures it.
var quotes = []labtest.Quote{
	{In: "explain:criteo/1", Says: "up to 113 in one minute", Measure: peak("fixed_window"), Shown: "count"},
	{In: "tour:criteo/2", Says: "A client sends 100 calls in the last second before the 1-minute mark and 100 more in the first second after it " +
		"(the post's case at 07:10:00), and again at 3 minutes",
		Why: "the post's boundary case: the scenario's limit (load 1) on each side of every other boundary (1, 3 and 5 windows of a minute; at 5 only the half before, as the run ends), the post's own time beside it"},
	{In: "tour:criteo/2", Says: "admits all 200", Measure: peak("fixed_window"), Shown: "count"},
	{In: "tour:criteo/2", Says: "within two seconds, twice the limit", Why: "the boundary traffic's two seconds; 200 is twice the limit of 100"},
	{In: "tour:criteo/2", Says: "the sliding log admits 100", Measure: peak("sliding_log"), Shown: "count"},
	{In: "tour:criteo/2", Says: "one extra call through (101)", Measure: peak("sliding_window"), Shown: "count"},
	{In: "predict:criteo/3", Says: "At 00:01:43 the approximation adds the count of minute 00:01 and 17/60 of minute 00:00's", Why: "the post's worked example"},
	{In: "explain:criteo/3", Says: "off by 2.6% of the limit", Measure: alg("sliding_window", errPct), Shown: "algorithms"},
	{In: "explain:criteo/3", Says: "the fixed window's by 32.4%", Measure: alg("fixed_window", errPct), Shown: "algorithms"},
	{In: "explain:criteo/3", Says: "two counters and two increments per call", Why: "what the algorithm keeps and does (16 bytes of state)"},
	{In: "tour:criteo/4", Says: "four 15-second windows (five counters with the oldest, weighted)", Why: "the scenario's sub-windows (k = 4) and what they keep"},
	{In: "tour:criteo/4", Says: "falls from 2.6%", Measure: alg("sliding_window", errPct), Shown: "algorithms"},
	{In: "tour:criteo/4", Says: "to 1.2% of the limit", Measure: alg("subwindows", errPct), Shown: "algorithms"},
	{In: "tour:criteo/4", Says: "Sixty one-second windows would be closer yet, at sixty reads per call", Why: "arithmetic of sub-windows: k = 60 reads k + 1 counters"},
	{In: "predict:criteo/5", Says: "refills 100 tokens a minute and holds at most 100", Why: "the scenario's limit and burst (0: equal to the limit)"},
	{In: "predict:criteo/5", Says: "How many calls can it admit in its first minute?", Why: "a question"},
	{In: "explain:criteo/5", Says: "admits its 100 tokens", Why: "the burst, equal to the limit"},
	{In: "explain:criteo/5", Says: "199 in one minute", Measure: peak("token_bucket"), Shown: "count"},
	{In: "explain:criteo/5", Says: "nearly twice the limit", Measure: func(tb testing.TB, r *lab.Result) string {
		n, err := exactPeak(tb, r, "token_bucket")
		if err != nil {
			return err.Error()
		}
		if x := float64(n) / float64(r.Summary["limit"].(int64)); x < 1.9 || x >= 2 {
			return fmt.Sprintf("%.2f×", x)
		}
		return "nearly twice"
	}, Shown: "count"},
	{In: "tour:distributed/1", Says: "Four API instances", Why: "the scenario's instances"},
	{In: "tour:distributed/1", Says: "in one step at the store, however far away it is", Why: "an atomic script decides as one in-process limiter, whatever the store latency (package doc); the step sets none, the control being hidden for this store"},
	{In: "tour:distributed/1", Says: "never lets more than 100 through in any second", Measure: func(tb testing.TB, r *lab.Result) string {
		// The grey line stays at or under the limit line, and so does the most in a window,
		// which the chart's samples could miss.
		for _, s := range r.Series {
			if s.Name == "exact sliding_log" && slices.Max(s.Y) > 100 {
				return fmt.Sprintf("the grey line tops at %g", slices.Max(s.Y))
			}
		}
		return alg("sliding_log", atMost(100))(tb, r)
	}, Shown: "count"},
	{In: "explain:distributed/2", Says: "all 11,937 calls are admitted", Measure: func(tb testing.TB, r *lab.Result) string {
		offered := r.Summary["offered"].(int64)
		for name, a := range algorithms(tb, r) {
			if a.Admitted != offered {
				return fmt.Sprintf("%s admits %d of %d", name, a.Admitted, offered)
			}
		}
		return labtest.Thousands(offered)
	}, Shown: "algorithms"},
	{In: "explain:distributed/2", Says: "up to 247 in one second", Measure: alg("sliding_log", maxIn), Shown: "algorithms"},
	{In: "tour:distributed/3", Says: "(6,000 calls)", Measure: alg("fixed_window", admittedN), Shown: "algorithms"},
	{In: "tour:distributed/3", Says: "(6,000 calls)", Scenario: distributed + "&store_latency=20ms", Measure: alg("fixed_window", admittedN), Shown: "algorithms"},
	{In: "tour:distributed/3", Says: "(5,854 against", Measure: alg("subwindows", admittedN), Shown: "algorithms"},
	{In: "tour:distributed/3", Says: "against 5,941:", Scenario: "algorithms=subwindows&limit=100&load=2&duration=1m&instances=4&store_latency=20ms", Measure: alg("subwindows", admittedN), Shown: "algorithms"},
	{In: "tour:distributed/4", Says: "9,019 of 11,937 calls give up", Measure: func(tb testing.TB, r *lab.Result) string {
		// As the table shows them: the calls that give up are the rejected ones, and with
		// the admitted they are all those offered.
		a, offered := algorithms(tb, r)["sliding_log"], r.Summary["offered"].(int64)
		if a.GaveUp != a.Rejected || a.Admitted+a.Rejected != offered {
			return fmt.Sprintf("%d give up, %d rejected, %d admitted of %d", a.GaveUp, a.Rejected, a.Admitted, offered)
		}
		return labtest.Thousands(a.Rejected) + " of " + labtest.Thousands(offered)
	}, Shown: "algorithms"},
	{In: "tour:distributed/4", Says: "admit 2,918", Measure: alg("sliding_log", admittedN), Shown: "algorithms"},
	{In: "tour:distributed/4", Says: "about half of what the limit allows", Measure: alg("sliding_log", func(a AlgorithmSummary) string {
		return aboutHalf(float64(a.Admitted) / 6000) // 100 a second for 60 s
	}), Shown: "algorithms"},
	{In: "tour:distributed/4", Says: "14 store operations", Measure: alg("sliding_log", func(a AlgorithmSummary) string { return fmt.Sprintf("%.0f", a.StoreOps) }), Shown: "algorithms"},
	{In: "tour:distributed/5", Says: "200 ms later", Why: "the scenario's propagation lag (store_latency)"},
	{In: "tour:distributed/5", Says: "up to 144 in a second under the sliding log", Measure: alg("sliding_log", maxIn), Shown: "algorithms"},
	{In: "tour:distributed/5", Says: "163 under the fixed", Measure: alg("fixed_window", maxIn), Shown: "algorithms"},
	{In: "tour:distributed/5", Says: "four instances allowing 100 per second each", Why: "the scenario's instances and limit"},
	{In: "tour:distributed/5", Says: "every call (11,937)", Measure: alg("token_bucket", func(a AlgorithmSummary) string {
		if a.Rejected != 0 {
			return fmt.Sprintf("%d rejected", a.Rejected)
		}
		return labtest.Thousands(a.Admitted)
	}), Shown: "algorithms"},
	{In: "tour:distributed/6", Says: "up to 169 through in one second", Measure: alg("sliding_log", maxIn), Shown: "algorithms"},
	{In: "tour:distributed/7", Says: "on four instances, offered three times the limit", Why: "the scenario's instances and load"},
	{In: "tour:distributed/7", Says: "from 0 to 200 ms", Why: "the scenario's latency_sweep"},
	{In: "tour:distributed/7", Says: "each admits the limit (1.00×)", Measure: func(tb testing.TB, r *lab.Result) string {
		var xs []string
		for _, store := range latencyStores {
			if x := latencyX(tb, r, store, 0); !slices.Contains(xs, x) {
				xs = append(xs, x)
			}
		}
		return strings.Join(xs, ", ")
	}, Shown: "latency_admitted"},
	{In: "tour:distributed/7", Says: "every call from 20 ms on (3.02×)", Measure: func(tb testing.TB, r *lab.Result) string {
		for _, p := range r.Summary["latency_sweep"].([]LatencyPoint) {
			if p.Store == "racy" && p.Admitted == r.Summary["offered"].(int64) {
				return fmt.Sprintf("%.0f ms on (%.2f×)", p.StoreLatencyMS, p.AdmittedX)
			}
		}
		return "never every call"
	}, Shown: "latency_admitted"},
	{In: "tour:distributed/7", Says: "1.15× the limit at 100 ms", Measure: func(tb testing.TB, r *lab.Result) string {
		return latencyX(tb, r, "async", 100) + " the limit at 100 ms"
	}, Shown: "latency_admitted"},
	{In: "tour:distributed/7", Says: "1.26× at 200 ms", Measure: func(tb testing.TB, r *lab.Result) string { return latencyX(tb, r, "async", 200) }, Shown: "latency_admitted"},
	{In: "tour:distributed/7", Says: "at most one call per round trip", Why: "the compare-and-swap ceiling: a swap lands a round trip after its read"},
	{In: "tour:distributed/7", Says: "0.10× the limit at 100 ms, on its ceiling", Measure: func(tb testing.TB, r *lab.Result) string {
		row := r.Summary["cas_ceiling"].(map[string]CeilingRow)["sliding_log"]
		if !row.AtCeiling || fmt.Sprintf("%.2f×", row.CeilingX) != latencyX(tb, r, "cas", 100) {
			return fmt.Sprintf("%+v", row)
		}
		return latencyX(tb, r, "cas", 100) + " the limit at 100 ms, on its ceiling"
	}, Shown: "latency_admitted"},
	{In: "tour:distributed/7", Says: "0.05× at 200 ms", Measure: func(tb testing.TB, r *lab.Result) string { return latencyX(tb, r, "cas", 200) }, Shown: "latency_admitted"},

	// What a reader sees beside whatever scenario is on screen: each figure measured names its
	// scenario's settings in its sentence (labtest.checkNamed); the others are definitions,
	// parameter values or a source's example.
	{In: "chart:latency_admitted", Says: "on 4 instances at a limit of 100 over 1 minute (latency_sweep 0:200:20), at 200 ms",
		Why: "the settings of the four scenarios measured below, and the sweep's point they are read at"},
	{In: "chart:latency_admitted", Says: "1.45× the limit at load 3", Scenario: asyncChart("fixed_window", 3), Measure: asyncAt200("fixed_window", "%s the limit at load 3")},
	{In: "chart:latency_admitted", Says: "1.74× at load 5", Scenario: asyncChart("fixed_window", 5), Measure: asyncAt200("fixed_window", "%s at load 5")},
	{In: "chart:latency_admitted", Says: "the sliding log 1.26×", Scenario: asyncChart("sliding_log", 3), Measure: asyncAt200("sliding_log", "%s")},
	{In: "chart:latency_admitted", Says: "and 1.52×.", Scenario: asyncChart("sliding_log", 5), Measure: asyncAt200("sliding_log", "%s")},
	{In: "table:algorithms", Says: "at the defaults the fixed window admits exactly the limit per window and still scores about half its admissions here",
		Measure: alg("fixed_window", func(a AlgorithmSummary) string {
			if a.Admitted != 30*1000 { // the default limit, 1,000 a second, for the default 30 s
				return fmt.Sprintf("admits %d", a.Admitted)
			}
			return aboutHalf(float64(a.OverAdmitted) / float64(a.Admitted))
		})},
	{In: "table:algorithms", Says: "100 too many for 10 s is 1,000", Why: "an example of the unit, requests × seconds"},
	{In: "table:cas_ceiling", Says: "At 90% of it or more", Why: "the verdict's threshold (atCeiling)"},
	{In: "table:cas_ceiling", Says: "more than 100% of it", Why: "100% is the ceiling itself; swaps after the end of the run count against its duration"},
	{In: "note:0", Says: "a full limit at 07:09:59 and another at 07:10:00", Why: "the example of Criteo's post, which the note names"},
	{In: "note:0", Says: "(in the post's example, at 00:01:43, 17/60 of minute 00:00)", Why: "the worked example of Criteo's post, which the note names"},
	{In: "note:0", Says: "k+1 counters", Why: "what the approximation with k sub-windows reads"},
	{In: "note:1", Says: "burst 0 means the limit", Why: "the burst parameter's 0 (scenarioOf)"},
	{In: "note:1", Says: "(load 3, say) still lets its burst plus a window of refill through: close to twice the limit", Scenario: "algorithms=token_bucket&load=3",
		Measure: alg("token_bucket", func(a AlgorithmSummary) string {
			if a.MaxInWindowX < 1.9 || a.MaxInWindowX > 2 {
				return fmt.Sprintf("%.2f× the limit", a.MaxInWindowX)
			}
			return "close to twice the limit"
		})},
	{In: "note:2", Says: "two values, or GCRA's one theoretical arrival time", Why: "the state each keeps per key"},
	{In: "chart:sweep_error", Says: "(k = 1: the classic two counters)", Why: "a definition: one sub-window is the classic approximation"},
	{In: "help:sweep", Says: "(1:31:6, say)", Why: "an example of the parameter's value"},
	{In: "help:sweep", Says: "(1: the classic two counters)", Why: "a definition: one sub-window is the classic approximation"},
	{In: "help:latency_sweep", Says: "(0:50:5, say)", Why: "an example of the parameter's value"},
	{In: "help:instances_sweep", Says: "(2:8:2, say)", Why: "an example of the parameter's value"},
	{In: "help:subwindows", Says: "it reads k+1 counters", Why: "a definition"},
	{In: "help:subwindows", Says: "(4 on a 1-minute window: the five 15-second windows of Criteo's post", Why: "the example of Criteo's post, which the help names"},
	{In: "help:burst", Says: "(0: equal to the limit, the fair comparison)", Why: "the parameter's value 0 (scenarioOf)"},
	{In: "help:traffic", Says: "a ramp from 0 to twice the load", Why: "the ramp's definition (traffic.go)"},
	{In: "help:instances", Says: "(with the sticky balancer: 1, and a second at the scale-out)", Why: "the rule between instances and balancer (check)"},
	{In: "help:skew", Says: "i/(instances−1)·skew", Why: "the definition of the skew's spacing"},

	{In: "note:2", Says: "at most 1,000 out in any second", Scenario: "algorithms=leaky_queue", Measure: alg("leaky_queue", maxIn)},
	{In: "note:2", Says: "let 1,186 through", Scenario: "algorithms=leaky_meter,token_bucket,gcra", Measure: alg("leaky_meter", maxIn)},
	{In: "note:2", Says: "let 1,186 through", Scenario: "algorithms=leaky_meter,token_bucket,gcra", Measure: alg("token_bucket", maxIn)},
	{In: "note:2", Says: "let 1,186 through", Scenario: "algorithms=leaky_meter,token_bucket,gcra", Measure: alg("gcra", maxIn)},
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), append(quotes, answerQuotes...))
}

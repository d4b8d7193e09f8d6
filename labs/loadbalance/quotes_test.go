package loadbalance

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// Measures for the quotes.
func conns(f func(connStatsRow) int) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return fmt.Sprint(f(connSummary(tb, r))) }
}

func policy(name string, f func(policySummary) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return f(policies(tb, r)[name]) }
}

func failFast(p policySummary) string { return labtest.Thousands(p.FailFast) }

// threeFailFast returns what least-loaded, round robin and weighted round robin send a
// fail-fast backend, as the failing help writes them.
func threeFailFast(tb testing.TB, r *lab.Result) string {
	ps := policies(tb, r)
	return fmt.Sprintf("%s, %s and %s", failFast(ps["least_loaded"]), failFast(ps["round_robin"]), failFast(ps["weighted"]))
}

func maxOverMin(p policySummary) string { return fmt.Sprintf("%.2f", p.MaxOverMin) }

// roundsConnections returns the fewest and the most connections of any backend as the rounds
// table shows them: how often it appears in the clients' subsets of the rounds' lists
// ("c0 [6 9 8] c1 [1 2 4]"), written "2 or 3".
func roundsConnections(tb testing.TB, r *lab.Result) string {
	rows, ok := r.Summary["rounds"].([]roundRow)
	if !ok {
		tb.Fatalf("summary.rounds is %T", r.Summary["rounds"])
	}
	count := map[string]int{}
	for _, row := range rows {
		for _, sub := range subsetInList.FindAllStringSubmatch(row.List, -1) {
			for _, b := range strings.Fields(sub[1]) {
				count[b]++
			}
		}
	}
	if n := scenarioIn(tb, r).Backends; len(count) != n {
		return fmt.Sprintf("%d of %d backends in the rounds", len(count), n)
	}
	var counts []int
	for _, n := range count {
		counts = append(counts, n)
	}
	return fmt.Sprintf("%d or %d", slices.Min(counts), slices.Max(counts))
}

// subsetInList matches a client's subset in a round's list: "c3 [11 0 7]".
var subsetInList = regexp.MustCompile(`c\d+ \[([^\]]*)\]`)

// quotes are the figures the lab's texts state, each with the scenario that measures it.
var quotes = []labtest.Quote{
	{In: "predict:subsetting/1", Says: "300 clients each pick 90 of 300 backends", Why: "the scenario's sizes"},
	{In: "explain:subsetting/1", Says: "the first 90", Why: "the scenario's subset size"},
	{In: "explain:subsetting/1", Says: "from 66", Measure: conns(func(c connStatsRow) int { return c.Min }), Shown: "connections"},
	{In: "explain:subsetting/1", Says: "to 116", Measure: conns(func(c connStatsRow) int { return c.Max }), Shown: "connections"},
	{In: "explain:subsetting/1", Says: "a mean of 90", Measure: conns(func(c connStatsRow) int { return int(c.Mean) }), Shown: "connections"},
	{In: "tour:subsetting/2", Says: "(30 of 300)", Why: "the scenario's sizes"},
	{In: "tour:subsetting/2", Says: "from 14", Measure: conns(func(c connStatsRow) int { return c.Min }), Shown: "connections"},
	{In: "tour:subsetting/2", Says: "to 46", Measure: conns(func(c connStatsRow) int { return c.Max }), Shown: "connections"},
	{In: "tour:subsetting/2", Says: "a mean of 30", Measure: conns(func(c connStatsRow) int { return int(c.Mean) }), Shown: "connections"},
	{In: "tour:subsetting/2", Says: "half again the mean's connections", Measure: func(tb testing.TB, r *lab.Result) string {
		if c := connSummary(tb, r); float64(c.Max)/c.Mean < 1.45 || float64(c.Max)/c.Mean > 1.55 {
			return fmt.Sprintf("%.2f× the mean", float64(c.Max)/c.Mean)
		}
		return "half again"
	}, Shown: "connections"},
	{In: "tour:subsetting/2", Says: "others half of it", Measure: func(tb testing.TB, r *lab.Result) string {
		if c := connSummary(tb, r); float64(c.Min)/c.Mean < 0.45 || float64(c.Min)/c.Mean > 0.55 {
			return fmt.Sprintf("%.2f× the mean", float64(c.Min)/c.Mean)
		}
		return "half"
	}, Shown: "connections"},
	{In: "tour:subsetting/3", Says: "exactly 30", Measure: conns(func(c connStatsRow) int {
		if c.Min != c.Max {
			return -1
		}
		return c.Max
	}), Shown: "connections"},
	{In: "tour:subsetting/4", Says: "Twelve backends, subsets of three, ten clients", Why: "the chapter's example: the scenario's sizes"},
	{In: "tour:subsetting/4", Says: "2 or 3", Measure: roundsConnections, Shown: "rounds"},
	{In: "explain:policies/1", Says: "2.80 times as hard", Measure: policy("round_robin", maxOverMin), Shown: "policies"},
	{In: "explain:policies/1", Says: "(the chapter saw up to twice)", Why: "the chapter's own figure"},
	{In: "explain:policies/1", Says: "40.3% of the CPU", Measure: policy("round_robin", func(p policySummary) string { return fmt.Sprintf("%.1f", p.WastedCPUPct) }), Shown: "policies"},
	{In: "tour:policies/2", Says: "round robin's 2.80×", Scenario: policyScenario + "&policy=round_robin", Measure: policy("round_robin", maxOverMin), Shown: "policies"},
	{In: "tour:policies/2", Says: "least-loaded to 1.80×", Measure: policy("least_loaded", maxOverMin), Shown: "policies"},
	{In: "tour:policies/2", Says: "to 1.35×", Measure: policy("weighted", maxOverMin), Shown: "policies"},
	{In: "explain:policies/3", Says: "sends it 559 requests", Measure: policy("least_loaded", failFast), Shown: "policies"},
	{In: "explain:policies/3", Says: "sends 303", Measure: policy("round_robin", failFast), Shown: "policies"},
	{In: "explain:policies/3", Says: "sends it 45", Measure: policy("weighted", failFast), Shown: "policies"},
	{In: "explain:policies/3", Says: "least-loaded sends it 124", Scenario: failFastScenario + "&count_errors=true", Measure: policy("least_loaded", failFast), Shown: "policies"},
	{In: "explain:policies/3", Says: "about 4 requests in flight", Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) }), Shown: "policies"},
	{In: "explain:policies/3", Says: "subsets of 5", Why: "the scenario's subset size"},
	{In: "explain:policies/3", Says: "default subsets of 30", Why: "the default subset size"},
	{In: "tour:policies/4", Says: "A fifth of the backends are stopped a third of the way in", Why: "the scenario's event_share (0.2) and the event's time (a third of the duration)"},
	{In: "tour:policies/4", Says: "71 under round robin", Scenario: "clients=100&backends=100&subset=10&subsetting=deterministic&duration=40s&event=abrupt_stop&event_share=0.2",
		Measure: policy("round_robin", func(p policySummary) string { return fmt.Sprint(p.Errors) }), Shown: "policies"},

	{In: "help:rate", Says: "10/s loads the default service to about 50%", Measure: func(tb testing.TB, r *lab.Result) string {
		return fmt.Sprintf("about %.0f%%", r.Summary["load_pct"].(float64))
	}},
	{In: "help:failing", Says: "(about 4 requests in flight per client)", Scenario: failFastScenario, Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "help:failing", Says: "least-loaded sends it 559 requests", Scenario: failFastScenario, Measure: policy("least_loaded", failFast)},
	{In: "help:failing", Says: "round robin sends 303", Scenario: failFastScenario, Measure: policy("round_robin", failFast)},
	{In: "help:failing", Says: "reports against it, 45;", Scenario: failFastScenario, Measure: policy("weighted", failFast)},
	{In: "help:failing", Says: "with random subsetting instead, 708, 354 and 53", Scenario: strings.Replace(failFastScenario, "&subsetting=deterministic", "", 1), Measure: threeFailFast},
	{In: "help:failing", Says: "the same 4 requests in flight", Scenario: "failing=1", Measure: policy("least_loaded", func(p policySummary) string { return fmt.Sprintf("%.0f", p.ActivePerClient) })},
	{In: "help:failing", Says: "least-loaded sends it 609 requests, round robin 608 and weighted round robin 75", Scenario: "failing=1", Measure: func(tb testing.TB, r *lab.Result) string {
		ps := policies(tb, r)
		return fmt.Sprintf("least-loaded sends it %s requests, round robin %s and weighted round robin %s", failFast(ps["least_loaded"]), failFast(ps["round_robin"]), failFast(ps["weighted"]))
	}},
	{In: "help:failing", Says: "At 50 clients, 50 backends, deterministic subsetting with subsets of 5, 30 s and one fail-fast backend", Why: "the settings of the scenario the sentence measures"},
	{In: "help:failing", Says: "spread over subsets of 30", Why: "the default subset size"},

	{In: "chart:load_p99", Says: "The 99th percentile", Why: "what the chart draws"},
	{In: "chart:load_p99", Says: "and p99 with them", Why: "the 99th percentile, as the help's first sentence defines it"},
	{In: "chart:load_p99", Says: "(50:110:5)", Why: "the sweep the sentence measures, its load_sweep"},
	{In: "chart:load_p99", Says: "0.01% of the requests or more fail from 65% of capacity under round robin and random", Scenario: loadSheds, Measure: failingFrom(0.01, "round_robin", "random")},
	{In: "chart:load_p99", Says: "(0.81% and 0.83% at 80%)", Scenario: loadSheds, Measure: loadErrors(80, "round_robin", "random")},
	{In: "chart:load_p99", Says: "from 75% under weighted round robin", Scenario: loadSheds, Measure: failingFrom(0.01, "weighted")},
	{In: "chart:load_p99", Says: "(0.06% at 80%)", Scenario: loadSheds, Measure: loadErrors(80, "weighted")},
	{In: "chart:load_p99", Says: "only from 105% under least-loaded and two choices", Scenario: loadSheds, Measure: failingFrom(0.01, "least_loaded", "p2c")},
	{In: "chart:load_p99", Says: "(0.20% and 0.88% there)", Scenario: loadSheds, Measure: loadErrors(105, "least_loaded", "p2c")},
}

// loadSheds is the scenario of the load sweep's figures on shedding: the defaults with every
// policy, swept from 50% to 110% of capacity.
const loadSheds = "policy=round_robin,least_loaded,weighted,random,p2c&load_sweep=50:110:5"

// failingFrom returns the load of the sweep from which at least pct% of the policies'
// requests fail, at that load and at every higher one, as the load chart's help writes it:
// "from 65%". Policies that start at different loads, or fail at some load and not at a
// higher one, give a figure the help cannot state.
func failingFrom(pct float64, policies ...string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		var out []string
		for _, p := range policies {
			from := "nowhere"
			for _, pt := range r.Summary["load_sweep"].(map[string][]loadPoint)[p] {
				if pt.ErrorPct >= pct && from == "nowhere" {
					from = fmt.Sprintf("%.0f%%", pt.LoadPct)
				} else if pt.ErrorPct < pct && from != "nowhere" {
					from = fmt.Sprintf("%s, but under %g%% at %.0f%%", from, pct, pt.LoadPct)
					break
				}
			}
			if !slices.Contains(out, from) {
				out = append(out, from)
			}
		}
		return "from " + strings.Join(out, " and ")
	}
}

// loadErrors returns the load sweep's error shares of the policies at load pct, as the load
// chart's help writes them: "0.11% and 0.09%".
func loadErrors(pct float64, policies ...string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		var out []string
		for _, p := range policies {
			for _, pt := range r.Summary["load_sweep"].(map[string][]loadPoint)[p] {
				if pt.LoadPct == pct {
					out = append(out, fmt.Sprintf("%.2f%%", pt.ErrorPct))
				}
			}
		}
		return strings.Join(out, " and ")
	}
}

// TestQuotes holds every figure the lab's texts quote to what its scenario measures, and every
// figure of every tour step to a quote.
func TestQuotes(t *testing.T) {
	t.Parallel() // beside the package's other heavy tests, after its memory tests (which measure the process's heap)
	heavy.Test(t)
	labtest.CheckQuotes(t, Lab(), slices.Concat(quotes, modelQuotes, sweepQuotes, answerQuotes))
}

// modelQuotes are the figures the texts take from the model's constants, the parameters'
// ranges and definitions. Where a constant gives the figure, Says is written from it, so that a
// changed constant fails the quote until its text follows.
var modelQuotes = []labtest.Quote{
	{In: "note:0", Says: fmt.Sprintf("(mean %s on a machine of speed 1)", secs(meanCost)), Why: "meanCost, the model's mean query cost; speed 1 is the mean machine's"},
	{In: "note:0", Says: fmt.Sprintf("every backend has %s cores", numberWord(cores)), Why: "cores, the model's cores per backend"},
	{In: "note:0", Says: fmt.Sprintf("(refusing requests when %d are waiting)", queueLimit), Why: "queueLimit, the model's queue length"},
	{In: "note:0", Says: fmt.Sprintf("slowed by up to %g%% while an antagonist", 100*antagonistSlow), Why: "antagonistSlow, the most an antagonist slows its backend"},
	{In: "help:antagonists", Says: fmt.Sprintf("slowed by up to %g%% for %s", 100*antagonistSlow, secs(antagonistSpan)), Why: "antagonistSlow and antagonistSpan, the model's antagonists"},
	{In: "help:event", Says: "A third of the way through", Why: "the event's time, a third of the duration (scenario.env)"},
	{In: "help:event", Says: fmt.Sprintf("after a lame-duck period (%s)", secs(grace)), Why: "grace, the model's lame-duck period"},
	{In: "help:event", Says: fmt.Sprintf("They restart %s later and warm up at %s speed for %s.", secs(downtime), ratioWord(warmSlowdown), secs(warmup)),
		Why: "downtime, warmSlowdown and warmup, the model's restart"},
	{In: "help:cost_spread", Says: fmt.Sprintf("mean %s of CPU", secs(meanCost)), Why: "meanCost, the model's mean query cost"},
	{In: "help:cost_spread", Says: "Google's “Load Balancing in the Datacenter” reports 1000× and more", Why: "the chapter's own figure, named by its title"},
	{In: "help:machine_spread", Says: "mean speed 1", Why: "the definition of a machine's speed: machines are scaled to mean 1 (scenario.env)"},
	{In: "help:count_errors", Says: "two-choices", Why: "the policy's name, power of two choices"},
	{In: "help:sweep", Says: fmt.Sprintf("(%s, say)", mustParam("sweep").On), Why: "an example of the syntax: the sweep its switch turns on"},
	{In: "help:load_sweep", Says: fmt.Sprintf("(%s, say)", mustParam("load_sweep").On), Why: "an example of the syntax: the sweep its switch turns on"},
	{In: "help:load_sweep", Says: fmt.Sprintf("a rate outside %g–%g a second", mustParam("rate").Min, mustParam("rate").Max), Why: "the request rate's range"},
	{In: "chart:cpu_hist", Says: fmt.Sprintf("Backends per %g%% of utilisation", cpuBin), Why: "cpuBin, the histogram's bin"},
	{In: "chart:latency", Says: "a line crosses 50% at its p50 and 99% at its p99", Why: "the definition of a percentile"},
	{In: "chart:latency", Says: bucketSays, Why: "latencyBuckets, the histogram's buckets per octave, and the width they give"},
	{In: "chart:sweep_p99", Says: "The 99th percentile", Why: "what the chart draws"},
	{In: "chart:connections", Says: "or two neighbouring numbers", Why: "deterministic subsetting's promise of counts within one (TestDeterministicProseNotCode, the subset package's tests)"},
	{In: "table:policies", Says: "p50 and p99: latency percentiles", Why: "the definition of the columns"},
	{In: "table:policies", Says: bucketSays, Why: "latencyBuckets, the histogram's buckets per octave, and the width they give"},
	{In: "table:rounds", Says: fmt.Sprintf("Shown for up to %d clients and %d backends.", roundsMaxClients, roundsMaxBackends), Why: "roundsMaxClients and roundsMaxBackends, the largest table shown"},
	{In: "note:3", Says: "its two edge backends", Why: "an aperture's two ends, the definition"},

	{In: "note:2", Says: "deterministic subsets of 7 at the default 300 clients and 300 backends", Why: "the settings of the scenario the sentence measures"},
	{In: "note:2", Says: "(42 subsets a round, 6 backends left out each time)", Scenario: sevens, Measure: func(tb testing.TB, r *lab.Result) string {
		s := scenarioIn(tb, r)
		return fmt.Sprintf("%d subsets a round, %d backends left out", s.Backends/s.Subset, s.Backends%s.Subset)
	}},
	{In: "note:2", Says: "the code gives 4 to 8 connections per backend", Scenario: sevens, Measure: func(tb testing.TB, r *lab.Result) string {
		s := scenarioIn(tb, r)
		c := chapterCode(s.Seed, s.Clients, s.Backends, s.Subset)
		return fmt.Sprintf("%d to %d connections", c.Min, c.Max)
	}},
	{In: "note:2", Says: "deterministic subsets of 7 give exactly 7 each", Scenario: sevens, Measure: func(tb testing.TB, r *lab.Result) string {
		c := connSummary(tb, r)
		if c.Min != c.Max {
			return fmt.Sprintf("%d to %d", c.Min, c.Max)
		}
		return fmt.Sprintf("of 7 give exactly %d each", c.Max)
	}},
}

// sevens is the scenario of the note on deterministic subsetting's printed code: subsets of 7,
// which do not divide the default 300 backends.
const sevens = "subset=7&subsetting=deterministic"

// bucketSays is the latency histogram's bucket as the latency chart and the policies table
// write it.
var bucketSays = fmt.Sprintf("1/%d of an octave (about %.1f%%)", latencyBuckets, 100*bucketWidth)

// secs writes d in seconds, as the texts do: "10 s".
func secs(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

// numberWord writes a small count as the texts do, in a word.
func numberWord(n int) string {
	words := []string{"zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"}
	if n < 0 || n >= len(words) {
		return fmt.Sprint(n)
	}
	return words[n]
}

// ratioWord writes a factor as the texts do: 0.5 is "half".
func ratioWord(x float64) string {
	if x == 0.5 {
		return "half"
	}
	return fmt.Sprintf("%g×", x)
}

// mustParam returns the lab's parameter named name.
func mustParam(name string) param.Spec {
	sp, ok := params.Lookup(name)
	if !ok {
		panic("no parameter " + name)
	}
	return sp
}

// scenarioIn returns the typed scenario r was run on.
func scenarioIn(tb testing.TB, r *lab.Result) scenario {
	tb.Helper()
	u, err := url.Parse(r.URL)
	if err != nil {
		tb.Fatal(err)
	}
	v, err := params.ParseQuery(u.RawQuery)
	if err != nil {
		tb.Fatal(err)
	}
	return scenarioOf(v)
}

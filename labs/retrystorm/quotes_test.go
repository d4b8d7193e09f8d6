package retrystorm

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// Measures for the quotes.
func policyOf(name string, f func(PolicySummary) string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string { return f(policies(tb, r)[name]) }
}

func amp3(p PolicySummary) string { return fmt.Sprintf("%.3f", p.Amplification) }
func amp2(p PolicySummary) string { return fmt.Sprintf("%.2f", p.Amplification) }

// recovered measures "as soon as the … ends" (recovered in the first interval after the
// trigger), "within a second" or "N s after".
func recovered(p PolicySummary) string {
	switch {
	case p.RecoveryS == nil:
		return "not recovered: " + p.Verdict
	case *p.RecoveryS == 0:
		return "as soon as"
	case *p.RecoveryS < 1:
		return "within a second"
	}
	return fmt.Sprintf("%g s after", *p.RecoveryS)
}

// sweepFrom measures "V from X% up": the value every point of policy p's failure sweep rounds
// to from the least share it does so on, in steps of the sweep.
func sweepFrom(p string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		rows := r.Summary["sweep"].(map[string][]sweepRow)[p]
		last := fmt.Sprintf("%.2f", rows[len(rows)-1].Amplification)
		from := rows[len(rows)-1].FailurePct
		for i := len(rows) - 1; i >= 0 && fmt.Sprintf("%.2f", rows[i].Amplification) == last; i-- {
			from = rows[i].FailurePct
		}
		return fmt.Sprintf("%s at every rate from %d%% up", last, from)
	}
}

// clientsAt measures the bucket's calls per request at a number of clients of the client sweep.
func clientsAt(p string, c int64) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, r *lab.Result) string {
		for _, row := range r.Summary["client_sweep"].(map[string][]clientRow)[p] {
			if row.Clients == c {
				return fmt.Sprintf("%.2f", row.Amplification)
			}
		}
		return fmt.Sprintf("no point at %d clients", c)
	}
}

// seeds measures, over the first 20 seeds of the step's scenario, how many runs of policy p
// end in state: "16 of the first 20 seeds", or "every one of the first 20 seeds".
func seeds(url, p, state string) func(testing.TB, *lab.Result) string {
	return func(tb testing.TB, _ *lab.Result) string {
		_, q, _ := strings.Cut(url, "?")
		n := 0
		for seed := 1; seed <= 20; seed++ {
			if policies(tb, mustRun(tb, fmt.Sprintf("%s&seed=%d", q, seed)))[p].State == state {
				n++
			}
		}
		if n == 20 {
			return "every one of the first 20 seeds"
		}
		return fmt.Sprintf("%d of the first 20 seeds", n)
	}
}

func stepURL(tb testing.TB, id string) string {
	t, n, ok := Lab().FindStep(id)
	if !ok {
		tb.Fatalf("no step %s", id)
	}
	return t.Steps[n-1].URL
}

// quotes are the figures the lab's texts state, each with the scenario that measures it.
func quotes(tb testing.TB) []labtest.Quote {
	return []labtest.Quote{
		{In: "predict:storm/1", Says: "every call for 10 s", Why: "the scenario's trigger"},
		{In: "predict:storm/1", Says: "600 requests a second to a service that completes 1,000", Why: "the scenario's rate and capacity"},
		{In: "predict:storm/1", Says: "up to 3 times", Why: "the scenario's N"},
		{In: "explain:storm/1", Says: "within a second of the outage's end", Measure: policyOf("none", recovered), Shown: "policies"},
		{In: "explain:storm/1", Says: "245% of the capacity", Measure: policyOf("retries", func(p PolicySummary) string { return fmt.Sprintf("%.0f%%", p.EndLoadPct) }), Shown: "policies"},
		{In: "explain:storm/1", Says: "67,077 calls queued", Measure: policyOf("retries", func(p PolicySummary) string { return labtest.Thousands(int64(p.MaxInFlight)) }), Shown: "policies"},
		{In: "tour:storm/2", Says: "the 1-s timeout", Why: "the scenario's timeout"},
		{In: "tour:storm/2", Says: "85.3% of its work", Measure: policyOf("retries", func(p PolicySummary) string { return fmt.Sprintf("%.1f%%", p.WastedPct) }), Shown: "policies"},
		{In: "tour:storm/2", Says: "makes 3.50 calls on average", Measure: policyOf("retries", amp2), Shown: "policies"},
		{In: "tour:storm/2", Says: "without retries it makes 1.00", Measure: policyOf("none", amp2), Shown: "policies"},
		{In: "explain:storm/3", Says: "(1.02 and 1.06 calls per request)", Measure: func(tb testing.TB, r *lab.Result) string {
			ps := policies(tb, r)
			return fmt.Sprintf("%.2f and %.2f calls per request", ps["adaptive"].Amplification, ps["budget"].Amplification)
		}, Shown: "policies"},
		{In: "explain:storm/3", Says: "recovers within a second of the outage's end", Measure: func(tb testing.TB, r *lab.Result) string {
			ps := policies(tb, r)
			if a, b := recovered(ps["adaptive"]), recovered(ps["budget"]); a != b {
				return a + " / " + b
			}
			return recovered(ps["adaptive"])
		}, Shown: "policies"},
		{In: "explain:storm/3", Says: "its 60-s wait", Why: "resilience4j's default waitDurationInOpenState"},
		{In: "predict:storm/3", Says: "Three policies", Why: "the scenario's policies beside the two of the first step"},
		{In: "predict:storm/3", Says: "resilience4j's defaults", Why: "a project's name"},
		{In: "explain:storm/3", Says: "still refusing most of them", Measure: policyOf("circuit", func(p PolicySummary) string {
			if strings.HasSuffix(p.Verdict, "the policy still refuses most requests") {
				return "still refusing most of them"
			}
			return p.Verdict
		}), Shown: "policies"},
		{In: "explain:storm/3", Says: "as few requests succeed as with unlimited retries (16.7%)", Measure: func(tb testing.TB, r *lab.Result) string {
			ps := policies(tb, r)
			if a, b := fmt.Sprintf("%.1f", ps["circuit"].SuccessPct), fmt.Sprintf("%.1f", ps["retries"].SuccessPct); a != b {
				return a + " vs " + b
			}
			return fmt.Sprintf("(%.1f%%)", ps["circuit"].SuccessPct)
		}, Shown: "policies"},
		{In: "tour:storm/4", Says: "Over two minutes", Why: "the scenario's duration"},
		{In: "tour:storm/4", Says: "recovers 52 s after the outage", Measure: policyOf("circuit", recovered), Shown: "policies"},
		{In: "tour:storm/4", Says: "remembers two minutes", Why: "the SRE book's window, the policy's default"},
		{In: "tour:storm/4", Says: "recovers 70 s after", Measure: policyOf("throttle", recovered), Shown: "policies"},
		{In: "tour:storm/4", Says: "the budget 1 s after", Measure: policyOf("budget", recovered), Shown: "policies"},
		{In: "tour:storm/5", Says: "beyond 1,000 in its queue", Why: "the scenario's queue limit"},
		{In: "tour:storm/5", Says: "recover 1 s after the outage", Measure: policyOf("retries", recovered), Shown: "policies"},

		{In: "predict:brooker/1", Says: "fails half the calls", Why: "the scenario's failure share, 0.5"},
		{In: "predict:brooker/1", Says: "up to 3 times", Why: "the scenario's N"},
		{In: "explain:brooker/1", Says: "1 + 0.5 + 0.25 + 0.125 = 1.875 calls per request in theory", Why: "the theory for N = 3 at x = 0.5"},
		{In: "explain:brooker/1", Says: "1.876 here", Measure: policyOf("retries", amp3), Shown: "policies"},
		{In: "explain:brooker/1", Says: "all 4 attempts", Why: "N + 1 with N = 3"},
		{In: "explain:brooker/1", Says: "1 − 0.5⁴ = 93.75% succeed in theory", Why: "the theory for N = 3 at x = 0.5"},
		{In: "explain:brooker/1", Says: "93.72% here", Measure: policyOf("retries", func(p PolicySummary) string { return fmt.Sprintf("%.2f%%", p.SuccessPct) }), Shown: "policies"},
		{In: "explain:brooker/1", Says: "(Brooker's simulator: 1.88 and 93.5%", Why: "his published figures"},
		{In: "explain:brooker/1", Says: "x to the N, it is x to the N+1", Why: "the formula's exponent, no figure"},
		{In: "tour:brooker/2", Says: "up to 4 calls per request when every call fails", Measure: func(tb testing.TB, r *lab.Result) string {
			rows := r.Summary["sweep"].(map[string][]sweepRow)["retries"]
			return fmt.Sprintf("up to %g calls", rows[len(rows)-1].Amplification)
		}, Shown: "sweep_amp"},
		{In: "tour:brooker/2", Says: "1 plus its deposit", Why: "the bucket's rule: a tenth of a token a request"},
		{In: "tour:brooker/2", Says: "1.14 at every rate from 30% up", Measure: sweepFrom("adaptive"), Shown: "sweep_amp"},
		{In: "tour:brooker/2", Says: "pass a tenth of them", Why: "the breaker's default threshold, 0.1"},
		{In: "tour:brooker/2", Says: "1.00 from 20% up", Measure: func(tb testing.TB, r *lab.Result) string {
			s := sweepFrom("breaker")(tb, r)
			return strings.Replace(s, " at every rate", "", 1)
		}, Shown: "sweep_amp"},
		{In: "tour:brooker/3", Says: "The same 100 requests a second", Why: "the scenario's rate"},
		{In: "tour:brooker/3", Says: "1.14 at 10 clients", Measure: func(tb testing.TB, r *lab.Result) string { return clientsAt("adaptive", 10)(tb, r) + " at 10 clients" }, Shown: "clients_amp"},
		{In: "tour:brooker/3", Says: "1.51 at 100", Measure: func(tb testing.TB, r *lab.Result) string { return clientsAt("adaptive", 100)(tb, r) + " at 100" }, Shown: "clients_amp"},
		{In: "tour:brooker/3", Says: "1.82 at 1,000", Measure: func(tb testing.TB, r *lab.Result) string { return clientsAt("adaptive", 1000)(tb, r) + " at 1,000" }, Shown: "clients_amp"},
		{In: "tour:brooker/3", Says: "(Brooker's simulator: 1.14, 1.45 and 1.87", Why: "his published figures"},
		{In: "tour:brooker/3", Says: "stays at 1.00", Measure: func(tb testing.TB, r *lab.Result) string {
			for _, row := range r.Summary["client_sweep"].(map[string][]clientRow)["breaker"] {
				if fmt.Sprintf("%.2f", row.Amplification) != "1.00" {
					return fmt.Sprintf("%.2f at %d clients", row.Amplification, row.Clients)
				}
			}
			return "1.00"
		}, Shown: "clients_amp"},

		{In: "predict:layers/1", Says: "up to 3 times", Why: "the scenario's N"},
		{In: "explain:layers/1", Says: "64: each layer makes 4 attempts of every call it gets, and 4 × 4 × 4 = 64", Measure: policyOf("retries", func(p PolicySummary) string {
			return fmt.Sprintf("%g:", p.Amplification)
		}), Shown: "policies"},
		{In: "explain:layers/1", Says: "chapter 22", Why: "the book's chapter"},
		{In: "explain:layers/1", Says: "it is 27.5", Measure: policyOf("budget", func(p PolicySummary) string { return fmt.Sprintf("%.1f", p.Amplification) }), Shown: "policies"},

		{In: "predict:collapse/1", Says: "1 s plus 0.01 s per call in flight", Why: "the scenario's service time and capacity (100 a second)"},
		{In: "predict:collapse/1", Says: "after 3 s", Why: "the scenario's timeout"},
		{In: "predict:collapse/1", Says: "3 times in all", Why: "N = 2"},
		{In: "predict:collapse/1", Says: "The load doubles from 40 to 80 requests a second for 5 s", Why: "the scenario's rate, spike and trigger"},
		{In: "explain:collapse/1", Says: "at 80 a second", Why: "the spike's rate"},
		{In: "explain:collapse/1", Says: "3 attempts of 40 requests a second are 120 calls, more than the 100 a second", Why: "the scenario's N, rate and capacity"},
		{In: "explain:collapse/1", Says: "120% of its capacity", Measure: policyOf("retries", func(p PolicySummary) string { return fmt.Sprintf("%.0f%%", p.EndLoadPct) }), Shown: "policies"},
		{In: "explain:collapse/1", Says: "6 of its 10 runs", Why: "Brooker's simulator (simple_collapse_sim, spike without backoff) run here with seeds 0 to 9"},
		// Each seed's run says in the policies table's verdict whether it stayed collapsed: the
		// text bids the class re-roll the seed and read it there.
		{In: "explain:collapse/1", Says: "16 of the first 20 seeds", Measure: seeds(stepURL(tb, "collapse/1"), "retries", "metastable"), Shown: "policies"},
		{In: "tour:collapse/2", Says: "up to 20 s, then up to 40 s", Why: "full jitter with base 10 s: below 10·2 s, then 10·4 s"},
		{In: "tour:collapse/2", Says: "recovers as soon as the spike ends", Measure: policyOf("retries", func(p PolicySummary) string {
			return "recovers " + recovered(p) + " the spike ends"
		}), Shown: "policies"},
		{In: "tour:collapse/2", Says: "every one of the first 20 seeds", Measure: seeds(stepURL(tb, "collapse/2"), "retries", "recovered"), Shown: "policies"},
		{In: "tour:collapse/2", Says: "all 10 of his runs", Why: "Brooker's simulator (spike with backoff and jitter) run here with seeds 0 to 9"},
		{In: "tour:collapse/3", Says: "(1.01 and 1.06 calls per request)", Measure: func(tb testing.TB, r *lab.Result) string {
			ps := policies(tb, r)
			return fmt.Sprintf("(%.2f and %.2f calls per request)", ps["adaptive"].Amplification, ps["budget"].Amplification)
		}, Shown: "policies"},
		{In: "tour:collapse/3", Says: "recovers as soon as the spike ends", Measure: func(tb testing.TB, r *lab.Result) string {
			ps := policies(tb, r)
			if a, b := recovered(ps["adaptive"]), recovered(ps["budget"]); a != b {
				return a + " / " + b
			}
			return "recovers " + recovered(ps["adaptive"]) + " the spike ends"
		}, Shown: "policies"},

		// The policies' production defaults, each from the source the text names.
		{In: "help:policies", Says: "each request adds 0.1 token to a bucket of 5 and a retry takes 1 while more than 1 is left",
			Why: "Brooker's simulator's AdaptiveRetryFactory(0.1, 5) for his post (retry.DefaultAdaptive)"},
		{In: "help:policies", Says: "no retry while failed attempts exceed a tenth of the requests",
			Why: "Brooker's simulator's CircuitBreakerRetryFactory(…, 0.1) (retry.DefaultBreakerThreshold)"},
		{In: "help:policies", Says: "gRFC A6", Why: "the document's number"},
		{In: "help:policies", Says: "10 tokens, a failure takes 1, a success gives back 0.1, no retry at half or less",
			Why: "gRFC A6's example retryThrottling, maxTokens 10 and tokenRatio 0.1 (retry.DefaultGRPC)"},
		{In: "help:policies", Says: "500 tokens, a retry takes 5 (10 after a timeout), a success gives back 1",
			Why: "the standard retry mode's quota, as aws-sdk-go-v2 ships it up to v1.47.8 (retry.DefaultAWSConfig)"},
		{In: "help:policies", Says: "resilience4j's", Why: "a project's name"},
		{In: "help:policies", Says: "opens at 50% failures of the last 100 calls, then refuses every call for 60 s",
			Why: "resilience4j's CircuitBreakerConfig defaults (retry.DefaultCircuitConfig)"},
		{In: "help:policies", Says: "outnumber twice the accepted ones over two minutes",
			Why: "the SRE book's K = 2 and its two-minute window (retry.DefaultThrottleK, DefaultThrottleWindow)"},
		{In: "help:budget_ratio", Says: "of the last 10 s", Why: "Finagle's RetryBudget ttl, the lab's fixed window (retry.DefaultBudgetTTL)"},
		{In: "help:budget_ratio", Says: "Finagle's RetryBudget and Linkerd allow 20%, Envoy's retry budget 20% of the requests in flight",
			Why: "their defaults: Finagle's percentCanRetry 0.2 (as Linkerd's), Envoy's budget_percent 20"},
		{In: "help:budget_ratio", Says: "keeps a client's retries below 10% of its requests", Why: "the SRE book's per-client retry budget"},
		{In: "help:budget_floor", Says: "(Finagle's RetryBudget and Linkerd: 10)", Why: "Finagle's minRetriesPerSec default (as Linkerd's)"},

		// Definitions: the parameters' ranges and syntax, the theory's formulas, the verdicts.
		{In: "help:layers", Says: "1 is a client calling the service, 3 a client calling a tier calling a tier calling the service", Why: "the parameter's range, 1 to 3"},
		{In: "help:backoff", Says: "min(cap, base·2^n) before retry n", Why: "the definition of exponential backoff, the first retry being n = 1 (world.failed)"},
		{In: "help:service", Says: "(0.01 s per call in flight at 100/s)", Why: "1/capacity at a capacity of 100 a second: the 0.01 s × concurrency of Brooker's collapse simulator"},
		{In: "help:client_sweep", Says: "(10:1000:90 is 10, 100, 190, … 1,000)", Scenario: "policies=adaptive&client_sweep=10:1000:90",
			Measure: func(tb testing.TB, r *lab.Result) string {
				var cs []string
				for _, row := range r.Summary["client_sweep"].(map[string][]clientRow)["adaptive"] {
					cs = append(cs, labtest.Thousands(row.Clients))
				}
				if len(cs) < 4 {
					return strings.Join(cs, ", ")
				}
				return fmt.Sprintf("(10:1000:90 is %s, %s, %s, … %s)", cs[0], cs[1], cs[2], cs[len(cs)-1])
			}},
		{In: "chart:amplification", Says: "1 without retries and at most (N+1) per layer", Why: "the definition: one call per request without retries, N+1 attempts at most at each layer"},
		{In: "chart:amplification", Says: "No retries reads 0.97 to 1.03", Measure: func(tb testing.TB, r *lab.Result) string {
			lo, hi := seriesRange(tb, r, "amplification none")
			return fmt.Sprintf("%.2f to %.2f", lo, hi)
		}},
		{In: "chart:amplification", Says: "N retries up to 4.61", Measure: func(tb testing.TB, r *lab.Result) string {
			_, hi := seriesRange(tb, r, "amplification retries")
			return fmt.Sprintf("up to %.2f", hi)
		}},
		{In: "chart:sweep_amp", Says: "1 + x + … + x^N per layer", Why: "the theory's formula (Brooker's post, theory in run.go)"},
		{In: "chart:sweep_success", Says: "1 − x^(N+1) per layer", Why: "the theory's formula (theory in run.go)"},
		{In: "table:load", Says: "((N+1) per layer)", Why: "the definition of the column, every attempt of every layer"},
		{In: "table:policies", Says: "within 5% of their rate before the trigger (judged over windows that expect 1,600 of them)",
			Why: "the verdict's definition: goodput at least 95% of its level before the trigger over windows that expect goodTarget successes (TestQuotes checks the 1,600)"},
	}
}

// seriesRange returns the least and the greatest value of the named series.
func seriesRange(tb testing.TB, r *lab.Result, name string) (lo, hi float64) {
	tb.Helper()
	for _, s := range r.Series {
		if s.Name == name && len(s.Y) > 0 {
			return slices.Min(s.Y), slices.Max(s.Y)
		}
	}
	tb.Fatalf("no series %q", name)
	return 0, 0
}

// TestQuotes holds every figure the lab's texts state to its measurement.
func TestQuotes(t *testing.T) {
	heavy.Test(t)
	if testing.Short() {
		t.Skip("runs every tour step")
	}
	if err := Lab().CheckTours(); err != nil {
		t.Fatal(err)
	}
	labtest.CheckQuotes(t, Lab(), append(quotes(t), answerQuotes...))
	for _, tb := range Lab().View.Tables {
		if tb.ID == "policies" && !strings.Contains(tb.Help, labtest.Thousands(goodTarget)+" of them") {
			t.Errorf("the policies table's help does not quote goodTarget, %d: %q", goodTarget, tb.Help)
		}
	}
}

package e2e

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/param"
)

// rsStart is a small scenario of the retry-storm lab: no retries and N retries meet a 5-s
// outage on a service at 60% of its capacity; 30 s.
const rsStart = "/retrystorm?policies=none,retries&trigger_start=5s&trigger_length=5s&duration=30s"

// TestRetryStormPage opens the retry-storm lab: the page shows the numbers of the JSON API,
// one small chart per policy of the calls and goodput, and in the table, in words, that the
// service recovers without retries and stays collapsed with them; a change of trigger changes
// the address and the charts; and the failure sweep, off, turns on from its chart's note and
// draws each policy's points beside the theory.
func TestRetryStormPage(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+rsStart)
	matchesAPI(t, ctx, srv.URL, "retrystorm", "start")

	verdicts := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#table-policies tbody tr")].map((tr) =>
		[tr.cells[0].textContent.trim(), tr.cells[1].textContent.trim()]))`)
	if v := verdicts["No retries"]; !strings.HasPrefix(v, "recovered") {
		t.Errorf("No retries: the table says %q, want recovered…", v)
	}
	if v := verdicts["N retries"]; !strings.Contains(v, "metastable") {
		t.Errorf("N retries: the table says %q, want …metastable…", v)
	}
	titles := eval[[]string](t, ctx, `[...document.querySelectorAll("#chart-load .panel-title, #chart-load h3")].map((e) => e.textContent.trim())`)
	for _, want := range []string{"No retries", "N retries"} {
		if !slices.ContainsFunc(titles, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("the calls-and-goodput chart has no panel for %s: panels %q", want, titles)
		}
	}

	before := readState(t, ctx)
	prev := lastSent(t, ctx)
	selectOption(t, ctx, `#controls select[name="trigger"]`, "capacity")
	if waitSettled(t, ctx, prev) {
		t.Fatalf("run after the change failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
	}
	if got, ok := queryParam(t, ctx, "trigger"); !ok || got != "capacity" {
		t.Errorf("trigger in URL = %q (present %v), want capacity", got, ok)
	}
	if after := readState(t, ctx); after.Charts["load"] == before.Charts["load"] || after.Charts["in_flight"] == before.Charts["in_flight"] {
		t.Errorf("the charts did not change with the trigger")
	}
	matchesAPI(t, ctx, srv.URL, "retrystorm", "capacity drop")

	// The failure sweep, off: its chart says so and offers to turn it on.
	prev = lastSent(t, ctx)
	click(t, ctx, `#chart-sweep_amp .off-note button`)
	if waitSettled(t, ctx, prev) {
		t.Fatalf("run with the sweep on failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
	}
	if got, ok := queryParam(t, ctx, "sweep"); !ok || got == "off" {
		t.Errorf("sweep in URL = %q (present %v), want a range", got, ok)
	}
	names := eval[[]string](t, ctx, `Object.values(window.__playground.series).filter((s) => s.chart === "sweep_amp").map((s) => s.name)`)
	for _, want := range []string{"sweep_amp none", "sweep_amp retries", "theory amplification"} {
		if !slices.Contains(names, want) {
			t.Errorf("the sweep's chart lacks %q: it has %q", want, names)
		}
	}
	matchesAPI(t, ctx, srv.URL, "retrystorm", "failure sweep")
}

// TestMoveEveryLab moves, in every lab at its defaults, the first slider of the main controls
// by one step, as a hand does, and checks that every chart with points and every table on
// show is redrawn with
// numbers of the new value. How long that took is logged per lab — the figure the issue of
// the retry-storm lab asks to compare (`every panel … after …ms`); PLAYGROUND_MEASURE=1 moves
// three times per lab and logs the median. Nothing about the times is asserted.
func TestMoveEveryLab(t *testing.T) {
	srv := MustOpenServer(t)
	moves := 1
	if measuring {
		moves = 3
	}
	for _, l := range labs.Registry().All() {
		i := slices.IndexFunc(l.Params, func(sp param.Spec) bool {
			return sp.Group == "" && sp.Applies == nil && !sp.Random && (sp.Kind == param.Int || sp.Kind == param.Float || sp.Kind == param.Duration)
		})
		if i < 0 {
			continue
		}
		name := l.Params[i].Name
		t.Run(l.Name, func(t *testing.T) {
			var every []float64
			for m := range moves {
				ctx := MustOpenTab(t)
				hookTab(t, ctx)
				openLab(t, ctx, fmt.Sprintf("%s/%s?seed=%d", srv.URL, l.Name, 100+m)) // a seed no move before ran
				waitDrawn(t, ctx)
				shown := eval[[]string](t, ctx, `(() => { const p = window.__playground, v = p.state.spec.view;
					const drawn = (c) => Object.values(p.series).some((s) => s.chart === c.id && s.x.length > 0);
					return [...v.charts.filter(drawn).map((c) => "chart:" + c.id), ...(v.tables || []).filter((t) => p.summary[t.key] !== undefined).map((t) => "table:" + t.key)]; })()`)
				prev := lastSent(t, ctx)
				t0 := stepSlider(t, ctx, name, 1, true)
				if waitSettled(t, ctx, prev) {
					t.Fatalf("the moved scenario failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
				}
				waitDrawn(t, ctx)
				first := map[string]float64{}
				for _, r := range eval[[]redraw](t, ctx, `window.__playground.redraws`) {
					if _, ok := first[r.Panel]; !ok && r.T >= t0 && r.ID > prev {
						first[r.Panel] = r.T - t0
					}
				}
				last := 0.0
				for _, p := range shown {
					d, ok := first[p]
					if !ok {
						t.Errorf("%s: %s was never redrawn after %s moved", l.Name, p, name)
						continue
					}
					last = max(last, d)
				}
				every = append(every, last)
				if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
					t.Fatal(err)
				}
			}
			slices.Sort(every)
			t.Logf("%s: a move of %s at the defaults: every panel redrawn with the new value after %.0fms (median of %d)", l.Name, name, every[len(every)/2], len(every))
		})
	}
}

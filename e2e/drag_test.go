package e2e

import (
	"context"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The two browser tests of issue 7's "Feedback during a drag": a move of base shows data of
// the new value in every panel within feedbackBound, and a drag of base keeps the charts
// redrawing with newer values at least every feedbackBound and never shows "busy".
//
// Both time the page with its own clock (performance.now(), logged by js/probe.js at each
// redraw). Timing on a shared machine is noisy, so a failed measurement is taken once more;
// if it fails again while the page's own timers ran late (a 30 ms setInterval, calibrated
// during the measurement, fired more than overloadLate late at the 95th percentile or stalled
// once for more than overloadStall, or the hand's inputs could not keep their 30 ms pace), the machine, not the program,
// is what was measured and the test is skipped loudly with its figures.
const (
	feedbackBound = 150.0 // ms
	overloadLate  = 40.0  // ms: a 30 ms timer this late (p95) means the page's thread was starved
	overloadStall = 100.0 // ms: one stall this long takes two thirds of the bound by itself
)

// redraw is one panel redrawn by the page (probe.redraws): when, which panel ("chart:work",
// "table:strategies") and the request id of the run whose numbers it shows.
type redraw struct {
	T     float64 `json:"t"`
	Panel string  `json:"panel"`
	ID    int     `json:"id"`
}

type statusAt struct {
	T    float64 `json:"t"`
	Text string  `json:"text"`
}

// calibrateJS starts a 30 ms setInterval in the page that records how late each tick fires,
// observes the page's long tasks and times the charts' draw calls; calibrationJS stops it and
// returns what it recorded, in ms.
const (
	calibrateJS = `(() => { const c = (window.__calib = { late: [], long: [], draw: [] });
		const ch = window.__playground.charts, draw = ch.draw;
		if (!ch.timed) {
			ch.timed = true;
			ch.draw = function (...a) { const t = performance.now(); const r = draw.apply(this, a); window.__calib.draw.push(performance.now() - t); return r; };
		}
		let next = performance.now() + 30;
		c.timer = setInterval(() => { const now = performance.now(); c.late.push(Math.max(0, now - next)); next = now + 30; }, 30);
		c.obs = new PerformanceObserver((l) => { for (const e of l.getEntries()) c.long.push(e.duration); });
		try { c.obs.observe({ type: "longtask" }); } catch {} })()`
	calibrationJS = `(() => { const c = window.__calib; clearInterval(c.timer); c.obs.disconnect();
		return { late: c.late, long: c.long, draw: c.draw }; })()`
)

// calibration is what the page's clock said about the machine during a measurement: how late
// its 30 ms timer fired; its long tasks (over 50 ms of its main thread: count, total and
// longest); how long the charts' draw calls took, to tell a slow page from a starved one; and,
// for a drag, the median time between the hand's inputs.
type calibration struct {
	p50, p95, max      float64
	long               int
	longTotal, longest float64
	draws              int
	drawP95            float64
	inputGap           float64
}

func (c calibration) overloaded() bool {
	return c.p95 > overloadLate || c.max > overloadStall || c.inputGap > 1.5*30
}

func (c calibration) String() string {
	load, _ := os.ReadFile("/proc/loadavg")
	return fmt.Sprintf("30ms-timer lateness p50=%.1fms p95=%.1fms max=%.1fms; page long tasks %d, %.0fms in all, longest %.0fms; %d chart draws, p95 %.1fms each; loadavg %s",
		c.p50, c.p95, c.max, c.long, c.longTotal, c.longest, c.draws, c.drawP95, strings.TrimSpace(string(load)))
}

func readCalibration(tb testing.TB, ctx context.Context) calibration {
	tb.Helper()
	c := eval[struct{ Late, Long, Draw []float64 }](tb, ctx, calibrationJS)
	total := 0.0
	for _, d := range c.Long {
		total += d
	}
	return calibration{p50: percentile(c.Late, 50), p95: percentile(c.Late, 95), max: slices.Max(append(c.Late, 0)),
		long: len(c.Long), longTotal: total, longest: slices.Max(append(c.Long, 0)),
		draws: len(c.Draw), drawP95: percentile(c.Draw, 95)}
}

// measured is one measurement: whether it met the bound, its figures, and the calibration.
type measured struct {
	ok      bool
	figures string
	calib   calibration
}

// retryTiming runs measure, once more if it misses the bound. A second miss fails the test,
// unless the page's timers say the machine was overloaded: then the test is skipped, loudly.
func retryTiming(t *testing.T, measure func(t *testing.T) measured) {
	t.Helper()
	var m measured
	for try := 1; try <= 2; try++ {
		m = measure(t)
		t.Logf("try %d: %s; %s", try, m.figures, m.calib)
		if m.ok || t.Failed() {
			return
		}
	}
	if m.calib.overloaded() {
		t.Skipf("SKIPPING: MACHINE OVERLOADED, the %.0f ms bound was not measured: %s; %s", feedbackBound, m.figures, m.calib)
	}
	t.Errorf("missed the %.0f ms bound twice: %s; %s", feedbackBound, m.figures, m.calib)
}

// panels lists the page's panels as the probe names them: every chart and every table.
func panels(tb testing.TB, ctx context.Context) []string {
	tb.Helper()
	return eval[[]string](tb, ctx, `(() => { const v = window.__playground.state.spec.view;
		return [...v.charts.map((c) => "chart:" + c.id), ...(v.tables || []).map((t) => "table:" + t.key)]; })()`)
}

// stepSlider moves a slider by one position from where it is, as a hand does, and returns
// the page time of the input event.
func stepSlider(tb testing.TB, ctx context.Context, name string, by int, release bool) float64 {
	tb.Helper()
	return eval[float64](tb, ctx, fmt.Sprintf(`(() => { const s = document.querySelector(%q); const t = performance.now();
		s.value = Number(s.value) + %d; s.dispatchEvent(new Event("input", { bubbles: true }));
		if (%v) s.dispatchEvent(new Event("change", { bubbles: true }));
		return t; })()`, rangeSel(name), by, release))
}

// TestBaseMove moves base at the default scenario: within feedbackBound every panel has been
// redrawn with numbers of the new value, and the status then says the numbers are final.
func TestBaseMove(t *testing.T) {
	srv := MustOpenServer(t)
	step := 50 // slider positions: base ×1.94; a retry moves the other way, to a value no memo holds
	retryTiming(t, func(t *testing.T) measured {
		defer func() { step = -step }()
		ctx := MustOpenTab(t)
		hookTab(t, ctx)
		openLab(t, ctx, srv.URL+"/backoff")
		waitDrawn(t, ctx)
		all := panels(t, ctx)
		prev := lastSent(t, ctx)
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](calibrateJS)); err != nil {
			t.Fatal(err)
		}
		t0 := stepSlider(t, ctx, "base", step, true)
		if waitSettled(t, ctx, prev) {
			t.Fatalf("the moved scenario failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
		}
		waitDrawn(t, ctx)
		calib := readCalibration(t, ctx)
		id := lastSent(t, ctx)
		// The input and the release each send the new value (the release's run is the memo's).
		bases := eval[[]string](t, ctx, fmt.Sprintf(`[window.__playground.shownParams[%d]?.base, window.__playground.shownParams[%d]?.base, new URLSearchParams(location.search).get("base")].map(String)`, prev, id))
		if bases[0] == bases[1] {
			t.Fatalf("base before and after the move: %q", bases)
		}
		if bases[2] != bases[1] {
			t.Errorf("the URL says base=%s, the numbers shown are of base=%s", bases[2], bases[1])
		}

		redraws := eval[[]redraw](t, ctx, `window.__playground.redraws`)
		first := map[string]float64{}
		for _, r := range redraws {
			if r.T >= t0 && r.ID > prev {
				if _, ok := first[r.Panel]; !ok {
					first[r.Panel] = r.T - t0
				}
			}
		}
		var figs []string
		slowest, ok := 0.0, true
		for _, p := range all {
			d, drawn := first[p]
			if !drawn {
				t.Errorf("%s was never redrawn with the new value's numbers", p)
				continue
			}
			figs = append(figs, fmt.Sprintf("%s %.0fms", strings.SplitN(p, ":", 2)[1], d))
			slowest = max(slowest, d)
			ok = ok && d <= feedbackBound
		}
		// The status says when the numbers are final, once the new value's run is done. (It is
		// set as the done message arrives; the charts redraw at the next animation frame.)
		statuses := eval[[]statusAt](t, ctx, `window.__playground.statusTimes`)
		final, last := -1.0, statuses[len(statuses)-1].Text
		if t := statuses[len(statuses)-1].T; t >= t0 {
			final = t - t0
		}
		if final < 0 || !strings.Contains(last, "final") {
			t.Errorf("after the move the status never said final; statuses %v", statuses)
		}
		// When the first complete picture arrived from the server, before the page drew it.
		arrived := eval[float64](t, ctx, fmt.Sprintf(`(window.__e2e.pictures.find((p) => p.id > %d) || { t: NaN }).t`, prev)) - t0
		return measured{ok: ok, calib: calib,
			figures: fmt.Sprintf("base move %s → %s: first picture arrived after %.0fms, every panel shows the new value after %.0fms (%s); final after %.0fms, status %q",
				bases[0], bases[1], arrived, slowest, strings.Join(figs, ", "), final, last)}
	})
}

// TestDragBase drags base at clients=500 for 3 s, an input every 30 ms: once the first
// picture of a new value is shown, the headline charts are redrawn with a newer value at
// least every feedbackBound, and the status never says "busy".
func TestDragBase(t *testing.T) {
	const (
		inputs = 100 // 3 s at one every 30 ms
		every  = 30 * time.Millisecond
	)
	srv := MustOpenServer(t)
	retryTiming(t, func(t *testing.T) measured {
		ctx := MustOpenTab(t)
		hookTab(t, ctx)
		openLab(t, ctx, srv.URL+"/backoff?clients=500")
		waitDrawn(t, ctx)
		headline := eval[[]string](t, ctx, `window.__playground.state.spec.view.headline`)
		prev := lastSent(t, ctx)
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](calibrateJS)); err != nil {
			t.Fatal(err)
		}
		// The hand: an input every 30 ms, one slider position each (about 1.3% of base).
		var at []float64
		tick := time.NewTicker(every)
		for i := range inputs {
			<-tick.C
			at = append(at, stepSlider(t, ctx, "base", 1, i == inputs-1))
		}
		tick.Stop()
		start, end := at[0], at[len(at)-1]
		calib := readCalibration(t, ctx)
		// The last value's picture (the release re-sends it), drawn, so that the drag's tail is
		// measured too. Its redraw may be spared when the numbers equal those on show.
		last := lastSent(t, ctx)
		waitFor(t, ctx, fmt.Sprintf(`window.__e2e.pictures.some((p) => p.id >= %d)`, last-1))
		waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)

		var inGaps []float64
		for i := 1; i < len(at); i++ {
			inGaps = append(inGaps, at[i]-at[i-1])
		}
		calib.inputGap = percentile(inGaps, 50)
		redraws := eval[[]redraw](t, ctx, `window.__playground.redraws`)
		var gaps []float64
		firstPicture, worst, worstAt := math.Inf(1), 0.0, ""
		for _, chart := range headline {
			shown := prev // the newest run this chart has shown
			var times []float64
			for _, r := range redraws {
				if r.Panel == "chart:"+chart && r.T >= start && r.ID > shown {
					shown = r.ID
					times = append(times, r.T)
				}
			}
			if len(times) == 0 {
				t.Errorf("%s was never redrawn with a new value during the drag", chart)
				continue
			}
			firstPicture = min(firstPicture, times[0]-start)
			// Gaps between redraws showing newer values, up to the end of the drag.
			for i := 1; i < len(times) && times[i-1] < end; i++ {
				g := min(times[i], end) - times[i-1]
				gaps = append(gaps, g)
				if g > worst {
					worst, worstAt = g, fmt.Sprintf("%s at %.0fms into the drag", chart, times[i-1]-start)
				}
			}
			if times[len(times)-1] < end && end-times[len(times)-1] > worst {
				worst, worstAt = end-times[len(times)-1], chart+" at the end of the drag"
			}
			t.Logf("%s: %d redraws with a newer value during the drag", chart, len(times))
		}
		// The same gaps as the pictures arrived from the server, before the page drew them.
		type picture struct {
			ID int     `json:"id"`
			T  float64 `json:"t"`
		}
		var arrived []float64
		for _, p := range eval[[]picture](t, ctx, `window.__e2e.pictures`) {
			if p.ID > prev && p.T >= start {
				arrived = append(arrived, p.T)
			}
		}
		var serverGaps []float64
		for i := 1; i < len(arrived) && arrived[i-1] < end; i++ {
			serverGaps = append(serverGaps, min(arrived[i], end)-arrived[i-1])
		}
		if n := len(arrived); n > 0 && arrived[n-1] < end {
			serverGaps = append(serverGaps, end-arrived[n-1])
		}
		statuses := eval[[]statusAt](t, ctx, `window.__playground.statusTimes`)
		for _, s := range statuses {
			if s.T >= start && strings.Contains(strings.ToLower(s.Text), "busy") {
				t.Errorf("the status said %q %.0f ms into the drag", s.Text, s.T-start)
			}
		}
		if errs := eval[[]string](t, ctx, `window.__playground.errors`); len(errs) > 0 {
			t.Errorf("errors during the drag: %q", errs)
		}
		return measured{ok: worst <= feedbackBound, calib: calib,
			figures: fmt.Sprintf("drag of base at clients=500: %d inputs (gap p50=%.1fms max=%.1fms), %d requests; first picture after %.0fms; redraws with a newer value every p50=%.0fms p95=%.0fms max=%.0fms (%s); pictures arrived every p50=%.0fms p95=%.0fms max=%.0fms (%d pictures)",
				len(at), percentile(inGaps, 50), slices.Max(inGaps), last-prev, firstPicture, percentile(gaps, 50), percentile(gaps, 95), worst, worstAt,
				percentile(serverGaps, 50), percentile(serverGaps, 95), slices.Max(append(serverGaps, 0)), len(arrived))}
	})
}

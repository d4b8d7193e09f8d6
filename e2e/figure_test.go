package e2e

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/param"
)

// waitDrawn waits until the page has drawn the final numbers of the scenario it asked for:
// the status says so and no redraw is queued.
func waitDrawn(tb testing.TB, ctx context.Context) {
	tb.Helper()
	waitFor(tb, ctx, `(() => { const p = window.__playground; return !!p && p.state.run.phase === "done" && !p.state.stale() && !document.getElementById("lab").classList.contains("stale") && p.draws > 0 && document.querySelectorAll(".plot canvas").length > 0; })()`)
	// One more animation frame, so that the last redraw is on screen.
	waitFor(tb, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
}

// openGroups opens the folded groups of controls (Advanced), as a person would to reach them.
func openGroups(tb testing.TB, ctx context.Context) {
	tb.Helper()
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelectorAll("#controls details").forEach((d) => { d.open = true; })`)); err != nil {
		tb.Fatal(err)
	}
}

// moveSlider moves a slider to position pos as a pointer does: an input event, and a change
// event when release is set (the hand lets go).
func moveSlider(tb testing.TB, ctx context.Context, name string, pos float64, release bool) {
	tb.Helper()
	js := fmt.Sprintf(`(() => { const s = document.querySelector(%q); s.value = %v;
		s.dispatchEvent(new Event("input", { bubbles: true }));
		if (%v) s.dispatchEvent(new Event("change", { bubbles: true })); })()`, rangeSel(name), pos, release)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		tb.Fatal(err)
	}
}

// TestDragShowsStaleLabelled drags the clients slider: while the numbers on show are of an
// older value the page says so and which, and once the run of the last value is final the
// label is gone and the headings name the new value.
func TestDragShowsStaleLabelled(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=20&sweep=10:90:40")
	waitDrawn(t, ctx)
	prev := lastSent(t, ctx)
	for _, n := range []float64{120, 160, 200, 240} {
		moveSlider(t, ctx, "clients", n, n == 240)
	}
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	log := eval[[]string](t, ctx, `window.__playground.staleLog`)
	found := false
	for _, s := range log {
		if strings.Contains(s, "Showing Clients = 100") && strings.Contains(s, "computing Clients = ") {
			found = true
		}
	}
	if !found {
		t.Errorf("during the drag the page never said it showed Clients = 100 while computing another; notes: %q", log)
	}
	// Refinement is reported as it goes ("Refining: 20 of 20 trials…"), then the final state.
	statuses := eval[[]string](t, ctx, `window.__playground.statusLog`)
	refining := slices.ContainsFunc(statuses, func(s string) bool {
		return strings.HasPrefix(s, "Refining: ") && strings.HasSuffix(s, " of 20 trials…")
	})
	if !refining || !strings.Contains(statuses[len(statuses)-1], "final") {
		t.Errorf("statuses = %q, want refinement reported as N of 20 trials and a final state last", statuses)
	}
	type final struct {
		Stale, Hidden bool
		Note, Table   string
		Timeline      string
	}
	f := eval[final](t, ctx, `({ Stale: document.getElementById("lab").classList.contains("stale"),
		Hidden: document.getElementById("stale").hidden, Note: document.getElementById("stale").textContent,
		Table: document.getElementById("title-table-summary").textContent,
		Timeline: document.getElementById("title-timeline").textContent })`)
	if f.Stale || !f.Hidden || f.Note != "" {
		t.Errorf("final state still labelled stale: %+v", f)
	}
	if f.Table != "At N = 240" || !strings.HasSuffix(f.Timeline, "N = 240") {
		t.Errorf("headings = %q, %q; want them to name N = 240", f.Table, f.Timeline)
	}
	if got, _ := queryParam(t, ctx, "clients"); got != "240" {
		t.Errorf("clients in URL = %q, want 240", got)
	}
}

// TestInvalidValuesNeverInURL types bad values into two fields: both are reported at once at
// their controls, in plain words; neither enters the address; fixing one clears only its
// message, fixing both runs the scenario.
func TestInvalidValuesNeverInURL(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=10&sweep=off")
	good := eval[string](t, ctx, `location.href`)
	prev := lastSent(t, ctx)
	typeValue(t, ctx, textSel("clients"), "-5")
	typeValue(t, ctx, textSel("base"), "fast")
	waitFor(t, ctx, `document.getElementById("err-clients").textContent !== "" && document.getElementById("err-base").textContent !== ""`)
	if href := eval[string](t, ctx, `location.href`); href != good {
		t.Errorf("location.href = %q after invalid values, want the last valid %q", href, good)
	}
	if n := lastSent(t, ctx); n != prev {
		t.Errorf("invalid values were sent (request %d after %d)", n, prev)
	}
	if s := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.Contains(s, "Clients") || !strings.Contains(s, "Base") {
		t.Errorf("status = %q, want it to name both fields to fix", s)
	}
	typeValue(t, ctx, textSel("clients"), "50")
	waitFor(t, ctx, `document.getElementById("err-clients").textContent === ""`)
	if msg := eval[string](t, ctx, `document.getElementById("err-base").textContent`); msg == "" {
		t.Errorf("base's message went when clients was fixed")
	}
	if href := eval[string](t, ctx, `location.href`); href != good {
		t.Errorf("location.href = %q with base still invalid, want %q", href, good)
	}
	prev = lastSent(t, ctx)
	typeValue(t, ctx, textSel("base"), "10ms")
	if waitSettled(t, ctx, prev) {
		t.Fatalf("the fixed scenario failed: %v", eval[[]string](t, ctx, `window.__playground.errors`))
	}
	if s := eval[string](t, ctx, `location.search`); s != "?clients=50&base=10ms&trials=10&sweep=off" {
		t.Errorf("search = %q after fixing both", s)
	}
}

// TestBackUndoesMoves releases a slider twice: Back restores the first release's URL and
// numbers, and Back again the scenario the page was opened with; Forward redoes.
func TestBackUndoesMoves(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+startURL)
	a := readState(t, ctx)
	step := func(pos float64) state {
		prev := lastSent(t, ctx)
		moveSlider(t, ctx, "clients", pos-5, false)
		moveSlider(t, ctx, "clients", pos, true)
		waitSettled(t, ctx, prev)
		return readState(t, ctx)
	}
	b := step(60)
	c := step(80)
	if b.Search == a.Search || c.Search == b.Search {
		t.Fatalf("moves did not change the URL: %q %q %q", a.Search, b.Search, c.Search)
	}
	nav := func(js string, want state) {
		t.Helper()
		prev := lastSent(t, ctx)
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, fmt.Sprintf(`location.search === %q`, want.Search))
		waitSettled(t, ctx, prev)
		got := readState(t, ctx)
		if got.Raw != want.Raw || !mapsEqual(got.Charts, want.Charts) {
			t.Errorf("%s: numbers differ from those first shown at %s", js, want.Search)
		}
		if !slices.Equal(got.Controls, want.Controls) {
			t.Errorf("%s: controls = %q, want %q", js, got.Controls, want.Controls)
		}
	}
	nav(`history.back()`, b)
	nav(`history.back()`, a)
	nav(`history.forward()`, b)
}

// TestSlidersAnnounceUnits checks every slider tells a screen reader its value with its unit,
// and keeps doing so as it moves.
func TestSlidersAnnounceUnits(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	texts := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#controls input[type=range]")].map((s) => [s.dataset.for, s.getAttribute("aria-valuetext") || ""]))`)
	want := map[string]string{"base": "5 ms", "cap": "2 s", "clients": "100", "latency_mean": "10 ms", "multiplier": "2"}
	for name, w := range want {
		if texts[name] != w {
			t.Errorf("%s: aria-valuetext = %q, want %q", name, texts[name], w)
		}
	}
	for name, text := range texts {
		if text == "" {
			t.Errorf("%s: no aria-valuetext", name)
		}
	}
	moveSlider(t, ctx, "cap", 1000, true)
	if got := eval[string](t, ctx, `document.querySelector('input[data-for="cap"]').getAttribute("aria-valuetext")`); got != "24 h" {
		t.Errorf("cap at its maximum: aria-valuetext = %q, want 24 h", got)
	}
	moveSlider(t, ctx, "base", 0, true)
	if got := eval[string](t, ctx, `document.querySelector('input[data-for="base"]').getAttribute("aria-valuetext")`); got != "100 µs" {
		t.Errorf("base at its minimum: aria-valuetext = %q, want 100 µs", got)
	}
}

// TestChartsAreNamed checks every chart, panel, table and the progress bar has an accessible
// name, and every chart a text summary.
func TestChartsAreNamed(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5")
	waitDrawn(t, ctx)
	missing := eval[[]string](t, ctx, `(() => {
		const out = [];
		const named = (el) => { const ids = (el.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean);
			return (el.getAttribute("aria-label") || ids.map((i) => document.getElementById(i)?.textContent || "").join("")).trim(); };
		for (const s of document.querySelectorAll("section.chart")) {
			if (!named(s)) out.push("section " + s.id);
			const plots = s.querySelectorAll(".plot");
			if (!plots.length) out.push("no plot in " + s.id);
			for (const p of plots) {
				if (p.getAttribute("role") !== "img" || !named(p)) out.push("plot in " + s.id);
				const d = document.getElementById(p.getAttribute("aria-describedby") || "");
				if (!d || d.textContent.trim().length < 20) out.push("summary of a plot in " + s.id);
			}
		}
		for (const t of document.querySelectorAll("table")) if (!named(t)) out.push("table");
		if (!named(document.getElementById("progress"))) out.push("progress");
		return out; })()`)
	if len(missing) > 0 {
		t.Errorf("without an accessible name or summary: %q", missing)
	}
}

// visibleCharts counts the charts wholly inside the viewport that have a drawn plot.
const visibleCharts = `[...document.querySelectorAll("section.chart")].filter((s) => {
	const r = s.getBoundingClientRect();
	return s.querySelector(".plot canvas") && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
}).map((s) => s.id)`

// TestChartsFirst checks the page's layout at a projector's 1280×720: at least two charts are
// wholly on the first screen; and on a 390 px phone a chart stays in view while a slider
// further down the page moves.
func TestChartsFirst(t *testing.T) {
	srv := MustOpenServer(t)
	t.Run("1280x720", func(t *testing.T) {
		ctx := MustOpenTab(t)
		hookTab(t, ctx)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
			t.Fatal(err)
		}
		openLab(t, ctx, srv.URL+"/backoff")
		waitDrawn(t, ctx)
		if ids := eval[[]string](t, ctx, visibleCharts); len(ids) < 2 {
			t.Errorf("charts wholly on the first screen: %q, want at least two", ids)
		}
	})
	t.Run("390px", func(t *testing.T) {
		ctx := MustOpenTab(t)
		hookTab(t, ctx)
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
			t.Fatal(err)
		}
		openLab(t, ctx, srv.URL+"/backoff?trials=10&sweep=10:90:40")
		waitDrawn(t, ctx)
		// Scroll the last main slider to the middle of the screen, as a thumb would.
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('input[data-for="cap"]').scrollIntoView({ block: "center" })`)); err != nil {
			t.Fatal(err)
		}
		prev := lastSent(t, ctx)
		moveSlider(t, ctx, "cap", 300, false)
		inView := eval[bool](t, ctx, `(() => { const r = document.querySelector('input[data-for="cap"]').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()`)
		if !inView {
			t.Fatalf("the cap slider is not in view")
		}
		if ids := eval[[]string](t, ctx, visibleCharts); len(ids) < 1 {
			t.Errorf("no chart wholly in view while the cap slider moves")
		}
		moveSlider(t, ctx, "cap", 300, true)
		waitSettled(t, ctx, prev)
		waitDrawn(t, ctx)
		if ids := eval[[]string](t, ctx, visibleCharts); len(ids) < 1 {
			t.Errorf("no chart wholly in view after the cap slider moved")
		}
	})
}

// TestSmallMultiplesSteady switches a strategy on and off: the writes-over-time panels stay in
// the declared order of strategies (whoever switched what on), share one x axis or say why not, and the
// styles of series do not depend on the selection.
func TestSmallMultiplesSteady(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?strategies=full,none,exponential&trials=5&sweep=off")
	waitDrawn(t, ctx)
	type panels struct {
		Titles []string
		XMin   []float64
		XMax   []float64
		Swatch map[string]string
	}
	const read = `(() => { const c = window.__playground.charts; const out = { Titles: [], XMin: [], XMax: [], Swatch: {} };
		for (const h of document.querySelectorAll("#chart-timeline .plot")) out.Titles.push(h.querySelector(".panel-title").textContent.split(" (")[0]);
		for (const [k, p] of c.plots) if (k.startsWith("timeline\u0000")) { out.XMin.push(p.u.scales.x.min); out.XMax.push(p.u.scales.x.max); }
		for (const th of document.querySelectorAll("#table-summary tbody th")) out.Swatch[th.textContent] = th.querySelector(".swatch").style.borderTopColor;
		return out; })()`
	before := eval[panels](t, ctx, read)
	if want := []string{"No backoff", "Exponential", "Full jitter"}; !slices.Equal(before.Titles, want) {
		t.Errorf("panels = %q, want the declared order %q", before.Titles, want)
	}
	prev := lastSent(t, ctx)
	click(t, ctx, `#controls input[type=checkbox][name="strategies"][value="constant"]`)
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	after := eval[panels](t, ctx, read)
	if want := []string{"No backoff", "Constant", "Exponential", "Full jitter"}; !slices.Equal(after.Titles, want) {
		t.Errorf("panels after switching constant on = %q, want %q", after.Titles, want)
	}
	// Panels share an x axis unless one would squeeze some into a sliver
	// (TestWritesOverTimeFollowsData); then the chart's note says so.
	note := eval[string](t, ctx, `document.querySelector("#chart-timeline .chart-note").textContent`)
	for i := range after.XMin {
		if (after.XMin[i] != after.XMin[0] || after.XMax[i] != after.XMax[0]) && !strings.Contains(note, "axes differ between panels") {
			t.Errorf("panel %d has x axis %v..%v, panel 0 %v..%v, and the chart's note (%q) does not say the axes differ", i, after.XMin[i], after.XMax[i], after.XMin[0], after.XMax[0], note)
		}
	}
	for k, v := range before.Swatch {
		if after.Swatch[k] != v {
			t.Errorf("%s changed colour from %s to %s when another strategy was switched on", k, v, after.Swatch[k])
		}
	}
}

// TestFormatting checks how the page writes durations, percentages and ticks.
func TestFormatting(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	waitDrawn(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`import("/static/js/format.js").then((m) => { window.__fmt = m; })`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__fmt`)
	got := eval[map[string]string](t, ctx, `(() => { const f = window.__fmt; return {
		"5082228ms": f.duration(5082228), "90000ms": f.duration(90000), "5.2ms": f.duration(5.2), "0.297ms": f.duration(0.297),
		"-99.8%": f.percent(-99.8, 0), "-45.3%": f.percent(-45.3, 0), "0.2%": f.percent(0.2, 0), "100%": f.percent(100, 0),
		"go 90s": f.goDuration(90000), "go 2h": f.goDuration(7200000), "go 5.2ms": f.goDuration(5.2) }; })()`)
	want := map[string]string{
		"5082228ms": "84.7 min", "90000ms": "90 s", "5.2ms": "5.2 ms", "0.297ms": "297 µs",
		"-99.8%": "−99.8%", "-45.3%": "−45%", "0.2%": "0.2%", "100%": "100%",
		"go 90s": "1m30s", "go 2h": "2h", "go 5.2ms": "5.2ms",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
	// Integer axes tick at whole numbers only: the retry schedule's retry n.
	ticks := eval[[]float64](t, ctx, `[...window.__playground.charts.plots].filter(([k]) => k.startsWith("schedule\u0000")).flatMap(([, p]) => p.u.axes[0]._splits || [])`)
	if len(ticks) == 0 {
		t.Fatal("no ticks on the retry schedule's x axis")
	}
	for _, v := range ticks {
		if v != float64(int64(v)) {
			t.Errorf("retry axis has a tick at %v", v)
		}
	}
}

// TestCurvesStayDuringRun moves base (the sweep is recomputed): at every animation frame until
// the new run is final, the work chart keeps all its points and its y axis never shrinks.
func TestCurvesStayDuringRun(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=30")
	waitDrawn(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`(() => {
		const p = window.__playground; p.watch = [];
		const tick = () => {
			const work = Object.values(p.series).filter((s) => s.chart === "work");
			const plot = [...p.charts.plots].find(([k]) => k.startsWith("work\u0000"));
			p.watch.push({ n: Math.min(...work.map((s) => s.x.length)), ymax: plot ? plot[1].u.scales.y.max : 0, final: p.state.run.phase === "done" && !p.state.stale() });
			if (!p.stopWatch) requestAnimationFrame(tick);
		};
		requestAnimationFrame(tick); })()`)); err != nil {
		t.Fatal(err)
	}
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "base", 600, true)
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	type frame struct {
		N     int
		YMax  float64
		Final bool
	}
	frames := eval[[]frame](t, ctx, `(() => { const p = window.__playground; p.stopWatch = true; return p.watch.map((f) => ({ N: f.n, YMax: f.ymax, Final: f.final })); })()`)
	points := 0
	for _, f := range frames {
		points = max(points, f.N)
	}
	var last float64
	for i, f := range frames {
		if f.Final {
			break
		}
		if f.N < points {
			t.Errorf("frame %d: the work chart shows %d points per curve, it had %d", i, f.N, points)
		}
		if f.YMax < last {
			t.Errorf("frame %d: the y axis shrank from %v to %v before the run was final", i, last, f.YMax)
		}
		last = f.YMax
	}
	t.Logf("%d frames watched, %d points per curve", len(frames), points)
}

// TestFollowing sets the page to follow a scenario from outside (a room's presenter): the
// controls show it but take no input, and the numbers are the scenario's.
func TestFollowing(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	prev := lastSent(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__playground.setFollowing(true); window.__playground.setScenario({ clients: "70", trials: "5", sweep: "off" }, "server")`)); err != nil {
		t.Fatal(err)
	}
	waitSettled(t, ctx, prev)
	if s := eval[string](t, ctx, `location.search`); s != "?clients=70&trials=5&sweep=off" {
		t.Errorf("search = %q, want the presenter's scenario", s)
	}
	if v := textValue(t, ctx, "clients"); v != "70" {
		t.Errorf("clients box = %q, want 70", v)
	}
	if !eval[bool](t, ctx, `document.getElementById("controls").inert`) {
		t.Errorf("a follower's controls take input")
	}
	if got, want := pageSummary(t, ctx), apiSummary(t, srv.URL, "backoff", "?clients=70&trials=5&sweep=off"); got != want {
		t.Errorf("follower's numbers differ from the API's")
	}
}

// TestServerErrorAtMovedControl types a client count the server refuses for its work budget:
// the message shows at the control the person changed and at the parameter it names (opening
// the folded group that holds it), and the address keeps the last scenario that ran.
func TestServerErrorAtMovedControl(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?clients=10&trials=1000&sweep=off")
	good := eval[string](t, ctx, `location.href`)
	prev := lastSent(t, ctx)
	typeValue(t, ctx, textSel("clients"), "1000")
	if !waitSettled(t, ctx, prev) {
		t.Fatalf("clients=1000 with trials=1000 ran; the test needs a scenario over the work budget")
	}
	type shown struct {
		Clients, Trials, Status, Href string
		Open                          bool
	}
	s := eval[shown](t, ctx, `({ Clients: document.getElementById("err-clients").textContent,
		Trials: document.getElementById("err-trials").textContent, Status: document.getElementById("status").textContent,
		Href: location.href, Open: document.getElementById("err-trials").closest("details").open })`)
	if !strings.Contains(s.Clients, "lower trials") || !strings.Contains(s.Trials, "lower trials") {
		t.Errorf("messages at clients %q and trials %q, want both to say what to lower", s.Clients, s.Trials)
	}
	if !s.Open {
		t.Errorf("the group holding trials stayed folded with an error in it")
	}
	if s.Href != good {
		t.Errorf("location.href = %q after a refused scenario, want the last that ran, %q", s.Href, good)
	}
	if !strings.HasPrefix(s.Status, "Not run") {
		t.Errorf("status = %q", s.Status)
	}
}

// visiblePlots lists the charts and small-multiple panels wholly inside the viewport.
const visiblePlots = `[...document.querySelectorAll(".plot")].filter((p) => {
	const r = p.getBoundingClientRect();
	return p.querySelector("canvas") && r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
}).map((p) => p.getAttribute("aria-label"))`

// namedJS lists charts, panels, tables and the progress bar without an accessible name, and
// plots without a text summary.
const namedJS = `(() => {
	const out = [];
	const named = (el) => { const ids = (el.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean);
		return (el.getAttribute("aria-label") || ids.map((i) => document.getElementById(i)?.textContent || "").join("")).trim(); };
	for (const s of document.querySelectorAll("section.chart")) {
		if (!named(s)) out.push("section " + s.id);
		for (const p of s.querySelectorAll(".plot")) {
			if (p.getAttribute("role") !== "img" || !named(p)) out.push("plot in " + s.id);
			const d = document.getElementById(p.getAttribute("aria-describedby") || "");
			if (!d || d.textContent.trim().length < 20) out.push("summary of a plot in " + s.id);
		}
	}
	for (const t of document.querySelectorAll("table")) if (!named(t)) out.push("table");
	if (!named(document.getElementById("progress"))) out.push("progress");
	return out; })()`

// TestEveryLabPage checks, for every lab of the registry, what the page promises whatever the
// lab: the first screen at 1280×720 shows at least two whole charts (a small-multiple panel
// counts as one) below a navigation of one line, every chart and table is named, every slider announces its value with its
// unit, a moved slider labels the old picture as such until the new one is final, an invalid
// value stays out of the address, and Back undoes a release.
func TestEveryLabPage(t *testing.T) {
	srv := MustOpenServer(t)
	for _, l := range labs.Registry().All() {
		t.Run(l.Name, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
				t.Fatal(err)
			}
			openLab(t, ctx, srv.URL+"/"+l.Name)
			waitDrawn(t, ctx)
			if ids := eval[[]string](t, ctx, visiblePlots); len(ids) < 2 {
				t.Errorf("charts wholly on the first screen at 1280x720: %q, want at least two", ids)
			}
			if missing := eval[[]string](t, ctx, namedJS); len(missing) > 0 {
				t.Errorf("without an accessible name or summary: %q", missing)
			}
			if lines := eval[int](t, ctx, `new Set([...document.querySelectorAll(".top nav a")].map((a) => Math.round(a.getBoundingClientRect().top))).size`); lines != 1 {
				t.Errorf("the navigation between the labs takes %d lines at 1280x720, want one", lines)
			}
			texts := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#controls input[type=range]")].map((s) => [s.dataset.for, s.getAttribute("aria-valuetext") || ""]))`)
			var slider *param.Spec
			for _, sp := range l.Params {
				text, ok := texts[sp.Name]
				if !ok {
					continue
				}
				if text == "" {
					t.Errorf("%s: no aria-valuetext", sp.Name)
				}
				if sp.Kind == param.Duration && !regexp.MustCompile(`\d (µs|ms|s|min|h)$`).MatchString(text) {
					t.Errorf("%s: aria-valuetext %q lacks a time unit", sp.Name, text)
				}
				if sp.Unit != "" && sp.Kind != param.Duration && !strings.HasSuffix(text, sp.Unit) {
					t.Errorf("%s: aria-valuetext %q lacks its unit %q", sp.Name, text, sp.Unit)
				}
				if slider == nil && (sp.Kind == param.Int || sp.Kind == param.Float) && sp.Group == "" {
					slider = &sp
				}
			}
			if slider == nil {
				t.Skip("no numeric slider among the main controls")
			}

			// The moves in a tab of their own (each tab has its own time limit, and the default
			// scenarios are slow under the race detector).
			ctx = MustOpenTab(t)
			hookTab(t, ctx)
			openLab(t, ctx, srv.URL+"/"+l.Name)

			// Where the slider stands at the scenario's value, before anything is typed.
			at := eval[float64](t, ctx, fmt.Sprintf(`Number(document.querySelector(%q).value)`, rangeSel(slider.Name)))

			// An invalid value: reported at its control, never sent, never in the address.
			good := eval[string](t, ctx, `location.href`)
			prev := lastSent(t, ctx)
			typeValue(t, ctx, textSel(slider.Name), strconv.FormatFloat(slider.Max*2+1, 'f', -1, 64))
			waitFor(t, ctx, fmt.Sprintf(`document.getElementById("err-%s").textContent !== ""`, slider.Name))
			if href := eval[string](t, ctx, `location.href`); href != good {
				t.Errorf("location.href = %q after an invalid %s, want %q", href, slider.Name, good)
			}
			if n := lastSent(t, ctx); n != prev {
				t.Errorf("an invalid value was sent")
			}

			// Two releases of the slider, then Back.
			step := func(pos float64) state {
				prev := lastSent(t, ctx)
				moveSlider(t, ctx, slider.Name, pos, true)
				waitSettled(t, ctx, prev)
				waitDrawn(t, ctx)
				return readState(t, ctx)
			}
			// Positions on the slider itself (a logarithmic one has its own scale).
			lo := eval[float64](t, ctx, fmt.Sprintf(`Number(document.querySelector(%q).min)`, rangeSel(slider.Name)))
			hi := eval[float64](t, ctx, fmt.Sprintf(`Number(document.querySelector(%q).max)`, rangeSel(slider.Name)))
			// Two positions other than the one of the scenario's value (a lab's default may sit at
			// a third of its range: retries N = 3 of 0–10), and other than each other.
			p1, p2 := math.Round(lo+(hi-lo)/3), math.Round(lo+(hi-lo)/2)
			if p1 == at {
				p1++
			}
			if p2 == at || p2 == p1 {
				p2 = max(p1, at) + 1
			}
			first := step(p1)
			second := step(p2)
			if first.Search == second.Search {
				t.Fatalf("two releases gave one URL %q", first.Search)
			}
			if log := eval[[]string](t, ctx, `window.__playground.staleLog`); !slices.ContainsFunc(log, func(s string) bool { return strings.HasPrefix(s, "Showing ") }) {
				t.Errorf("a moved slider never labelled the old picture; notes %q", log)
			}
			if eval[bool](t, ctx, `document.getElementById("lab").classList.contains("stale")`) {
				t.Errorf("the final picture is labelled stale")
			}
			prev = lastSent(t, ctx)
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`history.back()`)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, fmt.Sprintf(`location.search === %q`, first.Search))
			waitSettled(t, ctx, prev)
			if got := readState(t, ctx); got.Raw != first.Raw {
				t.Errorf("Back: numbers differ from those first shown at %s", first.Search)
			}

			// On a 390 px phone a chart stays in view while the slider moves.
			phone := MustOpenTab(t)
			hookTab(t, phone)
			if err := chromedp.Do(phone, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile)); err != nil {
				t.Fatal(err)
			}
			openLab(t, phone, srv.URL+"/"+l.Name)
			waitDrawn(t, phone)
			if err := chromedp.Do(phone, chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`document.querySelector(%q).scrollIntoView({ block: "end" })`, rangeSel(slider.Name)))); err != nil {
				t.Fatal(err)
			}
			moveSlider(t, phone, slider.Name, math.Round(lo+(hi-lo)/3), false)
			if ids := eval[[]string](t, phone, visiblePlots); len(ids) < 1 {
				t.Errorf("390 px: no chart wholly in view while %s moves", slider.Name)
			}
		})
	}
}

// TestFragmentKept opens a link with a fragment (a tour step) and a query that is not
// canonical: the address becomes canonical and keeps the fragment, also after a move.
func TestFragmentKept(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?sweep=10:190:10&trials=5&clients=0100#tour=jitter/2")
	if got := eval[string](t, ctx, `location.search + location.hash`); got != "?trials=5#tour=jitter/2" {
		t.Errorf("address = %q, want the canonical query and the fragment", got)
	}
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "clients", 60, true)
	waitSettled(t, ctx, prev)
	if got := eval[string](t, ctx, `location.search + location.hash`); got != "?clients=60&trials=5#tour=jitter/2" {
		t.Errorf("address after a move = %q", got)
	}
}

// TestReadout points at the work chart: a readout shows x and each strategy's value there.
func TestReadout(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&strategies=none,full")
	waitDrawn(t, ctx)
	text := eval[string](t, ctx, `(() => { const [, p] = [...window.__playground.charts.plots].find(([k]) => k.startsWith("work\u0000"));
		p.u.setCursor({ left: p.u.valToPos(100, "x"), top: 20 });
		const tip = p.holder.querySelector(".readout"); return tip && !tip.hidden ? tip.innerText : ""; })()`)
	for _, want := range []string{"clients 100", "No backoff", "Full jitter"} {
		if !strings.Contains(text, want) {
			t.Errorf("readout %q lacks %q", text, want)
		}
	}
}

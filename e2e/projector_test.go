package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs"
)

// projected is what projector view shows, read from the page.
type projected struct {
	Presenting bool
	Shown      []string // ids of the charts and tables visible
	Controls   []string // parameters whose controls are visible
	Height     float64  // the projected section's height, px
	Bottom     float64  // how far its bottom lies below the top of the screen, px
	Screen     float64  // the screen's height, px
	Axes       []projAxis
	Lines      []float64 // line widths of the projected chart's series, CSS px
	TableFont  float64   // a projected table's cell font size, px
}

// projAxis is one axis of a projected chart's panel: its tick labels and their font size.
type projAxis struct {
	Panel  int
	Side   string
	Labels []string
	Font   float64
}

const readProjected = `(() => {
	const vis = (e) => e.checkVisibility();
	const shown = [...document.querySelectorAll("#lab .chart, #lab .table")].filter(vis).map((e) => e.id);
	const out = { Presenting: document.documentElement.classList.contains("presenting"), Shown: shown,
		Controls: [...document.querySelectorAll("#controls .control")].filter(vis).map((c) => c.dataset.param),
		Height: 0, Axes: [], Lines: [], TableFont: 0 };
	const sec = shown.length === 1 ? document.getElementById(shown[0]) : null;
	if (!sec) return out;
	out.Height = sec.getBoundingClientRect().height;
	out.Bottom = sec.getBoundingClientRect().bottom;
	out.Screen = innerHeight;
	if (sec.classList.contains("table")) {
		const td = sec.querySelector("tbody td, tbody th, thead th"); // an empty table: its header
		out.TableFont = td ? parseFloat(getComputedStyle(td).fontSize) : 0;
		return out;
	}
	const id = sec.dataset.chart;
	let panel = 0;
	for (const [k, p] of window.__playground.charts.plots) {
		if (k.split("\u0000")[0] !== id) continue;
		p.u.axes.forEach((a, i) => {
			if (!a.show) return;
			const labels = (a._values || []).filter((v) => v !== "" && v != null);
			if (labels.length) out.Axes.push({ Panel: panel, Side: i === 0 ? "x" : "y", Labels: labels.map(String), Font: a.font[2] });
		});
		p.u.series.slice(1).forEach((s) => { if (s.show && s.width) out.Lines.push(s.width); });
		panel++;
	}
	return out;
})()`

// TestProjectorEveryChart projects every chart and table of every lab with its "Project this"
// button at 1920×1080: projector view shows that one alone; a chart fills the screen and fits
// on it, its tick labels are at least 16 px and at most 12 per axis, its lines at least 3 px
// thick; a table's cells are at least 16 px. With PLAYGROUND_SCREENSHOT=1 it saves each view in
// $TMPDIR/projector-*.png to look at.
func TestProjectorEveryChart(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080)); err != nil {
		t.Fatal(err)
	}
	for _, l := range labs.Registry().All() {
		page, ok := chartPages[l.Name]
		if !ok {
			t.Fatalf("no light scenario of lab %s in chartPages", l.Name)
		}
		openLab(t, ctx, srv.URL+page)
		waitDrawn(t, ctx)
		var ids []string
		for _, c := range l.View.Charts {
			ids = append(ids, "chart-"+c.ID)
		}
		for _, tb := range l.View.Tables {
			ids = append(ids, "table-"+tb.ID)
		}
		for _, id := range ids {
			t.Run(l.Name+"/"+id, func(t *testing.T) {
				if eval[bool](t, ctx, `document.documentElement.classList.contains("presenting")`) {
					pressKey(t, ctx, kb.Escape)
					waitFor(t, ctx, `!document.documentElement.classList.contains("presenting")`)
				}
				// A section with nothing to show in this scenario says why and offers nothing to
				// project (TestNothingEmptyShown).
				if eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).classList.contains("empty")`, id)) {
					if eval[bool](t, ctx, fmt.Sprintf(`document.getElementById("project-%s").checkVisibility()`, id)) {
						t.Errorf("%s has nothing to show but a visible Project button", id)
					}
					t.Skipf("%s has nothing to show in this scenario: %s", id, eval[string](t, ctx, fmt.Sprintf(`document.querySelector("#%s .empty-note").textContent`, id)))
				}
				project(t, ctx, id) // redrawn at its full size
				v := eval[projected](t, ctx, readProjected)
				if !slices.Equal(v.Shown, []string{id}) {
					t.Fatalf("projector view shows %q, want %s alone", v.Shown, id)
				}
				if len(v.Controls) == 0 || len(v.Controls) > 3 {
					t.Errorf("%d controls beside it (%q), want one to three", len(v.Controls), v.Controls)
				}
				if os.Getenv("PLAYGROUND_SCREENSHOT") == "1" {
					shot(t, ctx, filepath.Join(os.TempDir(), "projector-"+l.Name+"-"+id+".png"))
				}
				if v.TableFont > 0 {
					if v.TableFont < 16 {
						t.Errorf("table cells of %.1f px, want at least 16", v.TableFont)
					}
					t.Logf("table: %.0f px tall, cells %.1f px", v.Height, v.TableFont)
					return
				}
				if v.Bottom > v.Screen+1 || v.Height < 0.6*v.Screen {
					t.Errorf("the chart is %.0f px tall and ends %.0f px down a screen of %.0f: want it to fill the screen and fit on it", v.Height, v.Bottom, v.Screen)
				}
				if len(v.Axes) == 0 {
					t.Fatalf("no axis with labels: %+v", v)
				}
				most := 0
				for _, a := range v.Axes {
					if a.Font < 16 {
						t.Errorf("panel %d %s axis: labels of %.0f px, want at least 16", a.Panel, a.Side, a.Font)
					}
					if len(a.Labels) > 12 || len(a.Labels) < 2 {
						t.Errorf("panel %d %s axis: %d tick labels %q, want 2 to 12", a.Panel, a.Side, len(a.Labels), a.Labels)
					}
					most = max(most, len(a.Labels))
				}
				bars := slices.ContainsFunc(l.View.Charts, func(c lab.Chart) bool { return "chart-"+c.ID == id && c.Kind == lab.Bars })
				for _, w := range v.Lines {
					if w < 3 && !bars {
						t.Errorf("a line %.2f px wide, want at least 3", w)
						break
					}
				}
				t.Logf("%0.f px tall, %d axes with labels, at most %d labels on one, fonts %.0f px", v.Height, len(v.Axes), most, v.Axes[0].Font)
			})
		}
	}
}

// TestProjectorFollowsTourStep opens tour steps that name their focus and controls: projector
// view shows that chart or table with those controls (opening the folded group they sit in),
// and moves with the tour to the next step's focus. It walks the first three steps of a tour
// (of any lab) whose focus changes at each step and that set controls, found from the
// declarations, so that a tour edited to focus one table throughout does not leave the test
// watching nothing move.
func TestProjectorFollowsTourStep(t *testing.T) {
	var (
		l    *lab.Lab
		tour lab.Tour
		at   int // the middle step, from 1
	)
	moves := func(s []lab.Step, n int) bool { // steps n-1, n, n+1 (from 1) focus three things in turn
		a, b, c := s[n-2], s[n-1], s[n]
		return a.Focus != "" && b.Focus != "" && c.Focus != "" && a.Focus != b.Focus && b.Focus != c.Focus &&
			len(a.Controls)+len(b.Controls)+len(c.Controls) > 0
	}
find:
	for _, cand := range labs.Registry().All() {
		for _, tr := range cand.Tours {
			for n := 2; n < len(tr.Steps); n++ {
				if moves(tr.Steps, n) {
					l, tour, at = cand, tr, n
					break find
				}
			}
		}
	}
	if l == nil {
		t.Fatal("no tour has three steps in a row whose focus moves and that set controls")
	}
	t.Logf("walking %s's tour %s, steps %d–%d", l.Name, tour.Name, at-1, at+1)
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1920, 1080)); err != nil {
		t.Fatal(err)
	}
	step := func(n int) {
		t.Helper()
		s := tour.Steps[n-1]
		want := "chart-" + s.Focus
		if !slices.ContainsFunc(l.View.Charts, func(c lab.Chart) bool { return c.ID == s.Focus }) {
			want = "table-" + s.Focus
		}
		waitFor(t, ctx, fmt.Sprintf(`location.hash === "#tour=%s/%d" && document.getElementById(%q).classList.contains("projected")`, tour.Name, n, want))
		v := eval[projected](t, ctx, readProjected)
		got := slices.Clone(v.Controls)
		wantC := slices.Clone(s.Controls)
		slices.Sort(got)
		slices.Sort(wantC)
		if !slices.Equal(v.Shown, []string{want}) || !slices.Equal(got, wantC) {
			t.Errorf("step %d: projector view shows %q with controls %q, want %s with %q", n, v.Shown, v.Controls, want, s.Controls)
		}
	}
	openStep(t, ctx, fmt.Sprintf("%s%s#tour=%s/%d", srv.URL, tour.Steps[at-1].URL, tour.Name, at))
	pressKey(t, ctx, "p")
	step(at)
	pressKey(t, ctx, "[")
	step(at - 1)
	pressKey(t, ctx, "]")
	step(at)
	pressKey(t, ctx, "]")
	step(at + 1)
}

// shot saves a screenshot of the tab's viewport.
func shot(tb testing.TB, ctx context.Context, name string) {
	tb.Helper()
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(name, buf, 0o644); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("wrote %s", name)
}

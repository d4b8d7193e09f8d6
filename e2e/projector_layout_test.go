package e2e

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs"
)

// projectedLayout is what projector view lays out, read from the page: what overlaps the
// projected section, how far it reaches, a projected table's type, and a projected chart's
// tick labels.
type projectedLayout struct {
	Section   string
	Overlaps  []string // visible elements outside the section whose boxes meet it
	Right     float64  // the section's right edge, px
	Width     float64  // the screen's width, px
	RootFont  float64  // projector view's type, px
	TableFont float64  // a projected table's cell type, px
	Panels    []layoutPanel
}

// layoutPanel is one plot of the projected chart: its tick labels, and how far its last x
// tick's label reaches past the canvas's right edge (px; positive is clipped).
type layoutPanel struct {
	X, Y     []string
	XClipped float64
}

// readProjectedLayout reads projectedLayout. An element overlaps when its box meets the
// projected section's by more than a pixel each way and it is neither inside the section nor
// one of the boxes it sits in.
const readProjectedLayout = `(() => {
	const sec = document.querySelector("#lab .projected");
	if (!sec) return { Section: "" };
	const box = sec.getBoundingClientRect();
	const out = { Section: sec.id, Overlaps: [], Right: box.right, Width: innerWidth,
		RootFont: parseFloat(getComputedStyle(document.documentElement).fontSize), TableFont: 0, Panels: [] };
	for (const el of document.querySelectorAll("#lab *")) {
		if (sec.contains(el) || el.contains(sec) || !el.checkVisibility()) continue;
		const r = el.getBoundingClientRect();
		if (r.width < 1 || r.height < 1) continue;
		const w = Math.min(r.right, box.right) - Math.max(r.left, box.left), h = Math.min(r.bottom, box.bottom) - Math.max(r.top, box.top);
		if (w > 1 && h > 1) out.Overlaps.push((el.id ? "#" + el.id : el.tagName.toLowerCase() + "." + [...el.classList].join(".")) + " " + JSON.stringify((el.textContent || "").trim().slice(0, 40)));
	}
	if (sec.classList.contains("table")) {
		const td = sec.querySelector("tbody td");
		out.TableFont = td ? parseFloat(getComputedStyle(td).fontSize) : 0;
		return out;
	}
	const c = document.createElement("canvas").getContext("2d");
	for (const [k, p] of window.__playground.charts.plots) {
		if (k.split("\u0000")[0] !== sec.dataset.chart) continue;
		const u = p.u, [ax, ay] = u.axes;
		const lab = (a) => (a._values || []).filter((v) => v !== "" && v != null).map(String);
		const panel = { X: lab(ax), Y: lab(ay), XClipped: 0 };
		const splits = ax._splits || [];
		const labels = ax._values || [];
		for (let i = splits.length - 1; i >= 0; i--) {
			if (labels[i] === "" || labels[i] == null) continue;
			c.font = ax.font[0];
			const at = u.bbox.left / devicePixelRatio + u.valToPos(splits[i], "x");
			panel.XClipped = at + c.measureText(String(labels[i])).width / 2 - u.width;
			break;
		}
		out.Panels.push(panel);
	}
	return out;
})()`

// checkProjectedLayout fails the test for what the issue saw projected: a section laid over the
// controls or the status, reaching off the screen, a table in type no larger than the page's,
// a panel with fewer than two y ticks or (where it carries its x axis) three x ticks, a last x
// tick clipped.
func checkProjectedLayout(t *testing.T, where string, v projectedLayout) {
	t.Helper()
	if v.Section == "" {
		t.Fatalf("%s: nothing projected", where)
	}
	for _, o := range v.Overlaps {
		t.Errorf("%s: %s lies over %s", where, v.Section, o)
	}
	if v.Right > v.Width+1 {
		t.Errorf("%s: %s reaches %.0f px on a screen %.0f px wide", where, v.Section, v.Right, v.Width)
	}
	if v.TableFont > 0 && v.TableFont < v.RootFont {
		t.Errorf("%s: table cells of %.1f px, smaller than projector view's %.1f px type", where, v.TableFont, v.RootFont)
	}
	for i, p := range v.Panels {
		if len(p.Y) < 2 {
			t.Errorf("%s: panel %d has y ticks %q, want at least two", where, i, p.Y)
		}
		if len(p.X) > 0 && len(p.X) < 3 {
			t.Errorf("%s: panel %d has x ticks %q, want at least three", where, i, p.X)
		}
		if p.XClipped > 0.5 {
			t.Errorf("%s: panel %d's last x tick %q runs %.1f px past the canvas", where, i, p.X[len(p.X)-1], p.XClipped)
		}
	}
}

// TestProjectorLayout projects, at 1280×720 and 1920×1080, every table and every small
// multiple of every lab with its "Project this" button, and the table a tour step focuses by
// itself (issue 30, items 1 and 2: a projected table lay over the status, the strategies box
// and "Exit projector view", in the page's small type; small multiples kept one y tick and one
// x tick, and their last x tick was clipped). Nothing overlaps the projected section, it fits
// the screen, a table's cells are in projector view's type, and every panel has at least two
// y ticks and three x ticks, the last one whole.
func TestProjectorLayout(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, size := range [][2]int64{{1280, 720}, {1920, 1080}} {
		if err := chromedp.Do(ctx, chromedp.EmulateViewport(size[0], size[1])); err != nil {
			t.Fatal(err)
		}
		for _, l := range labs.Registry().All() {
			openLab(t, ctx, srv.URL+chartPages[l.Name])
			waitDrawn(t, ctx)
			var ids []string
			for _, c := range l.View.Charts {
				if c.Split {
					ids = append(ids, "chart-"+c.ID)
				}
			}
			for _, tb := range l.View.Tables {
				ids = append(ids, "table-"+tb.ID)
			}
			for _, id := range ids {
				t.Run(fmt.Sprintf("%dx%d/%s/%s", size[0], size[1], l.Name, id), func(t *testing.T) {
					if eval[bool](t, ctx, `document.documentElement.classList.contains("presenting")`) {
						pressKey(t, ctx, kb.Escape)
						waitFor(t, ctx, `!document.documentElement.classList.contains("presenting")`)
					}
					if eval[bool](t, ctx, fmt.Sprintf(`document.getElementById(%q).classList.contains("empty")`, id)) {
						t.Skipf("%s has nothing to show in this scenario (its note says why)", id)
					}
					project(t, ctx, id)
					checkProjectedLayout(t, chartPages[l.Name], eval[projectedLayout](t, ctx, readProjectedLayout))
				})
			}
		}
		t.Run(fmt.Sprintf("%dx%d/tour step", size[0], size[1]), func(t *testing.T) {
			l, tour, n := tableStep(t)
			s := tour.Steps[n-1]
			openStep(t, ctx, fmt.Sprintf("%s%s#tour=%s/%d", srv.URL, s.URL, tour.Name, n))
			pressKey(t, ctx, "p")
			waitProjected(t, ctx, "table-"+s.Focus)
			checkProjectedLayout(t, l.Name+" tour "+tour.Name, eval[projectedLayout](t, ctx, readProjectedLayout))
		})
	}
}

// tableStep finds a tour step (numbered from 1) whose focus is a table.
func tableStep(t *testing.T) (*lab.Lab, lab.Tour, int) {
	t.Helper()
	for _, l := range labs.Registry().All() {
		for _, tour := range l.Tours {
			for i, s := range tour.Steps {
				if slices.ContainsFunc(l.View.Tables, func(tb lab.Table) bool { return tb.ID == s.Focus }) {
					return l, tour, i + 1
				}
			}
		}
	}
	t.Fatal("no tour step focuses a table")
	return nil, lab.Tour{}, 0
}

// project projects section id with its "Project this" button and waits until it is shown
// (waitProjected). The button is activated, not clicked at a point on the screen: a page
// laying itself out again (after the projector view before, say) can move it between where
// a pointer's click is aimed and where it lands — once, the click landed beside it.
func project(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	evalVoid(t, ctx, fmt.Sprintf(`document.getElementById("project-%s").click()`, id))
	waitProjected(t, ctx, id)
}

// waitProjected waits until projector view shows section id, drawn at its projected size.
func waitProjected(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	waitFor(t, ctx, fmt.Sprintf(`(() => { const s = document.getElementById(%q);
		if (!document.documentElement.classList.contains("presenting") || !s.classList.contains("projected")) return false;
		if (s.classList.contains("table")) return true;
		const box = s.querySelector(".plots"), c = box && box.querySelector("canvas");
		return !!c && box.getBoundingClientRect().height > 0.5 * innerHeight; })()`, id))
	waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
}

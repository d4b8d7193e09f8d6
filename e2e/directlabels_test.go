package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"
)

// labelBox is a text the renderer wrote on a plot: a line's direct label or the mark's label,
// in CSS px within the plot's canvas; Crosses counts the other lines a line's label lies over.
type labelBox struct {
	Text                     string
	Left, Top, Right, Bottom float64
	Crosses                  int
}

// plotLabels is what one plot wrote: its lines' labels, its mark's label, how many lines have
// data, and the canvas's size.
type plotLabels struct {
	Key           string
	Labels        []labelBox
	Mark          *labelBox
	Lines         int
	Width, Height float64
}

const readPlotLabels = `[...window.__playground.charts.plots].filter(([k, p]) => p.holder.checkVisibility()).map(([k, p]) => {
	const box = (b) => b && { Text: b.text, Left: b.left, Top: b.top, Right: b.right, Bottom: b.bottom, Crosses: b.crosses || 0 };
	return { Key: k.replace("\u0000", " "), Labels: (p.ctx.labelBoxes || []).map(box), Mark: box(p.ctx.markBox) || null,
		Lines: p.u.data.slice(1).filter((c, i) => p.u.series[i + 1].width > 0 && c.some((v) => v != null)).length,
		Width: p.u.width, Height: p.u.height };
})`

// TestDirectLabelsApart draws charts whose lines end close together — the backoff lab's sweep
// charts, with their "Clients = 100" mark, and the load balancer's errors over time, all three
// lines at zero — on a 390-px phone, at 1280×720 and projected (issue 30, item 3: labels piled
// up where lines meet, "Clients = 100" lay over "No backoff"). On every plot with direct labels,
// every line has one, no two overlap, none overlaps the mark's label, and all lie on the canvas.
func TestDirectLabelsApart(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, c := range []struct {
		w, h    int64
		page    string
		project string
	}{
		{390, 844, "/backoff", ""},
		{1280, 720, "/backoff", ""},
		{1280, 720, "/backoff", "chart-work"},
		{1920, 1080, "/backoff", "chart-completion"},
		{390, 844, "/loadbalance?duration=10s", ""},
		{1280, 720, "/loadbalance?duration=10s", "chart-errors"},
	} {
		t.Run(fmt.Sprintf("%dx%d%s/%s", c.w, c.h, c.page, c.project), func(t *testing.T) {
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(c.w, c.h)); err != nil {
				t.Fatal(err)
			}
			openLab(t, ctx, srv.URL+c.page)
			waitDrawn(t, ctx)
			if c.project != "" {
				project(t, ctx, c.project)
			}
			labelled := 0
			for _, p := range eval[[]plotLabels](t, ctx, readPlotLabels) {
				if len(p.Labels) == 0 {
					continue
				}
				labelled++
				if len(p.Labels) != p.Lines {
					t.Errorf("%s: %d labels for %d lines", p.Key, len(p.Labels), p.Lines)
				}
				crosses := 0
				for i, a := range p.Labels {
					crosses += a.Crosses
					if a.Left < 0 || a.Top < 0 || a.Right > p.Width || a.Bottom > p.Height {
						t.Errorf("%s: label %q at %+v lies off its %.0f×%.0f canvas", p.Key, a.Text, a, p.Width, p.Height)
					}
					for _, b := range p.Labels[i+1:] {
						if overlap(a, b) {
							t.Errorf("%s: labels %q and %q overlap (%+v, %+v)", p.Key, a.Text, b.Text, a, b)
						}
					}
					if p.Mark != nil && overlap(a, *p.Mark) {
						t.Errorf("%s: label %q lies over the mark's %q", p.Key, a.Text, p.Mark.Text)
					}
				}
				t.Logf("%s: %d labels, %d over another line", p.Key, len(p.Labels), crosses)
			}
			if labelled == 0 {
				t.Fatal("no plot with direct labels")
			}
		})
	}
}

// overlap reports whether two boxes share more than half a pixel each way.
func overlap(a, b labelBox) bool {
	return min(a.Right, b.Right)-max(a.Left, b.Left) > 0.5 && min(a.Bottom, b.Bottom)-max(a.Top, b.Top) > 0.5
}

package e2e

import (
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/labs"
)

// shownSection is a chart or table section as a reader sees it.
type shownSection struct {
	ID      string `json:"id"`
	Visible bool   `json:"visible"`
	Drawn   bool   `json:"drawn"`   // a chart: a visible plot with data; a table: a visible body row
	Note    string `json:"note"`    // the text of a visible off or empty note
	Buttons int    `json:"buttons"` // visible PNG and "Project this" buttons
}

// readSections reads every chart and table section of the page (the lab page, an embed view or
// the compare view).
const readSections = `[...document.querySelectorAll("section.chart, section.table")].map((s) => {
	const vis = (e) => !!e && e.checkVisibility();
	const notes = [...s.querySelectorAll(".off-note, .empty-note")].filter(vis).map((n) => n.textContent).join(" ");
	let drawn = false;
	if (s.classList.contains("chart")) {
		const plots = [...s.querySelectorAll(".plot")].filter(vis);
		const pg = window.__playground, cmp = window.__compare;
		if (pg) for (const [k, p] of pg.charts.plots) if (k.split("\u0000")[0] === s.dataset.chart && vis(p.holder))
			drawn ||= p.u.data.slice(1).some((col) => col.some((v) => v != null));
		if (cmp) drawn ||= plots.length > 0 && cmp.plots.some((p) => p.chart === s.dataset.chart && p.series.length > 0);
	} else {
		drawn = [...s.querySelectorAll("tbody tr")].some(vis);
	}
	return { id: s.id, visible: vis(s), drawn, note: notes, buttons: [...s.querySelectorAll(".chart-head .png, .chart-head .project")].filter(vis).length };
})`

// checkSections fails the test for a visible chart or table that shows nothing without a note
// saying why, and for a note shown beside numbers or with buttons to export or project nothing.
func checkSections(t *testing.T, where string, sections []shownSection) {
	t.Helper()
	if len(sections) == 0 {
		t.Fatalf("%s: no chart or table sections", where)
	}
	for _, s := range sections {
		if !s.Visible {
			continue
		}
		switch {
		case !s.Drawn && s.Note == "":
			t.Errorf("%s: %s shows nothing and no note says why", where, s.ID)
		case !s.Drawn && s.Buttons > 0:
			t.Errorf("%s: %s has nothing to show (%q) but %d buttons to export or project it", where, s.ID, s.Note, s.Buttons)
		}
	}
}

// TestNothingEmptyShown opens every lab at its light scenario (sweeps off, the smallest sizes)
// and at the charts' scenario (sweeps on), on the lab page, in the embed view and in the compare
// view of the two (issue 30, item 5: "Admitted vs store latency" with its sweep off was an
// empty box with PNG and Project buttons; header-only tables; compare drew empty axes). Once
// the numbers are final, every visible chart draws data and every visible table has a row, or
// it shows a note saying why (its sweep off, or the view's word on what would fill it) and no
// button to export or project it.
func TestNothingEmptyShown(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, l := range labs.Registry().All() {
		light := "/" + l.Name + "?" + l.Light
		pages := map[string]string{"light": light, "charts": chartPages[l.Name]}
		for name, page := range pages {
			t.Run(l.Name+"/"+name, func(t *testing.T) {
				openLab(t, ctx, srv.URL+page)
				waitDrawn(t, ctx)
				checkSections(t, page, eval[[]shownSection](t, ctx, readSections))

				openLab(t, ctx, srv.URL+"/embed"+page)
				waitDrawn(t, ctx)
				checkSections(t, "/embed"+page, eval[[]shownSection](t, ctx, readSections))
			})
		}
		t.Run(l.Name+"/compare", func(t *testing.T) {
			u := srv.URL + "/compare?a=" + url.QueryEscape(light) + "&b=" + url.QueryEscape(chartPages[l.Name])
			if err := chromedp.Do(ctx, chromedp.Navigate(u)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `!!window.__compare && (window.__compare.ready || window.__compare.error !== "")`)
			if e := eval[string](t, ctx, `window.__compare.error`); e != "" {
				t.Fatalf("compare page error: %s", e)
			}
			waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
			checkSections(t, "compare", eval[[]shownSection](t, ctx, readSections))
		})
	}
}

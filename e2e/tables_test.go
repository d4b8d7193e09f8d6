package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// tableColumns is what a table's box shows of its columns: each header's label, whether it
// lies within the box's visible width, and the cue under the box.
type tableColumns struct {
	ID      string
	Columns []struct {
		Label   string
		Visible bool
	}
	Cue      bool   // the "More columns" cue is visible
	CueNames string // and the columns it names
	Box      float64
	Table    float64
}

const readTableColumns = `[...document.querySelectorAll("#lab .table")].filter((s) => s.checkVisibility()).map((s) => {
	const box = s.querySelector(".scroll").getBoundingClientRect();
	const note = s.querySelector(".more-columns");
	return { ID: s.id, Box: box.width, Table: s.querySelector("table").getBoundingClientRect().width,
		Columns: [...s.querySelectorAll("thead th")].map((th) => { const r = th.getBoundingClientRect();
			return { Label: th.textContent.trim(), Visible: r.left >= box.left - 1 && r.right <= box.right + 1 }; }),
		Cue: !!note && note.checkVisibility(), CueNames: note ? note.textContent : "" };
})`

// TestDecisiveColumnsVisible opens the rate-limiter and load-balancing labs at a projector's
// 1280×720 and on a 390 px phone. At 1280×720 the columns a class compares by — the
// rate limiter's worst window × limit, estimate error and store operations, the load balancer's
// latency percentiles, wasted CPU and errors — lie within their table's box. At either size,
// no table hides a column past its edge without a visible cue that names it.
func TestDecisiveColumnsVisible(t *testing.T) {
	srv := MustOpenServer(t)
	decisive := map[string]map[string][]string{
		"/ratelimit":   {"table-algorithms": {"worst window × limit", "estimate error", "store ops/request"}},
		"/loadbalance": {"table-policies": {"latency p50", "p99", "wasted CPU", "errors"}},
	}
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"1280x720", 1280, 720, false}, {"phone", 390, 844, true}} {
		for page, want := range decisive {
			t.Run(vp.name+page, func(t *testing.T) {
				ctx := MustOpenTab(t)
				hookTab(t, ctx)
				emulateSize(t, ctx, vp.width, vp.height, vp.mobile)
				openLab(t, ctx, srv.URL+page)
				waitDrawn(t, ctx)
				waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
				tables := eval[[]tableColumns](t, ctx, readTableColumns)
				seen := map[string]bool{}
				for _, tc := range tables {
					seen[tc.ID] = true
					var hidden []string
					for _, c := range tc.Columns {
						if !c.Visible {
							hidden = append(hidden, c.Label)
							if !tc.Cue || !strings.Contains(tc.CueNames, c.Label) {
								t.Errorf("%s: column %q lies past the box's edge (table %.0f px in a box of %.0f) with no visible cue naming it (cue %v: %q)", tc.ID, c.Label, tc.Table, tc.Box, tc.Cue, tc.CueNames)
							}
						}
					}
					if len(hidden) == 0 && tc.Cue {
						t.Errorf("%s: a cue %q with every column in view", tc.ID, tc.CueNames)
					}
					t.Logf("%s: table %.0f px in a box of %.0f, %d of %d columns past the edge %q", tc.ID, tc.Table, tc.Box, len(hidden), len(tc.Columns), hidden)
					if vp.mobile {
						continue
					}
					for _, label := range want[tc.ID] {
						found := false
						for _, c := range tc.Columns {
							if c.Label == label {
								found = true
								if !c.Visible {
									t.Errorf("%s at %s: the decisive column %q lies past the box's edge", tc.ID, vp.name, label)
								}
							}
						}
						if !found {
							t.Errorf("%s: no column %q", tc.ID, label)
						}
					}
				}
				for id := range want {
					if !seen[id] {
						t.Errorf("no visible table %s", id)
					}
				}
			})
		}
	}
}

// TestMoreColumnsCue clicks the rate-limiter table's "More columns" cue at 1280×720 (three
// columns lie past the edge there, which fades out): the table scrolls to the columns it
// named, and with none past the edge the edge no longer fades.
func TestMoreColumnsCue(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
		t.Fatal(err)
	}
	openLab(t, ctx, srv.URL+"/ratelimit")
	waitDrawn(t, ctx)
	const sel = "#table-algorithms"
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector("%s .more-columns").checkVisibility()`, sel))
	// The column cut at the edge fades out, read as more to come, not as a broken table.
	fades := fmt.Sprintf(`getComputedStyle(document.querySelector("%s .scroll")).maskImage.includes("gradient")`, sel)
	if !eval[bool](t, ctx, fades) {
		t.Errorf("columns lie past the edge, and the edge does not fade")
	}
	click(t, ctx, sel+" .more-columns-go")
	waitFor(t, ctx, fmt.Sprintf(`document.querySelector("%s .scroll").scrollLeft > 100`, sel))
	// Scrolled to the end, nothing lies past the edge: the cue and the fade go.
	waitFor(t, ctx, fmt.Sprintf(`!document.querySelector("%s .more-columns").checkVisibility()`, sel))
	waitFor(t, ctx, "!("+fades+")")
}

// emulateSize sizes the tab's viewport (as a phone's, touch and all, when mobile) before a
// page draws, so that it is laid out for that size.
func emulateSize(tb testing.TB, ctx context.Context, width, height int64, mobile bool) {
	tb.Helper()
	opt := []chromedp.EmulateViewportOption{}
	if mobile {
		opt = append(opt, chromedp.EmulateMobile)
	}
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height, opt...)); err != nil {
		tb.Fatal(err)
	}
}

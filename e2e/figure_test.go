package e2e

import (
	"context"
	"testing"

	"github.com/chromedp/chromedp"
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

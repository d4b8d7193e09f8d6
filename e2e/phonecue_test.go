package e2e

import (
	"testing"

	"github.com/chromedp/chromedp"
)

// cueInView scrolls each visible "More columns" cue into view, as a person scrolling down to
// the table does, and reports whether it lies within the viewport and is what a tap at its
// centre reaches (nothing pinned covers it).
const cueInView = `(async () => {
	const frame = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
	const out = [];
	for (const note of document.querySelectorAll("#lab .table .more-columns")) {
		if (!note.checkVisibility()) continue;
		note.scrollIntoView({ block: "center" });
		await frame();
		const r = note.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
		const hit = document.elementFromPoint(x, y);
		const pinned = document.querySelector(".pinned");
		out.push({ Table: note.closest(".table").id, InView: r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth,
			Reached: !!hit && note.contains(hit), Hit: hit ? (hit.closest("[id]")?.id || hit.tagName) : "",
			Pinned: pinned ? pinned.getBoundingClientRect().height : 0, Sticky: pinned ? getComputedStyle(pinned).position === "sticky" : false });
	}
	return out;
})()`

// TestPhoneTableCue opens the rate-limiter and load-balancing labs on a 390×844 phone: each
// table's "More columns" cue, scrolled into view, lies in the viewport and is not covered —
// a tap at its centre reaches it, not the chart pinned at the top of the screen (which, taller
// than the screen, used to cover everything below it).
func TestPhoneTableCue(t *testing.T) {
	srv := MustOpenServer(t)
	for _, page := range []string{"/ratelimit?duration=5s", "/backoff?trials=5&sweep=off", "/loadbalance?clients=60&backends=40&subset=6&duration=5s"} {
		t.Run(page, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			emulateSize(t, ctx, 390, 844, true)
			openLab(t, ctx, srv.URL+page)
			waitDrawn(t, ctx)
			type cue struct {
				Table   string
				InView  bool
				Reached bool
				Hit     string
				Pinned  float64
				Sticky  bool
			}
			cues, err := chromedp.Run(ctx, chromedp.Evaluate[[]cue](cueInView, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if len(cues) == 0 {
				t.Fatal("no table shows a More columns cue on the phone: the test checks nothing")
			}
			for _, c := range cues {
				t.Logf("%s: %+v", c.Table, c)
				if !c.InView || !c.Reached {
					t.Errorf("%s's cue, scrolled into view: in the viewport %v, reached by a tap %v (the tap reaches %s; pinned block %v px, sticky %v)",
						c.Table, c.InView, c.Reached, c.Hit, c.Pinned, c.Sticky)
				}
			}
		})
	}
}

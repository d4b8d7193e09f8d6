package e2e

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestEmbedFits opens the embed box of a scenario with two charts and a table in its embed
// view: the snippet's frame is as tall as that view, measured (not the old 800×450, which cut
// through the second chart); framed by a page, the view shows every chart and table without
// scrolling, names the scenario in words under the title and links back to the full lab page
// of that exact scenario.
func TestEmbedFits(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)
	start := time.Now()
	click(t, ctx, "#embed-button")
	waitFor(t, ctx, `(() => { const c = document.getElementById("embed-code"); return !!c.dataset.measured && c.dataset.measured === location.search; })()`)
	t.Logf("measured the embed view in %v", time.Since(start).Round(time.Millisecond))
	snippet := eval[string](t, ctx, `document.getElementById("embed-code").value`)
	m := regexp.MustCompile(`^<iframe src="([^"]+)" width="(\d+)" height="(\d+)"[^>]*></iframe>$`).FindStringSubmatch(snippet)
	if m == nil {
		t.Fatalf("snippet %q is not one iframe with a src, width and height", snippet)
	}
	src := html.UnescapeString(m[1])
	height, _ := strconv.Atoi(m[3])
	if want := srv.URL + "/embed" + exportURL; src != want || m[2] != "800" {
		t.Errorf("snippet frames %q at width %s, want %q at 800", src, m[2], want)
	}
	if size := eval[string](t, ctx, `document.getElementById("embed-size").textContent`); size != "The frame is 800 × "+m[3]+" px: the whole embed view of this scenario." {
		t.Errorf("the box says %q", size)
	}

	// A new scenario is measured anew, one view at a time, and the view is gone once measured.
	for _, pos := range []float64{40, 45} {
		prev := lastSent(t, ctx)
		moveSlider(t, ctx, "clients", pos, true)
		waitSettled(t, ctx, prev)
		if n := eval[int](t, ctx, `document.querySelectorAll("iframe").length`); n > 1 {
			t.Errorf("%d embed views load at once while measuring", n)
		}
	}
	waitFor(t, ctx, `(() => { const c = document.getElementById("embed-code"); return c.dataset.measured === location.search && location.search.includes("clients=45"); })()`)
	if n := eval[int](t, ctx, `document.querySelectorAll("iframe").length`); n != 0 {
		t.Errorf("%d embed views left on the page after measuring", n)
	}
	if again := eval[string](t, ctx, `document.getElementById("embed-code").value`); !strings.Contains(again, "clients=45") || !strings.Contains(again, `height="`) {
		t.Errorf("after two moves the snippet is %q", again)
	}
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "clients", 30, true)
	waitSettled(t, ctx, prev)
	waitFor(t, ctx, `(() => { const c = document.getElementById("embed-code"); return c.dataset.measured === location.search; })()`)
	if back := eval[string](t, ctx, `document.getElementById("embed-code").value`); back != snippet {
		t.Errorf("back at the first scenario, the snippet is %q, was %q", back, snippet)
	}

	// Frame the snippet in a page of the same site, as a blog post would. The front page's
	// policy refuses the snippet's style attribute (a blog's does not), and its previews may be
	// refused while the tab measures: neither is about the frame.
	ExpectConsole(t, "Applying inline style violates")
	ExpectConsole(t, "/preview/")
	host := MustOpenTab(t)
	if err := chromedp.Do(host, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Do(host, chromedp.Evaluate[chromedp.Void](`document.body.insertAdjacentHTML("afterbegin", `+strconv.Quote(snippet)+`)`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, host, `(() => { const w = document.querySelector("iframe").contentWindow, p = w && w.__playground;
		return !!p && p.state.run.phase === "done" && !p.state.stale() && p.draws > 0 && w.document.querySelectorAll(".plot canvas").length > 1; })()`)
	waitFor(t, host, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	type framed struct {
		Frame, Content float64
		Cut            []string // charts and tables whose bottom lies below the frame
		Second         float64  // the second chart's bottom
		Words, Title   string
		Open, Target   string
	}
	f := eval[framed](t, host, `(() => { const fr = document.querySelector("iframe"), d = fr.contentDocument;
		const boxes = [...d.querySelectorAll("section.chart, section.table")].filter((s) => s.checkVisibility());
		const charts = [...d.querySelectorAll("section.chart")].filter((s) => s.checkVisibility());
		const a = d.getElementById("embed-open");
		return { Frame: fr.clientHeight, Content: d.documentElement.scrollHeight,
			Cut: boxes.filter((s) => s.getBoundingClientRect().bottom > fr.clientHeight + 1).map((s) => s.id),
			Second: charts.length > 1 ? charts[1].getBoundingClientRect().bottom : 0,
			Words: d.getElementById("embed-scenario").textContent, Title: d.querySelector(".embed-title").textContent,
			Open: a ? a.href : "", Target: a ? a.target : "" }; })()`)
	t.Logf("frame %v px, content %v px, second chart's bottom at %v px", f.Frame, f.Content, f.Second)
	if f.Frame != float64(height) {
		t.Errorf("the frame is %v px tall, the snippet says %d", f.Frame, height)
	}
	if len(f.Cut) > 0 || f.Content > f.Frame+1 {
		t.Errorf("the frame (%v px) cuts %q; its content is %v px tall", f.Frame, f.Cut, f.Content)
	}
	if f.Second <= 450 {
		t.Errorf("the second chart ends at %v px: the scenario does not test what 800×450 cut", f.Second)
	}
	if want := "Strategies: No backoff, Full jitter · Clients: 30 · Trials: 8 · Sweep of clients: 10 to 40 in steps of 15"; f.Words != want {
		t.Errorf("the embed view names the scenario %q, want %q", f.Words, want)
	}
	if f.Title != "Exponential backoff and jitter" {
		t.Errorf("the embed view's title is %q", f.Title)
	}
	if want := srv.URL + exportURL; f.Open != want || f.Target != "_blank" {
		t.Errorf("the link back goes to %q (target %q), want %q in a new tab", f.Open, f.Target, want)
	}
}

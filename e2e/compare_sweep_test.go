package e2e

import (
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCompareSweepOff: on the compare page a chart whose sweep is off in one scenario says so
// ("Sweep off in A") with a button that turns it on in that scenario — the lab page's note,
// drawn by the same function — and the chart then draws both sides' sweeps.
func TestCompareSweepOff(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	a := "/loadbalance?clients=20&backends=10&subset=5&duration=10s"
	b := a + "&load_sweep=40:100:20"
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape(a)+"&b="+url.QueryEscape(b))); err != nil {
		t.Fatal(err)
	}
	compareReady(t, ctx)
	note := func() string {
		return eval[string](t, ctx, `(() => { const n = document.querySelector("#chart-load_p99 .off-note");
			return n && !n.hidden && n.offsetHeight > 0 ? n.textContent : ""; })()`)
	}
	if got := note(); !strings.HasPrefix(got, "Sweep off in A — turn on") || !strings.Contains(got, "in A") || strings.Contains(got, "in B") {
		t.Errorf("load_p99 note %q, want the sweep off in A only, with a button for A", got)
	}
	bLines := func() int {
		return eval[int](t, ctx, `(() => { const p = window.__compare.renderer.plots.get("load_p99\u0000");
			return p ? p.u.series.filter((s, i) => i > 0 && s.label.startsWith("B ")).length : 0; })()`)
	}
	if bLines() == 0 {
		t.Errorf("load_p99 draws none of B's sweep while A's is off")
	}
	click(t, ctx, "#chart-load_p99 .off-note button")
	waitFor(t, ctx, `new URL(location.href).searchParams.get("a").includes("load_sweep=")`)
	compareReady(t, ctx)
	if got := note(); got != "" {
		t.Errorf("after the click the note still shows: %q", got)
	}
	aLines := eval[int](t, ctx, `(() => { const p = window.__compare.renderer.plots.get("load_p99\u0000");
		return p ? p.u.series.filter((s, i) => i > 0 && s.label.startsWith("A ")).length : 0; })()`)
	if aLines == 0 {
		t.Errorf("after turning A's sweep on, load_p99 draws none of A's lines")
	}
	gotA, _ := compareSides(t, ctx)
	t.Logf("A is now %s; %d lines of A, %d of B", gotA, aLines, bLines())
	if !strings.Contains(gotA, fmt.Sprintf("load_sweep=%s", "50:100:10")) {
		t.Errorf("A after the click: %s, want the declared on range load_sweep=50:100:10", gotA)
	}
}

package e2e

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestCompareView opens the compare link of a lab page, then a compare URL of two scenarios:
// both results are drawn on shared axes (B with hollow marks) from the API's numbers, and the
// summary tables of A and B stand side by side. Bad compare URLs get 400 and a page that says
// why.
func TestCompareView(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)
	href := eval[string](t, ctx, `document.getElementById("compare-link").getAttribute("href")`)
	page := "/backoff?" + exportURL[strings.Index(exportURL, "?")+1:]
	if want := "/compare?a=" + url.QueryEscape(page) + "&b=" + url.QueryEscape(page); href != strings.ReplaceAll(want, "+", "%20") && href != want {
		t.Errorf("compare link = %q, want %q", href, want)
	}

	b := "/backoff?strategies=none,full&clients=80&trials=8&sweep=10:40:15"
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape(page)+"&b="+url.QueryEscape(b))); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__compare && (window.__compare.ready || window.__compare.error !== "")`)
	if e := eval[string](t, ctx, `window.__compare.error`); e != "" {
		t.Fatalf("compare page error: %s", e)
	}
	// The overlaid work chart has A's and B's series on one set of axes, and its y axis
	// holds B's largest value.
	type plot struct {
		Chart  string    `json:"chart"`
		Series []string  `json:"series"`
		Y      []float64 `json:"y"`
	}
	plots := eval[[]plot](t, ctx, `window.__compare.plots`)
	var work *plot
	for i := range plots {
		if plots[i].Chart == "work" {
			work = &plots[i]
		}
	}
	if work == nil {
		t.Fatalf("no work chart among %+v", plots)
	}
	if strings.Join(work.Series, ",") != "A work none,A work full,B work none,B work full" {
		t.Errorf("work chart series %q, want A's and B's", work.Series)
	}
	maxB := eval[float64](t, ctx, `Math.max(...window.__compare.b.series.filter((s) => s.chart === "work").flatMap((s) => s.y))`)
	if work.Y[1] < maxB {
		t.Errorf("work chart's y axis ends at %v, below B's %v", work.Y[1], maxB)
	}
	// The page's numbers are the API's.
	for side, u := range map[string]string{"a": page, "b": b} {
		got := eval[string](t, ctx, `JSON.stringify(window.__compare.`+side+`.summary)`)
		want := eval[string](t, ctx, `JSON.stringify(`+get(t, srv.URL+"/api/v1"+u)+`.summary)`)
		if got != want {
			t.Errorf("%s's summary differs from the API's", side)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#table-summary tbody[data-side=A] tr").length + document.querySelectorAll("#table-summary tbody[data-side=B] tr").length`); n != 4 {
		t.Errorf("summary tables have %d rows, want 2 for A and 2 for B", n)
	}
	if h := eval[string](t, ctx, `document.querySelector("#table-summary h2").textContent`); !strings.Contains(h, "30 (A), 80 (B)") {
		t.Errorf("summary title %q, want both values of N", h)
	}
	if dashed := eval[bool](t, ctx, `!!document.querySelector("#chart-timeline .cmp-grid") && document.querySelectorAll("#chart-timeline .plot canvas").length === 4`); !dashed {
		t.Error("the writes-over-time small multiples are not A and B panels side by side (2 strategies × 2)")
	}

	for _, c := range []struct{ query, want string }{
		{"", "needs two scenario URLs"},
		{"a=" + url.QueryEscape(page) + "&b=" + url.QueryEscape("/ratelimit"), "same lab"},
		{"a=" + url.QueryEscape("/backoff?clients=5000") + "&b=" + url.QueryEscape(page), "Scenario A: clients"},
		{"a=" + url.QueryEscape(page) + "&b=" + url.QueryEscape("/nolab?x=1"), "Scenario B: "},
		{"a=" + url.QueryEscape(page) + "&b=" + url.QueryEscape("/backoff?typo=1"), "Scenario B: "},
	} {
		resp, err := http.Get(srv.URL + "/compare?" + c.query)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), c.want) || !strings.Contains(string(body), `role="alert"`) {
			t.Errorf("/compare?%s: %s, want 400 and a page saying %q; body %.300s", c.query, resp.Status, c.want, body)
		}
	}
}

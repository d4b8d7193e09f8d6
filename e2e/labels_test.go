package e2e

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab"
)

// rawIDs matches the names of a lab's options, as URLs write them, that no person should read:
// those with an underscore (fixed_window, round_robin, lame_duck), a bare p2c, and the names
// its runs report that are no option (lab.View.Names: get_set).
func rawIDs(l *lab.Lab) *regexp.Regexp {
	ids := []string{"p2c"}
	for n := range l.View.Names { // names a run reports that are no option (get_set)
		ids = append(ids, regexp.QuoteMeta(n))
	}
	for _, sp := range l.Params {
		for _, o := range sp.Options {
			if strings.Contains(o, "_") {
				ids = append(ids, regexp.QuoteMeta(o))
			}
		}
	}
	return regexp.MustCompile(`\b(` + strings.Join(ids, "|") + `)\b`)
}

// readShownText collects what a person reads of the lab page, by where it is: the controls'
// option labels (checkboxes and every choice of a select), the charts' legends, panel names
// and titles, the tables' row names and cells, and the page's whole visible text.
const readShownText = `(() => {
	const text = (el) => (el.innerText || el.textContent || "").trim();
	const all = (sel) => [...document.querySelectorAll(sel)].map(text).filter(Boolean);
	return {
		"control": [...all("#controls label.check"), ...all("#controls select option")],
		"legend": all(".chart .legend li"),
		"panel": [...document.querySelectorAll("#lab [aria-label]")].map((e) => e.getAttribute("aria-label")),
		"table row": all("#lab table tbody th, #lab table tbody td"),
		"page": [document.body.innerText],
	};
})()`

// TestOptionLabelsShown opens each lab with every compared option on and checks that nowhere a
// person reads — controls, legends, chart panels, table rows, the rest of the page — shows an
// option's raw name (fixed_window, round_robin, p2c): the page shows the labels the labs
// declare beside their options, while the URL keeps the names.
func TestOptionLabelsShown(t *testing.T) {
	srv := MustOpenServer(t)
	for _, c := range []struct{ page, want, inURL string }{
		{"/backoff?strategies=none,constant,linear,exponential,full,equal,decorrelated&trials=5&sweep=off", "Full jitter", "decorrelated"},
		{"/ratelimit?duration=5s&instances=2&balancer=random&store=racy", "Fixed window", "store=racy"},
		// The token bucket on an increment-only store runs as GET then SET (issue 30, item 12:
		// "get_set" in the legend and the table).
		{"/ratelimit?algorithms=token_bucket&limit=50&duration=2s&instances=2&store=incr&latency_sweep=0:10:5", "GET then SET", "store=incr"},
		{"/loadbalance?clients=60&backends=40&subset=6&duration=5s&policy=round_robin,least_loaded,weighted,random,p2c&event=lame_duck", "Power of two choices", "p2c"},
	} {
		name := strings.SplitN(c.page[1:], "?", 2)[0]
		rawID := rawIDs(lookupLab(t, name))
		t.Run(name, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			openLab(t, ctx, srv.URL+c.page)
			waitDrawn(t, ctx)
			openGroups(t, ctx)
			shown := eval[map[string][]string](t, ctx, readShownText)
			for where, texts := range shown {
				if len(texts) == 0 && where != "page" {
					t.Errorf("no %s text found: the test reads the wrong elements", where)
				}
				for _, s := range texts {
					if m := rawID.FindAllString(s, -1); len(m) > 0 {
						t.Errorf("%s text shows raw option names %q: %.200q", where, m, s)
					}
				}
			}
			if page := strings.Join(shown["page"], ""); !strings.Contains(page, c.want) {
				t.Errorf("the page does not show the label %q", c.want)
			}
			// The URL keeps the names.
			if q := eval[string](t, ctx, `location.search`); !strings.Contains(q, c.inURL) {
				t.Errorf("the address lost the scenario's names: %s", q)
			}
		})
	}
}

// TestCompareOptionLabels: the compare page, which draws its charts and tables with its own
// code, shows the same labels — legends, panel titles, table rows — and no raw option name.
func TestCompareOptionLabels(t *testing.T) {
	srv := MustOpenServer(t)
	a := "/loadbalance?clients=60&backends=40&subset=6&duration=5s&policy=round_robin,p2c"
	b := "/loadbalance?clients=60&backends=40&subset=12&duration=5s&policy=round_robin,p2c"
	rawID := rawIDs(lookupLab(t, "loadbalance"))
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/compare?a="+url.QueryEscape(a)+"&b="+url.QueryEscape(b))); err != nil {
		t.Fatal(err)
	}
	compareReady(t, ctx)
	shown := eval[map[string][]string](t, ctx, `(() => {
		const text = (el) => (el.innerText || el.textContent || "").trim();
		const all = (sel) => [...document.querySelectorAll(sel)].map(text).filter(Boolean);
		return {
			"legend": all(".legend li"),
			"panel": [...document.querySelectorAll("[aria-label]")].map((e) => e.getAttribute("aria-label")),
			"table row": all("table tbody th, table tbody td"),
			"page": [document.body.innerText],
		};
	})()`)
	for where, texts := range shown {
		if len(texts) == 0 {
			t.Errorf("no %s text found: the test reads the wrong elements", where)
		}
		for _, s := range texts {
			if m := rawID.FindAllString(s, -1); len(m) > 0 {
				t.Errorf("%s text shows raw option names %q: %.200q", where, m, s)
			}
		}
	}
	if page := strings.Join(shown["page"], ""); !strings.Contains(page, "Power of two choices") {
		t.Errorf("the compare page does not show the label %q", "Power of two choices")
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/param"
)

// wsHook runs before the page's own scripts. It wraps WebSocket to record the id of the newest
// params request the page sent (and whether each was a drag's step) and of the newest
// done/error/start reply it received, so that a
// test can wait for the run of its own change and not for one that was already on its way.
// Its message listener is added before the page's, so by the time the page has handled a reply
// the hook has recorded it.
const wsHook = `(() => {
  const h = (window.__e2e = { lastSent: 0, sent: 0, lastStart: -1, lastDone: -1, lastError: -1, opened: 0, closes: [], pictures: [], drags: [] });
  h.canon = (v) => Array.isArray(v) ? "[" + v.map(h.canon).join(",") + "]"
    : v !== null && typeof v === "object" ? "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + h.canon(v[k])).join(",") + "}"
    : JSON.stringify(v);
  const WS = window.WebSocket;
  window.WebSocket = class extends WS {
    constructor(...args) {
      super(...args);
      h.opened++;
      this.addEventListener("message", (e) => {
        let m;
        try { m = JSON.parse(e.data); } catch { return; }
        if (m.type === "start") h.lastStart = m.id;
        if (m.type === "done") h.lastDone = m.id;
        if (m.type === "error") h.lastError = m.id;
        // When each run's first complete picture (its first refine frame) arrived.
        if (m.type === "frame" && m.refine && !h.pictures.some((p) => p.id === m.id)) h.pictures.push({ id: m.id, t: performance.now() });
      });
      this.addEventListener("close", (e) => h.closes.push(e.code));
    }
    send(data) {
      try {
        const m = JSON.parse(data);
        if (m.type === "params") { h.lastSent = m.id; h.sent++; h.drags.push(!!m.drag); }
      } catch {}
      return super.send(data);
    }
  };
})();`

// hookTab installs wsHook in every document the tab loads from now on.
func hookTab(tb testing.TB, ctx context.Context) {
	tb.Helper()
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument,
		page.AddScriptToEvaluateOnNewDocumentParams{Source: wsHook}); err != nil {
		tb.Fatalf("install hook: %v", err)
	}
}

// openLab navigates a hooked tab to url and waits until the first run has finished (or been
// refused with an error).
func openLab(tb testing.TB, ctx context.Context, url string) {
	tb.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url)); err != nil {
		tb.Fatalf("navigate %s: %v", url, err)
	}
	waitSettled(tb, ctx, 0)
}

// lastSent returns the id of the newest request the page sent.
func lastSent(tb testing.TB, ctx context.Context) int {
	tb.Helper()
	return eval[int](tb, ctx, `window.__e2e.lastSent`)
}

// waitSettled waits until the page has sent a request newer than prev and received the done
// (or error) reply to its newest request. It reports whether that reply was an error.
func waitSettled(tb testing.TB, ctx context.Context, prev int) bool {
	tb.Helper()
	waitFor(tb, ctx, fmt.Sprintf(`(() => { const h = window.__e2e;
		return !!h && h.lastSent > %d && (h.lastDone === h.lastSent || h.lastError === h.lastSent); })()`, prev))
	return eval[bool](tb, ctx, `window.__e2e.lastError === window.__e2e.lastSent`)
}

// state is what a test compares before and after a change.
type state struct {
	Search   string            `json:"search"`
	Summary  map[string]string `json:"summary"` // canonical JSON by summary key
	Charts   map[string]string `json:"charts"`  // canonical JSON of each chart's series
	Controls []string          `json:"controls"`
	Raw      string            `json:"raw"` // JSON.stringify(summary)
}

const stateJS = `(() => {
  const p = window.__playground, h = window.__e2e;
  const summary = {};
  for (const [k, v] of Object.entries(p.summary)) summary[k] = h.canon(v);
  const byChart = {};
  for (const s of Object.values(p.series)) (byChart[s.chart] ??= []).push(s);
  const charts = {};
  for (const [c, list] of Object.entries(byChart)) {
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    charts[c] = h.canon(list.map((s) => ({ name: s.name, label: s.label, x: s.x, y: s.y, x_unit: s.x_unit, y_unit: s.y_unit })));
  }
  return { search: location.search, summary, charts, controls: controlValues(), raw: JSON.stringify(p.summary) };
  function controlValues() {
    return [...document.querySelectorAll("#controls input, #controls select")].map((e) =>
      (e.name || "range:" + e.dataset.for) + (e.type === "checkbox" ? "[" + e.value + "]=" + e.checked : "=" + e.value));
  }
})()`

func readState(tb testing.TB, ctx context.Context) state {
	tb.Helper()
	return eval[state](tb, ctx, stateJS)
}

// queryParam returns the value of name in the page's location.search and whether it is there.
func queryParam(tb testing.TB, ctx context.Context, name string) (string, bool) {
	tb.Helper()
	v := eval[*string](tb, ctx, fmt.Sprintf(`new URLSearchParams(location.search).get(%q)`, name))
	if v == nil {
		return "", false
	}
	return *v, true
}

// lookupLab returns the named lab of the registry.
func lookupLab(tb testing.TB, name string) *lab.Lab {
	tb.Helper()
	l, ok := labs.Registry().Lookup(name)
	if !ok {
		tb.Fatalf("no lab %q", name)
	}
	return l
}

// controlKind says which control the page draws for a parameter, as templates.NewPage does.
func controlKind(sp param.Spec) string {
	switch sp.Kind {
	case param.EnumList:
		return "checkboxes"
	case param.Enum:
		return "select"
	case param.Bool:
		return "checkbox"
	case param.Int, param.Float, param.Duration:
		if !sp.Random {
			return "slider"
		}
	}
	return "text"
}

// canonicalJSON decodes b and encodes it again: map keys sorted, numbers as float64, so two
// documents are equal when their values are equal bit for bit.
func canonicalJSON(tb testing.TB, b []byte) string {
	tb.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		tb.Fatalf("decode %.200s: %v", b, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return string(out)
}

// apiSummary returns the canonical JSON summary of GET /api/v1/{lab}?query.
func apiSummary(tb testing.TB, base, labName, query string) string {
	tb.Helper()
	u := base + "/api/v1/" + labName
	if query != "" {
		u += "?" + strings.TrimPrefix(query, "?")
	}
	client := &http.Client{Timeout: 60 * time.Second}
	resp, err := client.Get(u)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %s %s", u, resp.Status, b)
	}
	var r struct {
		Summary json.RawMessage `json:"summary"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		tb.Fatal(err)
	}
	return canonicalJSON(tb, r.Summary)
}

// pageSummary returns the page's summary as canonical JSON.
func pageSummary(tb testing.TB, ctx context.Context) string {
	tb.Helper()
	return canonicalJSON(tb, []byte(eval[string](tb, ctx, `JSON.stringify(window.__playground.summary)`)))
}

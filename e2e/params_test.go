package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// TestParamsConformance runs the conformance vectors of package param
// (param/testdata/conformance.json, which param.TestConformance checks against the server's
// parser) through the page's parameter rules (js/params.js) in Chromium: every raw value has
// the same canonical form or the same error message on both sides, and every value of a
// logarithmic slider the same position (web/templates.TestLogSliderConformance). Then it types an
// out-of-range value into a control: the message at the control is the API's, word for word.
func TestParamsConformance(t *testing.T) {
	b, err := os.ReadFile("../param/testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff?trials=5&sweep=off")
	type mismatch struct {
		Param, Raw, Got, Want string
	}
	js := fmt.Sprintf(`import("/static/js/params.js").then((P) => {
		const c = %s, ps = new Map(c.params.map((p) => [p.name, p])), out = [];
		for (const v of c.vectors) {
			const r = P.parse(ps.get(v.param), v.raw);
			const got = r.error !== undefined ? "error " + r.error : "canonical " + r.canonical;
			const want = v.error ? "error " + v.error : "canonical " + v.canonical;
			if (got !== want) out.push({ Param: v.param, Raw: v.raw, Got: got, Want: want });
		}
		for (const v of c.sliders) {
			const got = P.toSlider({ log_steps: c.log_steps }, ps.get(v.param), v.raw);
			if (got !== v.pos) out.push({ Param: v.param, Raw: v.raw, Got: "slider position " + got, Want: "slider position " + v.pos });
		}
		window.__conformance = { n: c.vectors.length, out };
	})`, b)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!!window.__conformance`)
	n := eval[int](t, ctx, `window.__conformance.n`)
	for _, m := range eval[[]mismatch](t, ctx, `window.__conformance.out`) {
		t.Errorf("%s=%q: the page says %s, the server %s", m.Param, m.Raw, m.Got, m.Want)
	}
	if n < 100 {
		t.Errorf("%d vectors ran, want the whole file", n)
	}
	t.Logf("%d vectors agree", n)

	// At a control: the server's message, word for word.
	resp, err := http.Get(srv.URL + "/api/v1/backoff?clients=5000")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var apiErr struct{ Error string }
	if err := json.Unmarshal(body, &apiErr); err != nil || apiErr.Error == "" {
		t.Fatalf("API: %s %s", resp.Status, body)
	}
	typeValue(t, ctx, textSel("clients"), "5000")
	waitFor(t, ctx, `document.getElementById("err-clients").textContent !== ""`)
	if got := eval[string](t, ctx, `document.getElementById("err-clients").textContent`); got != apiErr.Error {
		t.Errorf("the page says %q at the control, the API %q", got, apiErr.Error)
	}
}

// TestServerErrorAtEveryParam: an error the server reports for a rule across parameters
// names all of them ("params"); the page shows it at every one of their controls, and at
// "param" alone when the list is missing.
func TestServerErrorAtEveryParam(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	// Keep the page's websocket at hand, to deliver the server's reply as the server would.
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
		Source: `(() => { const WS = window.WebSocket; window.WebSocket = class extends WS { constructor(...a) { super(...a); window.__ws = this; } }; })()`,
	}); err != nil {
		t.Fatal(err)
	}
	openLab(t, ctx, srv.URL+"/loadbalance?clients=60&backends=40&subset=6&duration=5s")
	openGroups(t, ctx)
	reply := func(m string) {
		js := fmt.Sprintf(`(() => { const m = %s; m.id = window.__e2e.lastSent;
			window.__ws.dispatchEvent(new MessageEvent("message", { data: JSON.stringify(m) })); })()`, m)
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
			t.Fatal(err)
		}
	}
	const msg = "subset (50) must not exceed backends (40)"
	reply(`{"type": "error", "error": "` + msg + `", "param": "subset", "params": ["subset", "backends"]}`)
	waitFor(t, ctx, `document.getElementById("err-subset").textContent !== ""`)
	shown := eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#controls p.error")].filter((e) => e.textContent).map((e) => [e.id.slice(4), e.textContent]))`)
	for _, name := range []string{"subset", "backends"} {
		if shown[name] != msg {
			t.Errorf("#err-%s = %q, want %q", name, shown[name], msg)
		}
	}
	if len(shown) != 2 {
		t.Errorf("messages at %v, want at subset and backends only", shown)
	}
	for _, name := range []string{"subset", "backends"} {
		if !eval[bool](t, ctx, fmt.Sprintf(`document.querySelector('.control[data-param=%q]').classList.contains("invalid")`, name)) {
			t.Errorf("the %s control is not marked invalid", name)
		}
	}
	// Without "params", the one parameter named.
	reply(`{"type": "error", "error": "clients must be between 1 and 3000, got 0", "param": "clients"}`)
	waitFor(t, ctx, `document.getElementById("err-clients").textContent !== ""`)
	shown = eval[map[string]string](t, ctx, `Object.fromEntries([...document.querySelectorAll("#controls p.error")].filter((e) => e.textContent).map((e) => [e.id.slice(4), e.textContent]))`)
	if len(shown) != 1 || shown["clients"] == "" {
		t.Errorf("messages at %v, want at clients only", shown)
	}
}

package e2e

import (
	"strings"
	"testing"
)

// TestRefusalOffersFit: a scenario refused for the work it needs shows, beside the control the
// refusal names, a button with the value the server says is admitted; pressing it runs the
// scenario with that value (no second refusal), puts it in the address, and the button goes.
// (A server with a small budget, so that the default backoff scenario is refused and the value
// that fits runs in moments.)
func TestRefusalOffersFit(t *testing.T) {
	srv := mustOpenServerConfig(t, serverConfig{budget: 2e6})
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+"/backoff")
	if !eval[bool](t, ctx, `window.__e2e.lastError === window.__e2e.lastSent`) {
		t.Fatal("the default backoff scenario ran on a budget of 2e6 work units; the test needs it refused")
	}
	offer := eval[map[string]string](t, ctx, `(() => {
		const b = document.querySelector("#controls button.fit");
		if (!b) return {};
		const ctl = b.closest(".control");
		return { param: ctl.dataset.param, value: b.dataset.value, text: b.textContent, error: ctl.querySelector("p.error").textContent };
	})()`)
	if offer["param"] == "" {
		t.Fatalf("refused, but no control offers a value that fits: %v", eval[string](t, ctx, `document.querySelector("#controls").innerText`))
	}
	t.Logf("refused: %s — offered %q", offer["error"], offer["text"])
	if !strings.Contains(offer["error"], "lower "+offer["param"]+" to "+offer["value"]) {
		t.Errorf("the button sets %s=%s, which the message does not suggest: %s", offer["param"], offer["value"], offer["error"])
	}
	prev := lastSent(t, ctx)
	evalVoid(t, ctx, `document.querySelector("#controls button.fit").click()`)
	if waitSettled(t, ctx, prev) {
		t.Fatalf("with the offered %s=%s the scenario was refused again: %s", offer["param"], offer["value"],
			eval[string](t, ctx, `document.querySelector("#controls .invalid p.error")?.textContent || ""`))
	}
	if search := eval[string](t, ctx, `location.search`); !strings.Contains(search, offer["param"]+"="+offer["value"]) {
		t.Errorf("address %q, want %s=%s in it", search, offer["param"], offer["value"])
	}
	if n := eval[int](t, ctx, `document.querySelectorAll("#controls button.fit, #controls .invalid").length`); n != 0 {
		t.Errorf("%d offers or invalid controls left after the run was admitted", n)
	}
}

package e2e

import (
	"strings"
	"testing"
)

// TestStatusOneTrial: a run of one trial says so in the singular (issue 30, item 12: "over
// all 1 trials"), and a run of several keeps "over all".
func TestStatusOneTrial(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, c := range []struct{ page, want string }{
		{"/backoff?clients=5&trials=1&sweep=off", "final, from 1 trial."},
		{"/backoff?clients=5&trials=3&sweep=off", "final, over all 3 trials."},
	} {
		openLab(t, ctx, srv.URL+c.page)
		waitDrawn(t, ctx)
		if got := eval[string](t, ctx, `document.getElementById("status").textContent`); !strings.HasSuffix(got, c.want) {
			t.Errorf("%s: status %q, want it to end %q", c.page, got, c.want)
		}
	}
}

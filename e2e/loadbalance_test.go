package e2e

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp/kb"
)

// lbStart is a small scenario of the load-balancing lab.
const lbStart = "/loadbalance?clients=40&backends=30&subset=5&duration=5s&rate=2"

// TestLoadBalanceSlidersChangeHistogram: the clients, backends and subset-size sliders each
// change the URL and the connections-per-backend histogram, and the page shows what the JSON
// API computes for the new URL.
func TestLoadBalanceSlidersChangeHistogram(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	for _, name := range []string{"clients", "backends", "subset"} {
		t.Run(name, func(t *testing.T) {
			openLab(t, ctx, srv.URL+lbStart)
			before := readState(t, ctx)
			if before.Charts["connections"] == "" {
				t.Fatalf("no connections histogram on the page: charts %v", keys(before.Charts))
			}
			orig := textValue(t, ctx, name)
			prev := lastSent(t, ctx)
			for presses := 0; presses < 50 && textValue(t, ctx, name) == orig; presses++ {
				sendKeys(t, ctx, rangeSel(name), kb.ArrowRight)
			}
			value := textValue(t, ctx, name)
			if value == orig {
				t.Fatalf("arrow keys left %s at %s", name, orig)
			}
			if waitSettled(t, ctx, prev) {
				t.Fatalf("run after moving %s failed: %v", name, eval[[]string](t, ctx, `window.__playground.errors`))
			}
			after := readState(t, ctx)
			if got, ok := queryParam(t, ctx, name); !ok || got != value {
				t.Errorf("%s in URL = %q (present %v), want %q", name, got, ok, value)
			}
			if after.Charts["connections"] == before.Charts["connections"] {
				t.Errorf("moving %s from %s to %s left the connections histogram as it was", name, orig, value)
			}
			matchesAPI(t, ctx, srv.URL, "loadbalance", fmt.Sprintf("%s=%s", name, value))
		})
	}
}

func keys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	return k
}

package api_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestCompareControlsIDs renders the compare page of every lab: each side has the lab page's
// controls, one per parameter, and the page's element ids are unique, so that every label,
// description and error message belongs to one side's control.
func TestCompareControlsIDs(t *testing.T) {
	srv := MustOpenServer(t)
	ids := regexp.MustCompile(`\sid="([^"]*)"`)
	refs := regexp.MustCompile(`\s(?:for|aria-describedby|aria-labelledby)="([^"]*)"`)
	params := regexp.MustCompile(`<div class="control [^"]*" data-param="([^"]*)"`)
	for _, lab := range []string{"backoff", "ratelimit", "loadbalance"} {
		resp, body := srv.Get(t, "/compare?a="+url.QueryEscape("/"+lab)+"&b="+url.QueryEscape("/"+lab+"?seed=2"))
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s", lab, resp.Status)
		}
		page := string(body)
		seen := map[string]bool{}
		for _, m := range ids.FindAllStringSubmatch(page, -1) {
			if seen[m[1]] {
				t.Errorf("%s: id %q appears twice on the compare page", lab, m[1])
			}
			seen[m[1]] = true
		}
		for _, m := range refs.FindAllStringSubmatch(page, -1) {
			for _, id := range strings.Fields(m[1]) {
				if !seen[id] {
					t.Errorf("%s: %s refers to no element", lab, strings.TrimSpace(m[0]))
				}
			}
		}
		a, b := strings.Index(page, `id="controls-a"`), strings.Index(page, `id="controls-b"`)
		if a < 0 || b < a {
			t.Fatalf("%s: the compare page lacks A's and B's controls", lab)
		}
		ca, cb := params.FindAllStringSubmatch(page[a:b], -1), params.FindAllStringSubmatch(page[b:], -1)
		if len(ca) == 0 || len(ca) != len(cb) {
			t.Errorf("%s: %d controls for A, %d for B", lab, len(ca), len(cb))
		}
		if !strings.Contains(page, `id="b-p-seed"`) || !strings.Contains(page, `id="a-err-seed"`) {
			t.Errorf("%s: the sides' controls' ids are not prefixed with the side", lab)
		}
	}
}

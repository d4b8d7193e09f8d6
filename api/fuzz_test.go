package api_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/param"
)

// FuzzDecodeMessage: the stream's message decoder never panics, accepts only JSON params
// objects with a non-negative id and a query within the limit, and what it accepts it accepts
// again when re-encoded; its errors make valid close reasons.
func FuzzDecodeMessage(f *testing.F) {
	// More seeds are in testdata/fuzz/FuzzDecodeMessage; these follow the limits.
	for _, n := range []int{param.MaxQueryLen, param.MaxQueryLen + 1} {
		f.Add([]byte(`{"type":"params","id":1,"query":"` + strings.Repeat("é", n/2) + strings.Repeat("a", n%2) + `"}`))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := api.DecodeMessage(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("empty error for %q", b)
			}
			// The stream closes with the clipped error as reason: at most 123 bytes of UTF-8.
			if r := api.Clip(err.Error()); !utf8.ValidString(r) || len(r) > 123 {
				t.Fatalf("close reason %q for %q is not a valid reason", r, b)
			}
			return
		}
		if m.Type != "params" || m.ID < 0 || len(m.Query) > param.MaxQueryLen {
			t.Fatalf("accepted %q as %+v", b, m)
		}
		if !json.Valid(b) {
			t.Fatalf("accepted %q, which is not JSON", b)
		}
		again, err := json.Marshal(map[string]any{"type": m.Type, "id": m.ID, "query": m.Query})
		if err != nil {
			t.Fatal(err)
		}
		m2, err := api.DecodeMessage(again)
		if err != nil || m2 != m {
			t.Fatalf("re-encoded %s decodes to %+v, %v; want %+v", again, m2, err, m)
		}
	})
}

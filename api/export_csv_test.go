package api_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/resilience-playground/playground/lab"
)

// TestCSVExport: /api/v1/{lab}.csv is a download of the same result the JSON API gives, as
// CSV, each row with the scenario's URL, in a file named after the scenario (issue 30, item
// 14: it was "lab.csv" with no scenario); bad input gets the JSON error shape.
func TestCSVExport(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		_, body := srv.MustResult(t, "free", "n=4&steps=3")
		var res lab.Result
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := lab.WriteCSV(&want, &res); err != nil {
			t.Fatal(err)
		}
		resp, got := srv.Get(t, "/api/v1/free.csv?n=4&steps=3")
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/csv") ||
			resp.Header.Get("Content-Disposition") != `attachment; filename="free_n-4.csv"` {
			t.Fatalf("GET .csv: %d %v", resp.StatusCode, resp.Header)
		}
		// Named after the scenario (steps=3 is the default), and every row names it.
		if !bytes.Contains(got, []byte(",/free?n=4\n")) {
			t.Errorf("the CSV's rows do not carry the scenario /free?n=4:\n%s", got)
		}
		if want.Len() < 10 || !bytes.Equal(got, want.Bytes()) {
			t.Errorf("CSV:\n%s\nwant the JSON result's series:\n%s", got, want.Bytes())
		}

		resp, got = srv.Get(t, "/api/v1/free.csv?n=-1")
		var e ErrorBody
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(got, &e) != nil || e.Param != "n" {
			t.Errorf("bad CSV request: %d %s", resp.StatusCode, got)
		}
		if resp, _ := srv.Get(t, "/api/v1/nosuchlab.csv"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown lab's CSV: %d", resp.StatusCode)
		}
	})
}

// TestPreview: /preview/{lab}.svg draws the lab's first chart from its result.
func TestPreview(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := MustOpenServer(t)
		resp, body := srv.Get(t, "/preview/free.svg?n=4&steps=3")
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("GET preview: %d %v", resp.StatusCode, resp.Header)
		}
		svg := string(body)
		if !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "<title>Points</title>") || strings.Count(svg, "<polyline") != 1 ||
			strings.Count(svg, ",") < 3 {
			t.Errorf("preview: %s", svg)
		}
		if resp, _ := srv.Get(t, "/preview/free.svg?n=-1"); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("bad preview request: %d", resp.StatusCode)
		}
		if resp, _ := srv.Get(t, "/preview/nosuchlab.svg"); resp.StatusCode != http.StatusNotFound {
			t.Errorf("unknown lab's preview: %d", resp.StatusCode)
		}
	})
}

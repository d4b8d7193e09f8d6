package e2e

import (
	"bytes"
	"encoding/json"
	"html"
	"image"
	"image/png"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab"
)

// exportURL is a small backoff scenario, away from the defaults.
const exportURL = "/backoff?strategies=none,full&clients=30&trials=8&sweep=10:40:15"

// TestExportLinksMatchAPI opens a lab, then fetches the CSV and JSON the page's download links
// name, in the page: they must be what the API gives for the scenario's URL, and they must
// follow the scenario when a slider moves.
func TestExportLinksMatchAPI(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)

	check := func(wantQuery string) {
		t.Helper()
		for _, link := range []struct{ id, path, ext string }{
			{"csv-download", "/api/v1/backoff.csv", ".csv"},
			{"json-download", "/api/v1/backoff", ".json"},
		} {
			href := eval[string](t, ctx, `document.getElementById("`+link.id+`").getAttribute("href")`)
			if want := link.path + "?" + wantQuery; href != want {
				t.Errorf("%s href = %q, want %q", link.id, href, want)
			}
			// Named after the scenario (issue 30, item 14), as the server names the CSV.
			dl := eval[string](t, ctx, `document.getElementById("`+link.id+`").download`)
			if want := lab.FileName("/backoff?"+wantQuery, link.ext[1:]); dl != want {
				t.Errorf("%s download = %q, want %q", link.id, dl, want)
			}
			if link.ext == ".csv" {
				resp, err := http.Get(srv.URL + link.path + "?" + wantQuery)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				if cd, want := resp.Header.Get("Content-Disposition"), `attachment; filename="`+dl+`"`; cd != want {
					t.Errorf("the CSV comes as %q, want %q, the page's name for it", cd, want)
				}
			}
			page, err := chromedp.Run(ctx, chromedp.Evaluate[string](
				`fetch(document.getElementById("`+link.id+`").href).then((r) => r.ok ? r.text() : "HTTP " + r.status)`,
				chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("fetch %s in the page: %v", link.id, err)
			}
			api := get(t, srv.URL+link.path+"?"+wantQuery)
			if link.ext == ".csv" {
				if page != api || !strings.Contains(page, ",") {
					t.Errorf("CSV from the page's link differs from the API's:\npage %.300q\n api %.300q", page, api)
				}
				continue
			}
			var a, b any
			if err := json.Unmarshal([]byte(page), &a); err != nil {
				t.Fatalf("JSON from the page's link: %v: %.200q", err, page)
			}
			if err := json.Unmarshal([]byte(api), &b); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("JSON from the page's link differs from the API's:\npage %.300s\n api %.300s", page, api)
			}
			if u := a.(map[string]any)["url"]; u != "/backoff?"+wantQuery {
				t.Errorf("the JSON's url = %v, want /backoff?%s", u, wantQuery)
			}
		}
	}
	check(exportURL[strings.Index(exportURL, "?")+1:])

	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "clients", 50, true)
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	check("strategies=none,full&clients=50&trials=8&sweep=10:40:15")

	// A room's follower, whose controls take no input, can still export.
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__playground.setFollowing(true)`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `document.getElementById("controls").inert`)
	if inert := eval[bool](t, ctx, `["csv-download", "json-download", "embed-button", "compare-link", "present-button"].some((id) => !!document.getElementById(id).closest("[inert]"))`); inert {
		t.Error("while following, the export tools are inert")
	}
}

// TestExportPNG clicks each chart's PNG button: the browser downloads a PNG file that decodes,
// has a size, and is not all one colour.
func TestExportPNG(t *testing.T) {
	srv := MustOpenServer(t)
	ctx, dir := openDownloadTab(t, srv.URL+exportURL)
	ids := eval[[]string](t, ctx, `[...document.querySelectorAll("button.png")].map((b) => b.dataset.png)`)
	if len(ids) == 0 {
		t.Fatal("no PNG buttons on the page")
	}
	for _, id := range ids {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.querySelector('button.png[data-png="`+id+`"]').click()`)); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, lab.FileName("/backoff-"+id+exportURL[len("/backoff"):], "png"))
		b := waitFile(t, file)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		r := img.Bounds()
		if r.Dx() < 200 || r.Dy() < 100 {
			t.Errorf("%s is %d×%d, want at least 200×100", id, r.Dx(), r.Dy())
		}
		if n := colours(img); n < 3 {
			t.Errorf("%s has %d colours, want a picture (at least 3)", id, n)
		}
	}
}

// waitFile polls for a completely downloaded file and returns its bytes.
func waitFile(tb testing.TB, name string) []byte {
	tb.Helper()
	const wait = slow * 60 * time.Second // a bound on hangs, not on speed
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(name); err == nil && len(b) > 0 {
			if _, err := png.DecodeConfig(bytes.NewReader(b)); err == nil {
				return b
			}
		}
		time.Sleep(50 * time.Millisecond) // polling the file system for the download
	}
	entries, _ := os.ReadDir(filepath.Dir(name))
	var have []string
	for _, e := range entries {
		have = append(have, e.Name())
	}
	tb.Fatalf("no download %s within %v; the directory has %q", filepath.Base(name), wait, have)
	return nil
}

// colours counts the distinct colours of img, up to 16.
func colours(img image.Image) int {
	seen := map[[4]uint32]bool{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c0, c1, c2, c3 := img.At(x, y).RGBA()
			seen[[4]uint32{c0, c1, c2, c3}] = true
			if len(seen) >= 16 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// get returns the body of a GET of url, failing the test on any error or status but 200.
func get(tb testing.TB, url string) string {
	tb.Helper()
	resp, err := http.Get(url)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %s: %s", url, resp.Status, b)
	}
	return string(b)
}

// TestEmbedSnippet opens the embed box: its snippet frames /embed/{lab} with the scenario on
// show, follows the scenario as it changes, and the page it names may be framed.
func TestEmbedSnippet(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	openLab(t, ctx, srv.URL+exportURL)
	waitDrawn(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById("embed-button").click()`)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, `!document.getElementById("embed-box").hidden && document.getElementById("embed-button").getAttribute("aria-expanded") === "true"`)
	src := func() string {
		code := eval[string](t, ctx, `document.getElementById("embed-code").value`)
		m := regexp.MustCompile(`^<iframe src="([^"]+)"[^>]* title="[^"]+"[^>]*></iframe>$`).FindStringSubmatch(code)
		if m == nil {
			t.Fatalf("snippet %q is not one iframe with a src and a title", code)
		}
		return html.UnescapeString(m[1])
	}
	if got, want := src(), srv.URL+"/embed"+exportURL; got != want {
		t.Errorf("snippet frames %q, want %q", got, want)
	}
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "clients", 50, true)
	waitSettled(t, ctx, prev)
	got := src()
	if want := srv.URL + "/embed/backoff?strategies=none,full&clients=50&trials=8&sweep=10:40:15"; got != want {
		t.Errorf("after a move the snippet frames %q, want %q", got, want)
	}
	resp, err := http.Get(got)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); resp.StatusCode != 200 || !strings.Contains(csp, "frame-ancestors *") || resp.Header.Get("X-Frame-Options") != "" {
		t.Errorf("GET %s: %s, CSP %q, X-Frame-Options %q; want 200 and a page any site may frame", got, resp.Status, csp, resp.Header.Get("X-Frame-Options"))
	}
}

package e2e

import (
	"bytes"
	"context"
	"image/png"
	"path/filepath"
	"strings"
	"testing"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/resilience-playground/playground/lab"
)

// recordExportText records the text drawn onto canvases that are not on the page — the PNG
// export's — in window.__exported, in order.
const recordExportText = `(() => { window.__exported = []; const fill = CanvasRenderingContext2D.prototype.fillText;
	CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
		if (!this.canvas.isConnected) window.__exported.push(String(text));
		return fill.call(this, text, ...rest); }; })()`

// openDownloadTab opens a lab page at url in a tab whose downloads land in the returned
// directory, and waits until it has drawn.
func openDownloadTab(t *testing.T, url string) (context.Context, string) {
	t.Helper()
	ctx := MustOpenTab(t)
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}); err != nil {
		t.Fatalf("set download behaviour: %v", err)
	}
	hookTab(t, ctx)
	openLab(t, ctx, url)
	waitDrawn(t, ctx)
	return ctx, dir
}

// TestExportPNGNamesScenario downloads a chart's PNG after moving a slider: the image draws,
// under the chart's title, the lab and every parameter that differs from the defaults, in
// words, and the scenario's address, so that a picture pasted into slides says what it shows.
func TestExportPNGNamesScenario(t *testing.T) {
	srv := MustOpenServer(t)
	ctx, dir := openDownloadTab(t, srv.URL+exportURL)
	prev := lastSent(t, ctx)
	moveSlider(t, ctx, "clients", 50, true)
	waitSettled(t, ctx, prev)
	waitDrawn(t, ctx)
	if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](recordExportText)); err != nil {
		t.Fatal(err)
	}
	click(t, ctx, `button.png[data-png="work"]`)
	// Named after the chart and the scenario it shows.
	b := waitFile(t, filepath.Join(dir, lab.FileName("/backoff-work?strategies=none,full&clients=50&trials=8&sweep=10:40:15", "png")))
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	drawn := eval[[]string](t, ctx, `window.__exported`)
	t.Logf("the %d×%d PNG draws %q", img.Bounds().Dx(), img.Bounds().Dy(), drawn)
	if len(drawn) < 3 || drawn[0] != "Work vs clients" {
		t.Fatalf("the PNG draws %q; want its title first", drawn)
	}
	// The caption's lines follow the title, wrapped to the image's width: between words, and
	// within the address, which has none.
	page := eval[string](t, ctx, `location.search`)
	if text, want := strings.Join(drawn[1:], " "), "Exponential backoff and jitter — Strategies: No backoff, Full jitter · Clients: 50 · Trials: 8 · Sweep of clients: 10 to 40 in steps of 15"; !strings.Contains(text, want) {
		t.Errorf("the PNG's text %q does not say %q", text, want)
	}
	if text, want := strings.Join(drawn[1:], ""), srv.URL+"/backoff"+page; !strings.Contains(text, want) {
		t.Errorf("the PNG's text %q does not give the address %q", text, want)
	}
	if page != "?strategies=none,full&clients=50&trials=8&sweep=10:40:15" {
		t.Errorf("the page's address is %q", page)
	}
}

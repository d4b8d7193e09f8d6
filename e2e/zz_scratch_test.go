package e2e

import (
	"os"
	"testing"

	"github.com/chromedp/chromedp"
)

func TestZZScratch(t *testing.T) {
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 720)); err != nil {
		t.Fatal(err)
	}
	openLab(t, ctx, srv.URL+os.Getenv("SCRATCH_URL"))
	waitDrawn(t, ctx)
	if js := os.Getenv("SCRATCH_JS"); js != "" {
		chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js))
		if w := os.Getenv("SCRATCH_WAIT"); w != "" {
			waitFor(t, ctx, w)
		}
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/full.png", buf, 0o644)
}

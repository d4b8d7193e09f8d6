package e2e

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshot writes the README's screenshots of the backoff page: docs/page-1280.png at a
// projector's 1280×720 and docs/page-390.png on a 390 px phone. Run with
// PLAYGROUND_SCREENSHOT=1.
func TestScreenshot(t *testing.T) {
	if os.Getenv("PLAYGROUND_SCREENSHOT") != "1" {
		t.Skip("set PLAYGROUND_SCREENSHOT=1 to write docs/page-*.png")
	}
	srv := MustOpenServer(t)
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"page-1280.png", 1280, 720, false}, {"page-390.png", 390, 844, true}} {
		t.Run(vp.name, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			// Size the viewport before the page draws, so the charts are laid out for it.
			opt := []chromedp.EmulateViewportOption{}
			if vp.mobile {
				opt = append(opt, chromedp.EmulateMobile)
			}
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(vp.width, vp.height, opt...)); err != nil {
				t.Fatal(err)
			}
			openLab(t, ctx, srv.URL+"/backoff")
			waitDrawn(t, ctx)
			buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(buf))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %dx%d", vp.name, img.Bounds().Dx(), img.Bounds().Dy())
			out := filepath.Join("..", "docs", vp.name)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(out, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s (%d bytes)", out, len(buf))
		})
	}
}

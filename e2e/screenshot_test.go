package e2e

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScreenshot writes ../docs/screenshot.png, the default backoff page after its run, when
// PLAYGROUND_SCREENSHOT=1:
//
//	PLAYGROUND_SCREENSHOT=1 go test -run TestScreenshot ./e2e/
func TestScreenshot(t *testing.T) {
	if os.Getenv("PLAYGROUND_SCREENSHOT") != "1" {
		t.Skip("set PLAYGROUND_SCREENSHOT=1 to write docs/screenshot.png")
	}
	const width, height = 1280, 1600
	srv := MustOpenServer(t)
	ctx := MustOpenTab(t)
	hookTab(t, ctx)
	// Size the viewport before the page draws, so the charts are laid out for it.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(width, height)); err != nil {
		t.Fatal(err)
	}
	openLab(t, ctx, srv.URL+"/backoff")
	time.Sleep(300 * time.Millisecond) // the last redraw's animation frame
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
		t.Errorf("screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), width, height)
	}
	out := filepath.Join("..", "docs", "screenshot.png")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(buf))
}

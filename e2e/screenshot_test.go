package e2e

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestScreenshot writes the README's screenshots from the current build: the backoff page at a
// projector's 1280×720 (docs/page-1280.png), in the dark theme (page-dark.png), on a 390×844
// phone (page-390.png), the jitter tour's first step in projector view at 1920×1080
// (projector-1920.png) and the front page at 1280×720, light and dark (front-1280.png,
// front-dark.png: the previews follow the theme); and what issue 30 fixed, at 1280×720: a
// table projected with its "Project this" button (projector-table-1280.png), small multiples
// projected (projector-multiples-1280.png) and writes over time at cap=1h
// (timeline-cap1h-1280.png). Run with PLAYGROUND_SCREENSHOT=1.
func TestScreenshot(t *testing.T) {
	if os.Getenv("PLAYGROUND_SCREENSHOT") != "1" {
		t.Skip("set PLAYGROUND_SCREENSHOT=1 to write docs/page-*.png")
	}
	srv := mustOpenServerConfig(t, serverConfig{warm: true}) // previews drawn at start-up, as cmd/playground does
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
		url           string
		dark, project bool
		focus         string // a chart or table to project with its "Project this" button
	}{
		{"page-1280.png", 1280, 720, false, "/backoff", false, false, ""},
		{"page-dark.png", 1280, 720, false, "/backoff", true, false, ""},
		{"page-390.png", 390, 844, true, "/backoff", false, false, ""},
		{"projector-1920.png", 1920, 1080, false, "/backoff?strategies=none,exponential#tour=jitter/1", false, true, ""},
		{"front-1280.png", 1280, 720, false, "/", false, false, ""},
		{"front-dark.png", 1280, 720, false, "/", true, false, ""},
		{"projector-table-1280.png", 1280, 720, false, "/loadbalance", false, false, "table-policies"},
		{"projector-multiples-1280.png", 1280, 720, false, "/loadbalance", false, false, "chart-cpu_hist"},
		{"timeline-cap1h-1280.png", 1280, 720, false, "/backoff?cap=1h", false, false, "chart-timeline"},
	} {
		t.Run(vp.name, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			// Size the viewport before the page draws, so the charts are laid out for it.
			emulateSize(t, ctx, vp.width, vp.height, vp.mobile)
			if vp.dark {
				emulateScheme(t, ctx, "dark")
			}
			if vp.url == "/" {
				if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
					t.Fatal(err)
				}
				// The previews drawn (the test server does not warm them at start-up).
				waitFor(t, ctx, `[...document.querySelectorAll(".preview img")].every((i) => i.complete && i.naturalWidth > 0)`)
			} else {
				openLab(t, ctx, srv.URL+vp.url)
				waitDrawn(t, ctx)
			}
			if vp.project {
				// The step revealed, as a class sees it after predicting.
				eval[bool](t, ctx, `([...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Reveal").click(), true)`)
				click(t, ctx, "#present-button")
				waitFor(t, ctx, `document.documentElement.classList.contains("presenting")`)
				waitDrawn(t, ctx)
				waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
			}
			if vp.focus != "" {
				project(t, ctx, vp.focus)
			}
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

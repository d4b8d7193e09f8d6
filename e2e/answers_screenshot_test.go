package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/coder/websocket"
)

// TestAnswersScreenshot writes the screenshots of a class answering (issue 31): the
// presenter's projector view at 1920×1080 with the class's live distribution
// (docs/answers-projector-1920.png) and after the reveal, the truth marked
// (docs/answers-revealed-1920.png), and a follower's 390×844 phone answering
// (docs/answers-390.png). Twenty-four followers are websocket clients answering from Go; the
// phone is one more, in the browser. Run with PLAYGROUND_SCREENSHOT=1.
func TestAnswersScreenshot(t *testing.T) {
	if os.Getenv("PLAYGROUND_SCREENSHOT") != "1" {
		t.Skip("set PLAYGROUND_SCREENSHOT=1 to write docs/answers-*.png")
	}
	srv := MustOpenServer(t)
	res, err := http.Post(srv.URL+"/api/v1/rooms", "application/json", strings.NewReader(`{"url": "/backoff"}`))
	if err != nil {
		t.Fatal(err)
	}
	var created struct {
		Code         string `json:"code"`
		PresenterURL string `json:"presenter_url"`
	}
	if err := json.NewDecoder(res.Body).Decode(&created); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()

	pres := MustOpenPrivateTab(t)
	emulateSize(t, pres, 1920, 1080, false)
	navigate(t, pres, srv.URL+created.PresenterURL)
	waitFor(t, pres, `!!window.__playground?.room?.presenting`)
	evalVoid(t, pres, `location.hash = "#tour=jitter/3"`)
	waitFor(t, pres, `!!document.querySelector(".answers .answers-status")`)

	phone := MustOpenPrivateTab(t)
	emulateSize(t, phone, 390, 844, true)
	navigate(t, phone, srv.URL+"/join/"+created.Code)
	waitFor(t, phone, `!!document.querySelector('.answer-option[data-id="full"]')`)
	click(t, phone, `.answer-option[data-id="full"]`)
	waitFor(t, phone, `document.querySelector('.answer-option[aria-pressed="true"]')?.dataset.id === "full"`)

	// The rest of the class.
	ctx := context.Background()
	ws := strings.Replace(srv.URL, "http://", "ws://", 1) + "/api/v1/rooms/" + created.Code + "/stream"
	for i, v := range strings.Split(strings.Repeat("full,", 10)+strings.Repeat("equal,", 8)+strings.Repeat("decorrelated,", 5)+"equal", ",") {
		c, _, err := websocket.Dial(ctx, ws, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.CloseNow() })
		go func() { // read, as a page does, so the server's writes never wait
			for {
				if _, _, err := c.Read(ctx); err != nil {
					return
				}
			}
		}()
		b, _ := json.Marshal(map[string]any{"type": "answer", "step": "jitter/3", "answer": v, "who": fmt.Sprintf("screenshot-follower-%04d", i)})
		if err := c.Write(ctx, websocket.MessageText, b); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, pres, `document.querySelector(".answers-status").textContent === "25 of 25 followers answered"`)
	click(t, pres, "#present-button")
	waitFor(t, pres, `document.documentElement.classList.contains("presenting")`)
	shoot(t, pres, "answers-projector-1920.png")
	shoot(t, phone, "answers-390.png")

	click(t, pres, "#tour .tour-reveal")
	waitFor(t, pres, `!!document.querySelector(".answers-row.truth")`)
	waitDrawn(t, pres)
	shoot(t, pres, "answers-revealed-1920.png")
	waitFor(t, phone, `!!document.querySelector(".answers-row.truth")`)
	shoot(t, phone, "answers-revealed-390.png")
}

// shoot writes a screenshot of a tab to docs/name, after two animation frames.
func shoot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	waitFor(t, ctx, `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))`)
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("..", "docs", name)
	if err := os.WriteFile(out, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s (%d bytes)", out, len(buf))
}

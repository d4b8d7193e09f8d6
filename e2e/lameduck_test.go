package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// drain is the lame-duck period the test gives the server: twice the run in flight's length.
const drain = 10 * time.Second

// TestLameDuckShutdownAndReconnect signals the real binary to stop while a page watches it and
// another page's run is in flight: readiness must flip, the run in flight must finish and
// reach its page, the process must exit cleanly, and once a new process listens on the same
// port the page must reconnect by itself and show the same scenario and the same numbers. How
// long the exit took is logged; the test waits for it up to a bound on hangs, not on speed.
func TestLameDuckShutdownAndReconnect(t *testing.T) {
	raceToo(t)
	browser(t) // skip before building when there is no browser
	bin := buildBinary(t)
	addr := freeAddr(t)
	base := "http://" + addr
	// While the server is down, the page's reconnect attempts fail; the browser logs each.
	ExpectConsole(t, "WebSocket connection to")

	old := startServer(t, bin, addr, drain)

	page := MustOpenTab(t)
	hookTab(t, page)
	const scenario = "/backoff?strategies=none,exponential,full&clients=30&trials=12&seed=9&sweep=10:30:10"
	openLab(t, page, base+scenario)
	before := readState(t, page)
	wantSummary := pageSummary(t, page)
	runs := eval[int](t, page, `window.__playground.runs`)
	sent := lastSent(t, page)

	// A run in flight in a second page when the signal comes: the gated test lab's run takes
	// 5 s of wall time (three updates 2.5 s apart), within the drain deadline. The signal
	// follows its start at once; the page's log of messages (wall-clock times) shows
	// afterwards that its end came after the signal.
	heavy := MustOpenTab(t)
	hookTab(t, heavy)
	hookFrames(t, heavy)
	if err := chromedp.Do(heavy, chromedp.Navigate(base+"/gated?steps=3&pause=2500ms")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, heavy, `window.__e2e.lastSent > 0 && window.__e2e.lastStart === window.__e2e.lastSent`)

	signalled := time.Now()
	if err := old.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// Readiness flips at once; poll it fast until the process is gone.
	client := &http.Client{Timeout: 2 * time.Second}
	var ready503, exited bool
	var firstNotReady time.Duration
	for !exited && time.Since(signalled) < drain+slow*30*time.Second {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			code := resp.StatusCode
			resp.Body.Close()
			if code == http.StatusServiceUnavailable && !ready503 {
				ready503, firstNotReady = true, time.Since(signalled)
			}
		}
		select {
		case <-old.exited:
			exited = true
		case <-time.After(2 * time.Millisecond):
		}
	}
	if !exited {
		select {
		case <-old.exited:
		case <-time.After(drain + slow*60*time.Second - time.Since(signalled)):
			t.Fatalf("server still running %v after SIGTERM with -drain %v\n%s", time.Since(signalled), drain, old.log())
		}
	}
	took := time.Since(signalled)
	if code := old.cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("exit status %d after SIGTERM, want 0\n%s", code, old.log())
	}
	heavyDone := eval[bool](t, heavy, `window.__e2e.lastDone === window.__e2e.lastSent`)
	t.Logf("lame duck: /readyz 503 after %v (seen %v), exited after %v",
		firstNotReady.Round(time.Millisecond), ready503, took.Round(time.Millisecond))
	if !heavyDone {
		t.Errorf("the run in flight did not finish before the server exited")
	} else if doneAt := eval[float64](t, heavy, `window.__frames.findLast((m) => m.type === "done").wall`); doneAt < float64(signalled.UnixMilli()) {
		t.Errorf("the run meant to be in flight had finished %.0f ms before the signal: the drain was not tested", float64(signalled.UnixMilli())-doneAt)
	}
	if log := old.log(); strings.Contains(log, "after the grace period") {
		t.Errorf("streams were still open when the grace after the drain deadline ran out:\n%s", log)
	}
	if cl := eval[[]int](t, heavy, `window.__e2e.closes`); len(cl) == 0 || cl[0] != 1001 {
		t.Errorf("the draining page's stream closed with %v, want 1001 (going away) first", cl)
	}
	if !ready503 {
		t.Errorf("/readyz never reported 503 while a run was draining")
	}
	if cl := eval[[]int](t, page, `window.__e2e.closes`); len(cl) == 0 || cl[0] != 1001 {
		t.Errorf("the idle page's stream closed with %v, want 1001 (going away) first", cl)
	}
	if err := chromedp.Do(heavy, chromedp.Navigate("about:blank")); err != nil { // spare the new server
		t.Fatal(err)
	}

	// A new process on the same port: the page comes back by itself.
	startServer(t, bin, addr, drain)
	waitFor(t, page, fmt.Sprintf(`window.__playground.runs > %d && window.__e2e.lastSent > %d &&
		window.__e2e.lastDone === window.__e2e.lastSent`, runs, sent))
	after := readState(t, page)
	if after.Search != before.Search {
		t.Errorf("search after reconnect = %q, want %q", after.Search, before.Search)
	}
	if got := pageSummary(t, page); got != wantSummary {
		t.Errorf("summary after reconnect differs:\n got %.300s\nwant %.300s", got, wantSummary)
	}
	if !mapsEqual(after.Charts, before.Charts) {
		t.Errorf("series after reconnect differ")
	}
	if status := eval[string](t, page, `document.getElementById("status").textContent`); len(status) < 4 || status[:4] != "Done" {
		t.Errorf("status after reconnect = %q", status)
	}
}

// server is a playground process.
type server struct {
	cmd    *exec.Cmd
	exited chan struct{}
	mu     sync.Mutex
	buf    bytes.Buffer
}

func (s *server) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *server) log() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

// startServer starts bin serving on addr with the given drain period and waits until it is
// ready. The process is stopped when the test ends, if it is still running.
func startServer(t *testing.T, bin, addr string, drain time.Duration, flags ...string) *server {
	t.Helper()
	s := &server{exited: make(chan struct{})}
	s.cmd = exec.Command(bin, append([]string{"serve", "-addr", addr, "-drain", drain.String(), "-max-runs", "2"}, flags...)...)
	s.cmd.Stdout, s.cmd.Stderr = s, s
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
			return
		default:
		}
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(drain + slow*30*time.Second):
			_ = s.cmd.Process.Kill()
			<-s.exited
		}
	})
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(slow * 60 * time.Second) // a bound on hangs, not on speed
	for {
		resp, err := client.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s
			}
		}
		select {
		case <-s.exited:
			t.Fatalf("server exited while starting: %v\n%s", s.cmd.ProcessState, s.log())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not ready on %s: %v\n%s", addr, err, s.log())
		}
	}
}

// freeAddr returns a loopback address with a port nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(port)
}

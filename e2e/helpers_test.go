package e2e

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/room"
	"github.com/resilience-playground/playground/room/roomtest"
)

// chromiumPaths are the browsers the tests can drive, the first installed one: Debian's
// chromium-headless-shell, Chromium's headless mode as a program of its own — the same Blink
// and V8 as the desktop browser of the same package version, without the desktop browser's
// parts around them (drawing this suite's pages, it spends half the CPU: 220 CPU-s for the
// plain browser suite against 415, on the 2-core CI machine) — then Debian's chromium itself
// (/usr/bin/chromium is a wrapper script).
var chromiumPaths = []string{"/usr/lib/chromium/chromium-headless-shell", "/usr/lib/chromium/chromium"}

var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel context.CancelFunc = func() {}
	browserDir    string
)

// TestMain closes the package's browser and removes its profile after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	if browserDir != "" {
		os.RemoveAll(browserDir)
	}
	os.Exit(code)
}

// MustOpenServer starts a playground server on a loopback port for the test.
func MustOpenServer(tb testing.TB) *httptest.Server {
	tb.Helper()
	return mustOpenServerWith(tb)
}

// mustOpenServerWith is MustOpenServer with extra labs (of tests) beside the playground's.
func mustOpenServerWith(tb testing.TB, extra ...*lab.Lab) *httptest.Server {
	tb.Helper()
	return mustOpenServerConfig(tb, serverConfig{extra: extra})
}

// serverConfig is how a test's server differs from MustOpenServer's.
type serverConfig struct {
	maxRuns int               // run slots (0: 2)
	extra   []*lab.Lab        // labs of tests beside the playground's
	api     func(*api.Config) // changes to the API's configuration (a room store, say)
	warm    bool              // draw the front page's previews before serving, as cmd/playground does
	budget  int64             // work units a run may use (0: api.DefaultBudget)
}

// mustOpenServerConfig is MustOpenServer configured by c.
func mustOpenServerConfig(tb testing.TB, c serverConfig) *httptest.Server {
	tb.Helper()
	if c.maxRuns == 0 {
		c.maxRuns = 2
	}
	if c.budget == 0 {
		c.budget = api.DefaultBudget
	}
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: c.maxRuns, Budget: c.budget, CacheSize: 64, Observe: m.ObserveRun})
	cfg := api.Config{Labs: labs.Registry(c.extra...), Hub: h, Metrics: m}
	if c.api != nil {
		c.api(&cfg)
	}
	a := api.New(cfg)
	if c.warm {
		a.WarmPreviews(context.Background())
	}
	srv := httptest.NewServer(a)
	tb.Cleanup(srv.Close)
	return srv
}

// raceTests holds the top-level names of the browser tests marked with raceToo.
var raceTests sync.Map

// raceToo marks a browser test that drives the server's concurrency — a room's presenter and
// followers, on one server or two sharing Redis; a drain; streams replaced under a dragging
// hand; a busy server —: it runs under the race detector too. Every other browser test drives
// the server one viewer at a time through code the API tests already run under the detector,
// and runs only in CI's plain step (internal/heavy): under -race, browser skips it. A marked
// test runs in CI under -race only (heavy.RaceToo), not again in the plain run beside it.
func raceToo(tb testing.TB) {
	name, _, _ := strings.Cut(tb.Name(), "/")
	raceTests.Store(name, true)
}

// browser returns the package's one browser, started on first use. Without chromium the test
// is skipped loudly, unless CI is set, when it fails. Under the race detector it skips a test
// not marked with raceToo.
func browser(tb testing.TB) context.Context {
	tb.Helper()
	name, _, _ := strings.Cut(tb.Name(), "/")
	_, marked := raceTests.Load(name)
	switch {
	case heavy.Race && !marked:
		tb.Skip("a browser test of one viewer: runs without -race (CI's plain test step); see raceToo")
	case marked:
		heavy.RaceToo(tb) // in CI, the race run covers it
	}
	browserOnce.Do(func() {
		i := slices.IndexFunc(chromiumPaths, func(p string) bool { _, err := os.Stat(p); return err == nil })
		if i < 0 {
			browserErr = fmt.Errorf("no chromium at %s (apt-get install chromium-headless-shell)", strings.Join(chromiumPaths, " or "))
			return
		}
		dir, err := os.MkdirTemp("", "e2e-chromium-")
		if err != nil {
			browserErr = err
			return
		}
		browserDir = dir
		opts := []chromedp.ExecAllocatorOption{
			chromedp.ExecPath(chromiumPaths[i]),
			chromedp.Headless, chromedp.NoSandbox,
			chromedp.Flag("disable-gpu", true),
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("no-first-run", true),
			chromedp.Flag("disable-background-networking", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true),
			chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(dir),
			chromedp.WindowSize(1280, 900),
		}
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browserCancel = func() { cancelCtx(); cancelAlloc() }
		if err := chromedp.Do(ctx); err != nil {
			browserErr = fmt.Errorf("starting chromium: %w", err)
			return
		}
		browserCtx = ctx
	})
	if browserErr != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("browser tests need chromium in CI: %v", browserErr)
		}
		tb.Skipf("SKIPPING BROWSER TEST — %v", browserErr)
	}
	return browserCtx
}

// MustOpenTab opens a new tab for the test and fails the test on any console error or
// uncaught exception in it. The tab lives for at most tabLife.
func MustOpenTab(tb testing.TB) context.Context {
	tb.Helper()
	return mustOpenTabWith(tb)
}

// MustOpenPrivateTab is MustOpenTab in a browser context of its own, as another person's
// device: its storage (localStorage, sessionStorage, cookies) is shared with no other tab.
func MustOpenPrivateTab(tb testing.TB) context.Context {
	tb.Helper()
	return mustOpenTabWith(tb, chromedp.WithNewBrowserContext())
}

func mustOpenTabWith(tb testing.TB, opts ...chromedp.ContextOption) context.Context {
	tb.Helper()
	ctx, cancel := chromedp.NewContext(browser(tb), opts...)
	ctx, cancelT := context.WithTimeout(ctx, tabLife)
	messages := chromedp.Console(ctx)
	if err := chromedp.Do(ctx); err != nil {
		tb.Fatal(err)
	}
	// chromedp enables the Network domain: every websocket frame a page receives is then
	// copied to this process too. No test reads the network's events.
	if _, err := chromedp.Call(ctx, network.Disable, cdp.Empty{}); err != nil {
		tb.Fatal(err)
	}
	var (
		mu   sync.Mutex
		errs []string
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m))
				mu.Unlock()
			}
		}
	}()
	tb.Cleanup(func() {
		cancelT()
		cancel()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, e := range errs {
			if tb.Name() != "" && !allowedConsole(tb, e) {
				tb.Errorf("console error: %s", e)
			}
		}
	})
	return ctx
}

// allowedConsole reports console messages a test expects (set with ExpectConsole).
func allowedConsole(tb testing.TB, msg string) bool {
	expectMu.Lock()
	defer expectMu.Unlock()
	for _, s := range expected[tb.Name()] {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

var (
	expectMu sync.Mutex
	expected = map[string][]string{}
)

// ExpectConsole lets console errors containing s pass in this test (a deliberately failing
// request, say).
func ExpectConsole(tb testing.TB, s string) {
	expectMu.Lock()
	defer expectMu.Unlock()
	expected[tb.Name()] = append(expected[tb.Name()], s)
}

// eval evaluates a JavaScript expression in the tab.
func eval[T any](tb testing.TB, ctx context.Context, expr string) T {
	tb.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		tb.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// The bounds on a browser test's waits are bounds on hangs, not on speed: a busy 2-core
// machine running the race detector can take minutes over what takes a second when it is
// idle, and must still pass. A tab lives for at most tabLife; one condition is awaited for at
// most waitLimit.
const (
	tabLife   = slow * 10 * time.Minute
	waitLimit = slow * 3 * time.Minute
)

// waitFor polls a JavaScript condition until it is true (for at most waitLimit).
func waitFor(tb testing.TB, ctx context.Context, cond string) {
	tb.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(waitLimit))); err != nil {
		tb.Fatalf("waiting for %s: %v", cond, err)
	}
}

// buildBinary builds cmd/playground into a temporary directory, with the e2e build tag: the
// binary also serves the gated test lab at /gated (see package labtest).
func buildBinary(tb testing.TB) string {
	tb.Helper()
	bin := tb.TempDir() + "/playground"
	out, err := exec.Command("go", "build", "-tags", "e2e", "-o", bin, "../cmd/playground").CombinedOutput()
	if err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// mustOpenRedisPair starts a real redis-server and two playground servers sharing rooms
// through it, and returns their URLs.
func mustOpenRedisPair(tb testing.TB) (a, b string) {
	tb.Helper()
	rd := roomtest.MustStartRedisServer(tb)
	open := func() string {
		store, err := room.NewRedis(context.Background(), rd.URL, room.Limits{})
		if err != nil {
			tb.Fatal(err)
		}
		tb.Cleanup(func() { store.Close() })
		return mustOpenServerConfig(tb, serverConfig{api: func(c *api.Config) { c.Rooms = store }}).URL
	}
	return open(), open()
}

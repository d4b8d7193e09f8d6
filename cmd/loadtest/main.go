// Command loadtest puts a classroom's worth of websocket viewers on a local playground server
// and reports how it copes.
//
//	loadtest [-url http://127.0.0.1:8080] [-lab backoff] [-viewers 300] [-duration 60s]
//	         [-think 2s] [-scenarios classroom|presenter|spread] [-base-query trials=20]
//	         [-churn N [-churn-concurrency 20]] [-json] [-max-errors 0] [-timeout 15s]
//	loadtest room [-url http://localhost:8080] [-followers 300] [-changes 30]
//	         [-scenario /backoff?clients=50&trials=10] [-vary seed] [-interval 500ms]
//	         [-timeout 30s] [-compress=true] [-q]
//
// # Viewers mode (the default)
//
// K viewers join over the ramp period, each on its own stream (see the stream protocol in
// package api). Every viewer opens the presenter's scenario, as a page does when it connects,
// then changes parameters at human speed: about every -think (randomized ±50%) it makes one
// gesture, such as dragging the clients slider a few steps (one message per step, 40–120ms
// apart, as a page sends on every input event). The value space is bounded so that results
// can be cached and shared: clients in -clients (10:190:10), one of -strategy-sets, seed in
// 1..-seeds. -scenarios picks how viewers move through it:
//
//   - classroom: each viewer explores on its own from the presenter's scenario; most gestures
//     drag clients, some toggle the strategies, some change the seed.
//   - presenter: a presenter makes the gestures and every viewer follows, sending the
//     presenter's scenario at its own pace (the shared-run case).
//   - spread: every gesture jumps to a uniformly random point of the space (the cache's worst
//     case).
//
// For each parameter change the tool measures the time from sending it to the first "frame"
// and to "done" with its id, overall, for the changes that met a "busy" reply, for those
// served in a single frame (from the server's cache) and per -window of the load (to see the
// cache warm up). As on the page, replies to a change are ignored once a newer one has been
// sent; such changes count as superseded and give no latency sample. A viewer whose connection
// fails or closes unexpectedly reconnects with capped, jittered backoff.
//
// # Churn mode
//
// With -churn N, the tool runs N cycles, -churn-concurrency at a time, of: connect, send one
// to three parameter changes, then vanish (drop the TCP connection without a close handshake
// and without reading a reply). It checks that the server lets go of the abandoned streams
// and their runs: compare the goroutines at baseline and at the end.
//
// # Room mode
//
// loadtest room measures a teaching room's fan-out (see package internal/roomload): it
// creates a room for -scenario, connects -followers followers to its stream, becomes the
// presenter on one more connection, and makes -changes changes one at a time, -interval
// apart, each setting the -vary parameter to a fresh value so that each is a new run. For
// each change it times, from the moment the change is sent, every follower's arrival of the
// room message with the new version, of the new run's start, of its first frame and of its
// "done". It prints, per message, p50/p99/max over the changes of the last follower's time
// (the time for the whole room to see the change), the same over every follower-change, and
// the first follower's p50; then the CPU used during the changes by the tool and by the
// machine. It exits with status 1, naming what failed, when the room cannot be created or
// joined, a connection fails, an error reply arrives, or a change does not reach every
// follower within -timeout; 2 on bad usage. The other flags and the report below are those
// of viewers and churn modes.
//
// # Report
//
// The tool scrapes the server's /metrics before the load (baseline), every -scrape-every during
// it (peak) and once the server has settled afterwards (end: when goroutines stop falling, at
// most -settle), and reports goroutines, heap and resident memory at each, with the server's
// CPU use, runs by outcome and refusals by reason. Since the tool usually shares the machine
// with the server, it also reports its own CPU use and, on Linux, the whole machine's and the
// share of time tasks waited for a CPU: latencies measured on a saturated machine include that
// wait. It prints a human-readable report, or with -json a JSON report on standard output (the
// human one then goes to standard error); progress lines go to standard error unless -q.
//
// The tool stops by itself: the load lasts at most -duration (or -churn cycles), every dial,
// write and wait for a reply is bounded by -timeout, and settling by -settle. It exits with
// status 1 when more than -max-errors errors occurred (dial failures, error replies,
// unexpected closes, stalls and failed sends), 2 on bad usage.
//
// Only loopback servers may be targeted: a -url whose host is not localhost, 127.0.0.0/8 or
// ::1 is refused.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// config is the parsed command line.
type config struct {
	base        *url.URL // the server, checked to be loopback
	lab         string
	viewers     int
	duration    time.Duration
	ramp        time.Duration
	think       time.Duration
	scenarios   string
	baseQuery   url.Values
	clients     []int
	sets        []string
	seeds       int
	churn       int
	churnConc   int
	timeout     time.Duration
	scrapeEvery time.Duration
	settle      time.Duration
	window      time.Duration
	jsonOut     bool
	maxErrors   int
	quiet       bool
}

// streamURL is the lab's websocket stream endpoint.
func (c *config) streamURL() string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/api/v1/" + url.PathEscape(c.lab) + "/stream"
	u.RawQuery = ""
	return u.String()
}

// metricsURL is the server's Prometheus endpoint.
func (c *config) metricsURL() string {
	u := *c.base
	u.Path = strings.TrimSuffix(u.Path, "/") + "/metrics"
	u.RawQuery = ""
	return u.String()
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("loadtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		rawURL    = fs.String("url", "http://127.0.0.1:8080", "server to load; must be loopback (localhost, 127.0.0.0/8, ::1)")
		labName   = fs.String("lab", "backoff", "lab whose stream to load")
		viewers   = fs.Int("viewers", 300, "concurrent viewers (viewers mode)")
		duration  = fs.Duration("duration", 60*time.Second, "how long the load lasts (both modes)")
		ramp      = fs.Duration("ramp", 5*time.Second, "period over which viewers join")
		think     = fs.Duration("think", 2*time.Second, "mean time between a viewer's gestures, randomized ±50%")
		scenarios = fs.String("scenarios", "classroom", "how viewers pick parameters: classroom, presenter or spread")
		baseQuery = fs.String("base-query", "trials=20", "the presenter's scenario, as a query; viewers vary clients, strategies and seed on top")
		clients   = fs.String("clients", "10:190:10", "values of clients viewers drag over, from:to:step")
		sets      = fs.String("strategy-sets", "none,exponential,full,equal,decorrelated;exponential,full;none,exponential,full,equal",
			"strategies values viewers toggle among, separated by ';' (the first is the presenter's)")
		seeds       = fs.Int("seeds", 5, "viewers pick seed among 1..seeds")
		churn       = fs.Int("churn", 0, "churn mode: run this many connect/send/vanish cycles instead of viewers")
		churnConc   = fs.Int("churn-concurrency", 20, "churn cycles at a time")
		timeout     = fs.Duration("timeout", 15*time.Second, "bound on each dial and write, and on the wait for any reply to a pending change")
		scrapeEvery = fs.Duration("scrape-every", time.Second, "how often /metrics is scraped during the load")
		settle      = fs.Duration("settle", 15*time.Second, "longest wait, after the load, for the server's goroutines to stop falling")
		window      = fs.Duration("window", 10*time.Second, "report latency to first frame per window of this length (0: no windows)")
		jsonOut     = fs.Bool("json", false, "print a JSON report on standard output (the human one goes to standard error)")
		maxErrors   = fs.Int("max-errors", 0, "exit with status 1 when more errors than this occur")
		quiet       = fs.Bool("q", false, "no progress lines on standard error")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loadtest [flags]   (see go doc ./cmd/loadtest)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	u, err := loopbackURL(*rawURL)
	if err != nil {
		return nil, err
	}
	c := &config{
		base: u, lab: *labName, viewers: *viewers, duration: *duration, ramp: *ramp, think: *think,
		scenarios: *scenarios, seeds: *seeds, churn: *churn, churnConc: *churnConc, timeout: *timeout,
		scrapeEvery: *scrapeEvery, settle: *settle, window: *window, jsonOut: *jsonOut, maxErrors: *maxErrors, quiet: *quiet,
	}
	switch {
	case c.lab == "" || strings.Contains(c.lab, "/"):
		return nil, fmt.Errorf("-lab must be a lab name, got %q", c.lab)
	case c.viewers < 1:
		return nil, errors.New("-viewers must be at least 1")
	case c.duration <= 0:
		return nil, errors.New("-duration must be positive")
	case c.ramp < 0:
		return nil, errors.New("-ramp must not be negative")
	case c.think <= 0:
		return nil, errors.New("-think must be positive")
	case c.scenarios != "classroom" && c.scenarios != "presenter" && c.scenarios != "spread":
		return nil, fmt.Errorf("-scenarios must be classroom, presenter or spread, got %q", c.scenarios)
	case c.seeds < 1:
		return nil, errors.New("-seeds must be at least 1")
	case c.churn < 0:
		return nil, errors.New("-churn must not be negative")
	case c.churnConc < 1:
		return nil, errors.New("-churn-concurrency must be at least 1")
	case c.timeout <= 0 || c.scrapeEvery <= 0 || c.settle < 0 || c.window < 0:
		return nil, errors.New("-timeout and -scrape-every must be positive, -settle and -window not negative")
	}
	if c.baseQuery, err = url.ParseQuery(strings.TrimPrefix(*baseQuery, "?")); err != nil {
		return nil, fmt.Errorf("-base-query: %v", err)
	}
	if c.clients, err = parseRange(*clients); err != nil {
		return nil, fmt.Errorf("-clients: %v", err)
	}
	for s := range strings.SplitSeq(*sets, ";") {
		if s = strings.TrimSpace(s); s != "" {
			c.sets = append(c.sets, s)
		}
	}
	if len(c.sets) == 0 {
		return nil, errors.New("-strategy-sets must name at least one set")
	}
	return c, nil
}

// parseRange parses from:to:step into its values; a single number is a range of one.
func parseRange(s string) ([]int, error) {
	parts := strings.Split(s, ":")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return nil, fmt.Errorf("%q is not from:to:step", s)
		}
		nums[i] = n
	}
	switch len(nums) {
	case 1:
		return nums, nil
	case 3:
	default:
		return nil, fmt.Errorf("%q is not from:to:step", s)
	}
	from, to, step := nums[0], nums[1], nums[2]
	if step <= 0 || to < from || (to-from)/step >= 10000 {
		return nil, fmt.Errorf("%q must have from <= to, a positive step and at most 10000 values", s)
	}
	var out []int
	for v := from; v <= to; v += step {
		out = append(out, v)
	}
	return out, nil
}

// loopbackURL parses raw as an http(s) or ws(s) URL and refuses it unless its host is
// localhost or a loopback address (127.0.0.0/8, ::1): the tool must never load a server
// elsewhere. ws and wss are returned as http and https.
func loopbackURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("-url: %v", err)
	}
	switch u.Scheme {
	case "http", "https":
	case "ws":
		u.Scheme = "http"
	case "wss":
		u.Scheme = "https"
	default:
		return nil, fmt.Errorf("-url must be an http, https, ws or wss URL, got %q", raw)
	}
	if u.User != nil {
		return nil, errors.New("-url must not carry credentials")
	}
	if !isLoopbackHost(u.Hostname()) {
		return nil, fmt.Errorf("-url host %q is not loopback; this tool only loads localhost, 127.0.0.0/8 or ::1", u.Hostname())
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, fmt.Errorf("-url port %q is not a port number", p)
		}
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// isLoopbackHost reports whether host (without port or brackets) is "localhost" or an IP
// address in 127.0.0.0/8 or ::1. Other names are refused even if they resolve to loopback.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	if strings.Contains(host, "%") { // a zone: fe80::1%lo is not ::1
		return false
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "room" {
		return runRoom(args[1:], stdout, stderr)
	}
	cfg, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	t := newTester(cfg, stderr)
	rep, err := t.run(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest: %v\n", err)
		return 1
	}
	human := stdout
	if cfg.jsonOut {
		human = stderr
	}
	rep.writeText(human)
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			fmt.Fprintf(stderr, "loadtest: %v\n", err)
			return 1
		}
	}
	if rep.Errors.Total > int64(cfg.maxErrors) {
		return 1
	}
	return 0
}

// newHTTPClient returns the client used for dials and scrapes: every phase bounded by timeout.
func newHTTPClient(timeout time.Duration, conns int) *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                 nil, // never send loopback traffic through a proxy
			DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   timeout,
			ResponseHeaderTimeout: timeout,
			MaxIdleConns:          conns,
			MaxIdleConnsPerHost:   conns,
			IdleConnTimeout:       30 * time.Second,
			ForceAttemptHTTP2:     false,
		},
		// No Timeout here: it would also bound the life of the websocket connections; each
		// dial and scrape has its own context deadline instead.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Command loadtest puts load on a local playground server and reports how it copes: a
// classroom's worth of websocket viewers on any lab, connections that vanish, a teaching
// room's fan-out, and an attack by hostile clients.
//
//	loadtest [viewers] [-url http://127.0.0.1:8080] [-lab backoff] [-viewers 300] [-duration 60s]
//	         [-think 2s] [-scenarios classroom|presenter|spread] [-base-query Q]
//	         [-vary name[=positions]]... [-stops 8] [-seeds 5] [-json] [-max-errors 0]
//	loadtest churn [-churn 1000] [-churn-concurrency 20] [the viewers flags]
//	loadtest room [-url http://localhost:8080] [-followers 300] [-changes 30]
//	         [-scenario /backoff?clients=50&trials=10] [-vary seed] [-interval 500ms]
//	         [-answer-step jitter/3 -answer-values full,equal,decorrelated]
//	loadtest attack [-url http://127.0.0.1:8080] [-pid PID] [-patterns heavy,streams,…]
//	         [-conns 8] [-calm 10s] [-duration 30s] [-viewer /backoff] [-target name=URL]…
//	         [-idle 2000]
//	loadtest memory [-url http://127.0.0.1:8080] -pid PID [-runs 8] [-budget 2e8]
//
// Every mode takes -url (the server: only loopback hosts — localhost, 127.0.0.0/8, ::1 — are
// accepted), -timeout (the bound on each dial, write, request and wait for a reply; the tool
// stops by itself), -compress (offer permessage-deflate, as browsers do) and -q (no progress
// lines on standard error). The logic is package internal/loadtest; this command is its flags.
//
// # Viewers mode (the default)
//
// K viewers join over the ramp period, each on its own stream of the -lab (see the stream
// protocol in package api). Every viewer opens the presenter's scenario (-base-query; the
// lab's defaults when empty), as a page does when it connects, then changes parameters at
// human speed: about every -think (randomized ±50%) it makes one gesture — mostly dragging one
// slider a few stops (one message per stop, 40–120ms apart, as a page sends on every input
// event), otherwise choosing another option of a menu, ticking or clearing a checkbox of a list,
// or rolling another seed.
//
// The scenarios come from the lab's own parameter declarations, so any lab can be loaded:
// each slider takes -stops positions spread over its declared range (on its logarithmic scale
// when it has one) plus the presenter's value, a menu its options, a checkbox list its
// non-empty subsets, a seed 1..-seeds. Viewers move every parameter -base-query does not set,
// or those named by -vary (repeatable, or comma-separated): "clients", or "clients=10:190:10"
// (from:to:step, whole numbers) or "base=1ms|5ms|20ms" to give the positions. The space is
// bounded so that results repeat and the server's cache and shared runs can serve them, as
// they do a class exploring one scenario. -scenarios picks how viewers move through it:
//
//   - classroom: each viewer explores on its own from the presenter's scenario.
//   - presenter: a presenter makes the gestures and every viewer follows, sending the
//     presenter's scenario at its own pace (the shared-run case).
//   - spread: every gesture jumps to a uniformly random point of the space (the cache's worst
//     case).
//
// For each parameter change the tool measures the time from sending it to the first "frame"
// and to "done" with its id, overall, for the changes that met a "busy" reply, for those
// served in a single frame (from the server's cache) and per -window of the load (to see the
// cache warm up). As on the page, replies to a change are ignored once a newer one has been
// sent; such changes count as superseded. A change refused with an error that names a
// parameter (the work budget, say: the query itself was drawn from the declarations) counts as
// refused, an answer a page shows by its control, not an error. A viewer whose connection
// fails or closes unexpectedly reconnects with capped, jittered backoff.
//
// # Churn mode
//
// loadtest churn (or -churn N in viewers mode) runs N cycles, -churn-concurrency at a time,
// of: connect, send one to three parameter changes, then vanish (drop the TCP connection
// without a close handshake and without reading a reply). It checks that the server lets go
// of the abandoned streams and their runs: compare the goroutines at baseline and at the end.
//
// # Report of viewers and churn
//
// The tool scrapes the server's /metrics before the load (baseline), every -scrape-every during
// it (peak) and once the server has settled afterwards (end: when goroutines stop falling, at
// most -settle), and reports goroutines, heap and resident memory at each, with the server's
// CPU use, runs by outcome and refusals by reason. Since the tool usually shares the machine
// with the server, it also reports its own CPU use and, on Linux, the whole machine's and the
// share of time tasks waited for a CPU: latencies measured on a saturated machine include that
// wait. It prints a human-readable report, or with -json a JSON report on standard output (the
// human one then goes to standard error). It exits with status 1 when more than -max-errors
// errors occurred (dial failures, error replies naming no parameter, unexpected closes,
// stalls, failed sends, protocol errors), 2 on bad usage.
//
// # Room mode
//
// loadtest room measures a teaching room's fan-out: it creates a room for -scenario, connects
// -followers followers to its stream, becomes the presenter on one more connection, and makes
// -changes changes one at a time, -interval apart, each setting the -vary parameter to a fresh
// value so that each is a new run. For each change it times, from the moment the change is
// sent, every follower's arrival of the room message with the new version, of the new run's
// start, of its first frame and of its "done". It prints a Markdown table, per message, of
// p50/p99/max over the changes of the last follower's time (the time for the whole room to see
// the change), the same over every follower-change, and the first follower's p50; then the CPU
// used during the changes by the server, the tool and the machine. It exits with status 1,
// naming what failed, when the room cannot be created or joined, a connection fails, an error
// reply arrives, or a change does not reach every follower within -timeout; 2 on bad usage.
//
// With -answer-step, a tour step of the scenario's lab that asks the class a question, the
// presenter then moves the room to it and every follower answers at once (each an anonymous
// follower of its own, the -answer-values in turn); the report adds how long after the first
// answer was sent the presenter's live tally counted every follower, in how many tally
// messages, and the CPU meanwhile.
//
// # Memory mode
//
// loadtest memory reports what the heaviest admitted scenarios of each lab hold: for each lab,
// the scenario whose memory estimate is largest among those that put one or two of its memory
// parameters (or all of them) at the top of their ranges, each taken within -budget and the
// memory bound by following the refusals' suggested values; -runs of it at once, each with its
// own seed and from an address of its own; the server's resident memory read from
// /proc/-pid/status every 10 ms. It prints, per lab, the scenario, its estimate, the peak
// resident memory and whether it stayed under the soft memory limit the server runs with (its
// go_gc_gomemlimit_bytes). A report, not a test: it exits with status 1 only when it could not
// run.
//
// # Attack mode
//
// loadtest attack repeats what a hostile client can do, all at once, -conns connections per
// pattern (-patterns picks some; -target name=URL replaces a pattern's URL):
//
//   - heavy: the heaviest admitted runs, GET /api/v1/backoff?trials=1000&seed=<fresh>, in loops;
//   - streams: streams running a heavy load-balancing scenario, the next at each done;
//   - memory: bursts of memory-heavy load-balancing runs (3000 clients and backends, subsets of
//     1000, every policy);
//   - refusals: an over-budget rate-limiter URL, refused, in loops;
//   - rooms: room creation in loops;
//   - codes: join-code guessing, GET /api/v1/rooms/<random code>, in loops;
//   - presenter: a presenter sending updates as fast as its socket takes them to a room of
//     -followers followers;
//   - roomruns: -conns rooms of the heavy load-balancing scenario opened from one address, each
//     presented with a fresh seed at each done, beside two streams of the same from that
//     address (a room's runs are charged to the address that made it);
//   - idle: idle streams, the lab's and a room's, opened from one address as fast as the server
//     takes them, up to -idle, and held (the server caps streams per address and in all);
//   - addresses: streams of the heavy scenario from -conns addresses of their own (127.0.1.1,
//     …), one run each, the next at each done.
//
// First, for -calm, a default viewer (-viewer, a new connection each visit sending the
// scenario with a fresh seed, -pause apart) visits alone; then the patterns start and, once
// every one is under way, run for -duration while the viewer keeps visiting. Beside it, fresh
// viewers visit the same way, each from an address the server has never seen (127.0.100.1,
// …, when the server is on IPv4 loopback): the report gives when a fresh viewer gets its first
// frame while the attack runs — the fair slots' promise to a new address, as a figure. The report gives each pattern's outcomes (answers by status,
// replies by type, closes by code, timeouts), the viewer's first frame and done times without
// and under attack (p50, p90, max), the slots held (runs in flight from /metrics, every
// -scrape-every), the server's resident memory before, at its peak and after (from
// /proc/PID/status with -pid, else from /metrics), and the server's refusals by reason. 429
// and 503 answers, refusals, busy and error replies and timeouts are expected answers; the
// command exits with status 1, naming them, only on protocol errors (a 500, an error without
// its JSON body, a 429 or 503 without Retry-After, a reset connection, a malformed message, an
// unexpected close), never on a latency figure; 2 on bad usage.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/resilience-playground/playground/internal/loadtest"
	"github.com/resilience-playground/playground/labs"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the mode args name and returns the exit status: 0, 1 when the load failed (or, in
// viewers mode, had too many errors), 2 on bad usage.
func run(args []string, stdout, stderr io.Writer) int {
	mode := "viewers"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		mode, args = args[0], args[1:]
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch mode {
	case "viewers", "churn":
		return viewers(ctx, mode, args, stdout, stderr)
	case "room":
		return room(ctx, args, stdout, stderr)
	case "attack":
		return attack(ctx, args, stdout, stderr)
	case "memory":
		return memory(ctx, args, stdout, stderr)
	default:
		err = fmt.Errorf("unknown mode %q; the modes are viewers (the default), churn, room, attack and memory", mode)
	}
	fmt.Fprintf(stderr, "loadtest: %v\n", err)
	return 2
}

// serverFlags declares the flags every mode has.
func serverFlags(fs *flag.FlagSet, s *loadtest.Server, url string, timeout time.Duration, compress bool) *bool {
	fs.StringVar(&s.URL, "url", url, "server to load; must be loopback (localhost, 127.0.0.0/8, ::1)")
	fs.DurationVar(&s.Timeout, "timeout", timeout, "bound on each dial, write and request, and on each wait for a reply")
	fs.BoolVar(&s.Compress, "compress", compress, "offer permessage-deflate on websockets, as browsers do")
	return fs.Bool("q", false, "no progress lines on standard error")
}

// parse parses args into fs, which must take no arguments; it returns the exit status when
// the command should stop (0 for -h).
func parse(fs *flag.FlagSet, args []string, stderr io.Writer) (int, bool) {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: %s [flags]   (see go doc ./cmd/loadtest)\n", fs.Name())
		fs.PrintDefaults()
	}
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case err != nil:
		return 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	return 0, false
}

// prepare parses args into fs, sends progress lines to stderr unless quiet, and checks the
// configuration; it returns the exit status when the command should stop.
func prepare(fs *flag.FlagSet, args []string, stderr io.Writer, s *loadtest.Server, quiet *bool, check func() error) (int, bool) {
	if code, stop := parse(fs, args, stderr); stop {
		return code, true
	}
	if !*quiet {
		s.Progress = stderr
	}
	if err := check(); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
		return 2, true
	}
	return 0, false
}

// fail says why the load failed and returns the exit status 1.
func fail(fs *flag.FlagSet, stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "%s: %v\n", fs.Name(), err)
	return 1
}

// list is a flag that may be given several times, each a comma-separated list.
type list []string

func (l *list) String() string { return strings.Join(*l, ",") }

func (l *list) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

func viewers(ctx context.Context, mode string, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest "+mode, flag.ContinueOnError)
	cfg := loadtest.ViewersConfig{Labs: labs.Registry()}
	quiet := serverFlags(fs, &cfg.Server, "http://127.0.0.1:8080", 15*time.Second, false)
	fs.StringVar(&cfg.Lab, "lab", "backoff", "lab whose stream to load")
	fs.IntVar(&cfg.Viewers, "viewers", 300, "concurrent viewers")
	fs.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long the load lasts, at most")
	fs.DurationVar(&cfg.Ramp, "ramp", 5*time.Second, "period over which viewers join")
	fs.DurationVar(&cfg.Think, "think", 2*time.Second, "mean time between a viewer's gestures, randomized ±50%")
	fs.StringVar(&cfg.Scenarios, "scenarios", "classroom", "how viewers pick parameters: classroom, presenter or spread")
	fs.StringVar(&cfg.BaseQuery, "base-query", "", "the presenter's scenario, as a query of the lab (empty: its defaults)")
	fs.Var((*list)(&cfg.Vary), "vary", "parameters viewers move, each name or name=positions (from:to:step or v1|v2|…); repeatable; default: every parameter -base-query does not set")
	fs.IntVar(&cfg.Stops, "stops", 8, "positions a slider takes, spread over its declared range (plus the presenter's value)")
	fs.IntVar(&cfg.Seeds, "seeds", 5, "viewers pick a seed among 1..seeds")
	churn := 0
	if mode == "churn" {
		churn = 1000
	}
	fs.IntVar(&cfg.Churn, "churn", churn, "run this many connect/send/vanish cycles instead of viewers")
	fs.IntVar(&cfg.ChurnConcurrency, "churn-concurrency", 20, "churn cycles at a time")
	fs.DurationVar(&cfg.ScrapeEvery, "scrape-every", time.Second, "how often /metrics is scraped during the load")
	fs.DurationVar(&cfg.Settle, "settle", 15*time.Second, "longest wait, after the load, for the server's goroutines to stop falling")
	fs.DurationVar(&cfg.Window, "window", 10*time.Second, "report latency to first frame per window of this length (0: no windows)")
	jsonOut := fs.Bool("json", false, "print a JSON report on standard output (the human one goes to standard error)")
	maxErrors := fs.Int64("max-errors", 0, "exit with status 1 when more errors than this occur")
	check := func() error {
		if mode == "churn" && cfg.Churn < 1 {
			return errors.New("-churn must be at least 1")
		}
		return cfg.Check()
	}
	if code, stop := prepare(fs, args, stderr, &cfg.Server, quiet, check); stop {
		return code
	}
	rep, err := loadtest.Viewers(ctx, cfg)
	if err != nil {
		return fail(fs, stderr, err)
	}
	if !report(rep, rep.WriteText, *jsonOut, stdout, stderr) {
		return 1
	}
	if rep.Errors.Total > *maxErrors {
		return fail(fs, stderr, fmt.Errorf("%d errors, more than -max-errors %d", rep.Errors.Total, *maxErrors))
	}
	return 0
}

func room(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest room", flag.ContinueOnError)
	var cfg loadtest.RoomConfig
	quiet := serverFlags(fs, &cfg.Server, "http://localhost:8080", 30*time.Second, true)
	fs.IntVar(&cfg.Followers, "followers", 300, "followers in the room")
	fs.IntVar(&cfg.Changes, "changes", 30, "changes the presenter makes, one at a time")
	fs.StringVar(&cfg.Scenario, "scenario", "/backoff?clients=50&trials=10", "the room's scenario (a lab URL); keep it cheap to measure the fan-out, not the simulation")
	fs.StringVar(&cfg.Vary, "vary", "seed", "parameter set to a fresh value at each change, so that each is a new run; empty: resend the scenario (a cached run)")
	fs.DurationVar(&cfg.Interval, "interval", 500*time.Millisecond, "pause between one change reaching every follower and the next change")
	fs.StringVar(&cfg.AnswerStep, "answer-step", "", "a tour step that asks a question (jitter/3 of backoff): after the changes every follower answers it at once, and the report says how soon the presenter's tally counts them all")
	values := fs.String("answer-values", "", "comma-separated answers the followers send in turn (options' IDs or numbers), with -answer-step")
	check := func() error {
		if *values != "" {
			cfg.AnswerValues = strings.Split(*values, ",")
		}
		return cfg.Check()
	}
	if code, stop := prepare(fs, args, stderr, &cfg.Server, quiet, check); stop {
		return code
	}
	res, err := loadtest.MeasureRoom(ctx, cfg)
	if err != nil {
		return fail(fs, stderr, err)
	}
	res.WriteText(stdout)
	return 0
}

// targets is the -target flag: pattern=URL, repeatable.
type targets map[string]string

func (t targets) String() string { return fmt.Sprint(map[string]string(t)) }

func (t targets) Set(s string) error {
	name, u, ok := strings.Cut(s, "=")
	if !ok {
		return errors.New("want pattern=URL")
	}
	t[name] = u
	return nil
}

func attack(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest attack", flag.ContinueOnError)
	cfg := loadtest.AttackConfig{Targets: map[string]string{}}
	quiet := serverFlags(fs, &cfg.Server, "http://127.0.0.1:8080", 60*time.Second, true)
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process id, to read its memory from /proc (Linux); 0: from its /metrics")
	fs.Var((*list)(&cfg.Patterns), "patterns", "patterns to run, comma-separated (default: all)")
	fs.IntVar(&cfg.Conns, "conns", 8, "connections per pattern")
	fs.DurationVar(&cfg.Calm, "calm", 10*time.Second, "how long the default viewer visits alone, before the attack")
	fs.DurationVar(&cfg.Duration, "duration", 30*time.Second, "how long the attack lasts")
	fs.StringVar(&cfg.Viewer, "viewer", "/backoff", "the default viewer's scenario (a fresh seed each visit)")
	fs.DurationVar(&cfg.Pause, "pause", 500*time.Millisecond, "pause between the default viewer's visits")
	fs.DurationVar(&cfg.ScrapeEvery, "scrape-every", 250*time.Millisecond, "how often /metrics (and /proc) are read")
	fs.IntVar(&cfg.Followers, "followers", 20, "followers of the room the presenter floods")
	fs.Var(targets(cfg.Targets), "target", "pattern=URL: replace a pattern's URL (repeatable)")
	fs.IntVar(&cfg.Idle, "idle", 2000, "most idle streams the idle pattern opens")
	jsonOut := fs.Bool("json", false, "print a JSON report on standard output (the human one goes to standard error)")
	if code, stop := prepare(fs, args, stderr, &cfg.Server, quiet, cfg.Check); stop {
		return code
	}
	rep, err := loadtest.Attack(ctx, cfg)
	if err != nil {
		return fail(fs, stderr, err)
	}
	if !report(rep, rep.WriteText, *jsonOut, stdout, stderr) {
		return 1
	}
	if rep.ProtocolErrors > 0 {
		return fail(fs, stderr, fmt.Errorf("%d protocol errors, e.g. %s", rep.ProtocolErrors, strings.Join(rep.ErrorSamples, "; ")))
	}
	return 0
}

func memory(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("loadtest memory", flag.ContinueOnError)
	cfg := loadtest.MemoryConfig{Labs: labs.Registry()}
	quiet := serverFlags(fs, &cfg.Server, "http://127.0.0.1:8080", 5*time.Minute, false)
	fs.IntVar(&cfg.PID, "pid", 0, "the server's process id, to read its memory from /proc (Linux; required)")
	fs.IntVar(&cfg.Runs, "runs", 8, "runs of each lab's heaviest admitted scenario at once")
	budget := fs.Float64("budget", 2e8, "the server's work budget (its -budget), which scenarios are admitted within")
	fs.Var((*list)(&cfg.Names), "labs", "labs to report, comma-separated (default: all)")
	jsonOut := fs.Bool("json", false, "print a JSON report on standard output (the human one goes to standard error)")
	if code, stop := prepare(fs, args, stderr, &cfg.Server, quiet, func() error {
		if *budget < 0 || *budget > 1e18 || *budget != math.Trunc(*budget) {
			return errors.New("-budget must be a whole number of work units, such as 2e8")
		}
		cfg.Budget = int64(*budget)
		return cfg.Check()
	}); stop {
		return code
	}
	rep, err := loadtest.MeasureMemory(ctx, cfg)
	if err != nil {
		return fail(fs, stderr, err)
	}
	if !report(rep, rep.WriteText, *jsonOut, stdout, stderr) {
		return 1
	}
	return 0
}

// report prints rep for people with writeText, and with jsonOut as JSON on stdout (the human
// report then goes to stderr). It reports whether it could.
func report(rep any, writeText func(io.Writer), jsonOut bool, stdout, stderr io.Writer) bool {
	if !jsonOut {
		writeText(stdout)
		return true
	}
	writeText(stderr)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		fmt.Fprintf(stderr, "loadtest: writing the JSON report: %v\n", err)
		return false
	}
	return true
}

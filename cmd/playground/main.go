// Command playground serves the Resilience Playground, or runs one scenario from the command
// line.
//
//	playground [serve] [-addr localhost:8080] [-max-runs N] [-share N] [-max-run-cpu 1m0s] [-budget N] [-drain 20s]
//	                   [-allow-host name]... [-allow-origin host]... [-redis URL] [-max-rooms N] [-client-rooms N]
//	                   [-network-rooms N] [-max-streams N] [-client-streams N]
//	playground run [-format json|csv] URL
//	playground help [-format markdown]
//
// URL is a page or API URL such as '/backoff?clients=100&seed=7' (scheme and host optional).
// run prints the same JSON as GET /api/v1/...; with -format csv it prints the series. Bad input
// exits with status 2 and a message naming the parameter; progress goes to standard error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs"
	"github.com/resilience-playground/playground/room"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// extraLabs are labs added to the registry by build-tagged files (the e2e tests' gated lab).
var extraLabs []*lab.Lab

func registry() *lab.Registry { return labs.Registry(extraLabs...) }

func run(args []string, stdout, stderr io.Writer) int {
	cmd := "serve"
	switch {
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		cmd, args = args[0], args[1:]
	case len(args) > 0 && isHelp(args[0]):
		cmd, args = "help", nil // playground -h: the whole usage, not only serve's flags
	}
	switch cmd {
	case "serve":
		return serve(args, stderr)
	case "run":
		return runURL(args, stdout, stderr)
	case "help":
		return help(args, stdout, stderr)
	}
	fmt.Fprintf(stderr, "playground: unknown command %q\n", cmd)
	usage(stderr)
	return 2
}

// help prints the usage, or with -format markdown every lab's parameters as Markdown
// (docs/parameters.md).
func help(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text (the usage) or markdown (every lab's parameters, docs/parameters.md)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	switch *format {
	case "text":
		usage(stdout)
	case "markdown":
		if err := lab.WriteMarkdown(stdout, registry().All()); err != nil {
			fmt.Fprintf(stderr, "playground help: %v\n", err)
			return 1
		}
	default:
		fmt.Fprintf(stderr, "playground help: -format must be text or markdown, got %q\n", *format)
		return 2
	}
	return 0
}

func isHelp(arg string) bool { return arg == "-h" || arg == "-help" || arg == "--help" }

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  playground [serve] [flags]        serve the playground (see playground serve -h)
  playground run [-format csv] URL  run one scenario, e.g. '/backoff?clients=100&seed=7'
                                    (progress on standard error when it is a terminal,
                                    or with -progress; -q: never)
  playground help [-format markdown] this text, or every lab's parameters as Markdown

`)
	for _, l := range registry().All() {
		fmt.Fprintf(w, "/%s — %s\n", l.Name, l.Title)
		for _, p := range l.Params {
			fmt.Fprintf(w, "  %-14s %-9s default %-22s %s\n", p.Name, p.Kind, p.Default, p.Help)
		}
	}
}

// names is a repeatable flag.
type names []string

func (o *names) String() string     { return strings.Join(*o, ",") }
func (o *names) Set(v string) error { *o = append(*o, v); return nil }

// workUnits is the -budget flag's value: work units, written as a whole number or as the
// server's messages write them ("2e+08", "2e6").
type workUnits int64

func (w *workUnits) String() string { return strconv.FormatInt(int64(*w), 10) }

func (w *workUnits) Set(s string) error {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		x, ferr := strconv.ParseFloat(s, 64)
		if n = int64(x); ferr != nil || x != math.Trunc(x) || x > 1e18 {
			n = -1
		}
	}
	if n < 0 {
		return errors.New("want a whole number of work units from 0 to 1e18, such as 200000000 or 2e8")
	}
	*w = workUnits(n)
	return nil
}

// runLimits returns the work budget and the CPU safety net serve runs with, from its flags: the
// net derived from the budget when only the budget is given (or neither), the budget from the
// net when only the net is, so that the net stays three times above what the budget admits
// (api.MaxRunCPUFor) and a scenario too heavy for the net is refused before it runs, with a
// value that fits, rather than stopped partway. Both given with the net under that, it says
// so in warning: runs the budget admits may then be stopped.
func runLimits(fs *flag.FlagSet, budget workUnits, cpu time.Duration) (workUnits, time.Duration, string) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	switch {
	case !given["max-run-cpu"] || cpu == 0:
		return budget, api.MaxRunCPUFor(int64(budget)), ""
	case !given["budget"]:
		return workUnits(api.BudgetFor(cpu)), cpu, ""
	case budget > 0 && cpu < api.MaxRunCPUFor(int64(budget)):
		return budget, cpu, fmt.Sprintf("-max-run-cpu %v is under three times what -budget %.3g admits (%v): runs the budget admits may be stopped partway; -budget %.3g suits it",
			cpu, float64(budget), api.MaxRunCPUFor(int64(budget)), float64(api.BudgetFor(cpu)))
	}
	return budget, cpu, ""
}

// budgetFlag defines -budget on fs, api.DefaultBudget by default.
func budgetFlag(fs *flag.FlagSet) *workUnits {
	w := workUnits(api.DefaultBudget)
	fs.Var(&w, "budget", "most work units per run, as its lab estimates them, such as 2e8 (0: no limit on work)")
	return &w
}

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:8080", "address to listen on")
	maxRuns := fs.Int("max-runs", 4*runtime.NumCPU(), "runs at once (their computing shares the CPUs fairly)")
	share := fs.Int("share", 0, "slots kept free for clients (remote addresses) that have not had one lately: a client holding a run, or whose run has just ended, takes one only while this many stay free (default max-runs/4; -1: off)")
	budget := budgetFlag(fs)
	maxRunCPU := fs.Duration("max-run-cpu", 0, "most computing time per run before it is stopped: the safety net under the estimates (default three times what -budget takes, 1m0s at the default budget; given alone, it sets -budget to match: 200ms admits 6.67e5 units)")
	drain := fs.Duration("drain", 20*time.Second, "on SIGTERM, how long runs in flight may finish")
	warm := fs.Bool("warm-previews", true, "draw the front page's previews of every lab's default scenario at start-up")
	// The default is not $REDIS_URL itself: -h prints defaults, and the URL may hold a password.
	redisURL := fs.String("redis", "", "Redis URL (redis://host:port/db) keeping rooms shared by every replica; default $REDIS_URL, or rooms in this process's memory")
	maxRooms := fs.Int("max-rooms", room.DefaultRooms, "most live rooms at once (over every replica sharing -redis)")
	clientRooms := fs.Int("client-rooms", room.DefaultPerOwner, "most live rooms one client (remote address) may have opened")
	networkRooms := fs.Int("network-rooms", room.DefaultPerNetwork, "most live rooms the clients of one network (an IPv4 /24, an IPv6 /48) may have opened")
	nofile := descriptorLimit()
	maxStreams := fs.Int("max-streams", defaultMaxStreams(nofile), "most streams (websockets) open at once; at most half the descriptor limit (ulimit -n), by default the smaller of that and "+itoa(api.DefaultMaxStreams))
	clientStreams := fs.Int("client-streams", api.DefaultMaxClientStreams, "most streams one client (remote address) may hold open")
	var hosts, allow names
	fs.Var(&hosts, "allow-host", "host name (or pattern such as *.example.com) the server answers to besides localhost and IP addresses (repeatable)")
	fs.Var(&allow, "allow-origin", "host pattern of another origin whose pages may open streams (repeatable)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if err := checkStreams(*maxStreams, *clientStreams, nofile); err != nil {
		fmt.Fprintf(stderr, "playground: %v\n", err)
		return 2
	}
	log := slog.New(slog.NewJSONHandler(stderr, nil))
	room.LogRedisTo(log)

	if *redisURL == "" {
		*redisURL = os.Getenv("REDIS_URL")
	}
	limits := room.Limits{Rooms: *maxRooms, PerOwner: *clientRooms, PerNetwork: *networkRooms}
	var rooms room.Store
	if *redisURL != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		r, err := room.NewRedis(ctx, *redisURL, limits)
		cancel()
		if err != nil {
			fmt.Fprintf(stderr, "playground: -redis: %v\n", err) // NewRedis's errors never quote a password
			return 1
		}
		rooms = r
	} else {
		rooms = room.NewMemory(limits)
	}
	defer rooms.Close()

	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit(*maxRuns))
	}
	var warning string
	*budget, *maxRunCPU, warning = runLimits(fs, *budget, *maxRunCPU)
	if warning != "" {
		log.Warn(warning)
	}
	metrics := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: *maxRuns, Share: *share, Budget: int64(*budget), MaxRunCPU: *maxRunCPU, CacheSize: 512, Observe: metrics.ObserveRun})
	srv := api.New(api.Config{Labs: registry(), Hub: h, Log: log, AllowedHosts: hosts, AllowedOrigins: allow, Metrics: metrics, Rooms: rooms,
		MaxStreams: *maxStreams, MaxClientStreams: *clientStreams})
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    16 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "playground: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "Resilience Playground on http://%s/\n", ln.Addr())

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	if *warm {
		go srv.WarmPreviews(ctx)
	}
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "playground: %v\n", err)
		return 1
	case <-ctx.Done():
	}

	// Lame duck: report not ready, start no new runs, let runs in flight finish until the
	// deadline, then cancel what still runs; every stream is closed with 1001 so pages
	// reconnect elsewhere, within a short grace after the deadline; then exit.
	log.Info("draining", "deadline", drain.String())
	deadline, cancel := context.WithTimeout(context.Background(), *drain)
	defer cancel()
	srv.Drain()
	h.Drain(deadline)
	srv.CloseStreams()
	grace, cancelGrace := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancelGrace()
	if err := srv.WaitStreams(grace); err != nil {
		log.Warn("streams still open after the grace period", "err", err)
	}
	if err := hs.Shutdown(grace); err != nil {
		log.Warn("shutdown", "err", err)
	}
	log.Info("stopped")
	return 0
}

// memoryLimit is the soft limit on the heap of a server running at most maxRuns runs at once
// (debug.SetMemoryLimit, unless GOMEMLIMIT says otherwise): what the runs may hold
// (lab.MaxRunMemory each) and 64 MiB for the rest. Near it the garbage collector works harder
// instead of letting garbage double the heap: eight runs at the bound peaked at 404 MB of
// resident memory with it, 516 MB without (docs/operating.md).
func memoryLimit(maxRuns int) int64 { return 64<<20 + int64(max(maxRuns, 1))*lab.MaxRunMemory }

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// shutdownGrace is how long, after the drain deadline, streams have to send their close
// frames and HTTP requests to finish.
const shutdownGrace = 2 * time.Second

func runURL(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "json", "output format: json or csv")
	budget := budgetFlag(fs)
	quiet := fs.Bool("q", false, "no progress on standard error")
	always := fs.Bool("progress", false, "progress on standard error even when it is not a terminal")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "playground run: give exactly one URL, such as '/backoff?clients=100'")
		return 2
	}
	if *format != "json" && *format != "csv" {
		fmt.Fprintf(stderr, "playground run: -format must be json or csv, got %q\n", *format)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// Progress rewrites one line of the terminal; written to a file or a pipe, it would fill a
	// log with carriage returns.
	show := !*quiet && (*always || isTerminal(stderr))
	var progress func(lab.Update)
	if show {
		progress = func(u lab.Update) {
			if p := u.Progress; p != nil && p.Total > 0 {
				fmt.Fprintf(stderr, "\r%s %3d%%", p.Stage, 100*p.Done/p.Total)
			}
		}
	}
	res, err := api.RunURL(ctx, registry(), fs.Arg(0), int64(*budget), progress)
	if show {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if err != nil {
		fmt.Fprintf(stderr, "playground run: %v\n", err)
		return api.ExitCode(err)
	}
	if *format == "csv" {
		err = lab.WriteCSV(stdout, res)
	} else {
		err = api.EncodeJSON(stdout, res)
	}
	if err != nil {
		fmt.Fprintf(stderr, "playground run: %v\n", err)
		return 1
	}
	return 0
}

// defaultMaxStreams is -max-streams' default: api.DefaultMaxStreams, or half the descriptor
// limit nofile when that is smaller — each stream holds a descriptor, and the server needs
// others for its requests, its Redis connections and its files.
func defaultMaxStreams(nofile uint64) int {
	if nofile == 0 {
		return api.DefaultMaxStreams
	}
	return int(min(uint64(api.DefaultMaxStreams), max(nofile/2, 1)))
}

// checkStreams refuses stream caps that make no sense or that the descriptor limit nofile (0:
// unknown) cannot hold.
func checkStreams(total, perClient int, nofile uint64) error {
	switch {
	case total < 1 || perClient < 1:
		return fmt.Errorf("-max-streams and -client-streams must be at least 1, got %d and %d", total, perClient)
	case nofile > 0 && uint64(total) > nofile/2:
		return fmt.Errorf("-max-streams %d is over half the descriptor limit (ulimit -n: %d), which the server's other connections need; give at most %d, or raise the limit", total, nofile, nofile/2)
	}
	return nil
}

func itoa(n int) string { return strconv.Itoa(n) }

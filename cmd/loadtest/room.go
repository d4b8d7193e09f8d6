package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/resilience-playground/playground/internal/roomload"
)

// roomConfig is the parsed command line of room mode.
type roomConfig struct {
	cfg   roomload.Config
	quiet bool
}

func parseRoomFlags(args []string, stderr io.Writer) (*roomConfig, error) {
	fs := flag.NewFlagSet("loadtest room", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		rawURL    = fs.String("url", "http://localhost:8080", "server to load; must be loopback (localhost, 127.0.0.0/8, ::1)")
		followers = fs.Int("followers", 300, "followers in the room")
		changes   = fs.Int("changes", 30, "changes the presenter makes, one at a time")
		scenario  = fs.String("scenario", "/backoff?clients=50&trials=10", "the room's scenario (a lab URL); keep it cheap to measure the fan-out, not the simulation")
		vary      = fs.String("vary", "seed", "parameter set to a fresh value at each change, so that each is a new run; empty: resend the scenario (a cached run)")
		interval  = fs.Duration("interval", 500*time.Millisecond, "pause between one change reaching every follower and the next change")
		timeout   = fs.Duration("timeout", 30*time.Second, "bound on each dial and write, on the first run and on each change's fan-out")
		compress  = fs.Bool("compress", true, "offer permessage-deflate, as browsers do")
		quiet     = fs.Bool("q", false, "no progress lines on standard error")
	)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loadtest room [flags]   (see go doc ./cmd/loadtest)")
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
	switch {
	case *followers < 1:
		return nil, errors.New("-followers must be at least 1")
	case *changes < 1:
		return nil, errors.New("-changes must be at least 1")
	case !strings.HasPrefix(*scenario, "/"):
		return nil, fmt.Errorf("-scenario must be a lab URL such as /backoff?clients=50, got %q", *scenario)
	case *interval < 0:
		return nil, errors.New("-interval must not be negative")
	case *timeout <= 0:
		return nil, errors.New("-timeout must be positive")
	}
	return &roomConfig{quiet: *quiet, cfg: roomload.Config{
		BaseURL: strings.TrimSuffix(u.String(), "/"), Scenario: *scenario, Vary: *vary,
		Followers: *followers, Changes: *changes, Interval: *interval, Timeout: *timeout, Compress: *compress,
	}}, nil
}

// runRoom is room mode: the time a presenter's change takes to reach every follower.
func runRoom(args []string, stdout, stderr io.Writer) int {
	rc, err := parseRoomFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "loadtest room: %v\n", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !rc.quiet {
		rc.cfg.Progress = stderr
	}
	client := newHTTPClient(rc.cfg.Timeout, rc.cfg.Followers+8)
	rc.cfg.Client = client
	metricsURL := rc.cfg.BaseURL + "/metrics"
	var use [2]usage
	rc.cfg.Mark = func(phase string) {
		u := usageNow()
		// The server's own CPU time, when it serves its metrics.
		if s, err := scrape(ctx, client, metricsURL, rc.cfg.Timeout); err == nil {
			u.server, u.serverOK = time.Duration(s.get("process_cpu_seconds_total")*float64(time.Second)), s.get("process_cpu_seconds_total") > 0
		}
		if phase == "changes" {
			use[0] = u
		} else {
			use[1] = u
		}
	}
	res, err := roomload.Run(ctx, rc.cfg)
	if err != nil {
		fmt.Fprintf(stderr, "loadtest room: %v\n", err)
		return 1
	}
	res.WriteText(stdout)
	use[1].since(use[0], stdout)
	return 0
}

// usage is a reading of this process's and the machine's CPU use.
type usage struct {
	at          time.Time
	self        time.Duration
	busy, total float64
	hostOK      bool
	pressure    time.Duration
	pressureOK  bool
	server      time.Duration // the server's CPU time, from its /metrics
	serverOK    bool
}

func usageNow() usage {
	u := usage{at: time.Now(), self: selfCPU()}
	u.busy, u.total, u.hostOK = hostCPU()
	u.pressure, u.pressureOK = cpuPressure()
	return u
}

// since prints the CPU use between u0 and u: the tool shares the machine with the server, and
// latencies measured on a saturated machine include the wait for a CPU.
func (u usage) since(u0 usage, w io.Writer) {
	wall := u.at.Sub(u0.at)
	if wall <= 0 {
		return
	}
	fmt.Fprintf(w, "during the changes (%v):", wall.Round(time.Millisecond))
	if u.serverOK && u0.serverOK {
		fmt.Fprintf(w, " the server used %.0f%% of one CPU;", 100*(u.server-u0.server).Seconds()/wall.Seconds())
	}
	fmt.Fprintf(w, " this tool used %.0f%% of one CPU", 100*(u.self-u0.self).Seconds()/wall.Seconds())
	if u.hostOK && u0.hostOK && u.total > u0.total {
		fmt.Fprintf(w, "; the machine (%d CPUs) was %.0f%% busy", runtime.NumCPU(), 100*(u.busy-u0.busy)/(u.total-u0.total))
	}
	if u.pressureOK && u0.pressureOK {
		fmt.Fprintf(w, "; some task waited for a CPU %.0f%% of the time", 100*(u.pressure-u0.pressure).Seconds()/wall.Seconds())
	}
	fmt.Fprintln(w)
}

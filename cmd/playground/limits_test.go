package main

import (
	"flag"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
)

// TestRunLimits: serve's work budget and CPU safety net follow each other. Given alone, either
// sets the other (a net of 200ms admits 6.67e5 work units, so a scenario too heavy for it is
// refused before it runs, with a value that fits, instead of being stopped partway); given
// both, a net under three times what the budget admits is run with and warned of.
func TestRunLimits(t *testing.T) {
	for _, tt := range []struct {
		args   []string
		budget int64
		cpu    time.Duration
		warn   string
	}{
		{nil, api.DefaultBudget, api.DefaultMaxRunCPU, ""},
		{[]string{"-budget", "2e6"}, 2e6, api.MaxRunCPUFor(2e6), ""},
		{[]string{"-max-run-cpu", "200ms"}, 666_666, 200 * time.Millisecond, ""},
		{[]string{"-max-run-cpu", "0"}, api.DefaultBudget, api.DefaultMaxRunCPU, ""},
		{[]string{"-budget", "2e8", "-max-run-cpu", "200ms"}, 2e8, 200 * time.Millisecond, "runs the budget admits may be stopped partway; -budget 6.67e+05 suits it"},
		{[]string{"-budget", "2e6", "-max-run-cpu", "1m"}, 2e6, time.Minute, ""},
		{[]string{"-budget", "0", "-max-run-cpu", "1s"}, 0, time.Second, ""},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		budget := budgetFlag(fs)
		cpu := fs.Duration("max-run-cpu", 0, "")
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		b, c, warn := runLimits(fs, *budget, *cpu)
		if int64(b) != tt.budget || c != tt.cpu || (tt.warn == "") != (warn == "") || !strings.Contains(warn, tt.warn) {
			t.Errorf("%v: budget %d, net %v, warning %q; want %d, %v, %q", tt.args, b, c, warn, tt.budget, tt.cpu, tt.warn)
		}
	}
}

// TestStreamCapsBelowDescriptors: the server's cap on open streams sits under the descriptor
// limit — half of it, the rest for the server's other connections — by default, and a cap over
// it is refused at start-up, naming the flag (issue 33: 20,000 streams ran out of descriptors).
func TestStreamCapsBelowDescriptors(t *testing.T) {
	for nofile, want := range map[uint64]int{0: api.DefaultMaxStreams, 1024: 512, 1 << 20: api.DefaultMaxStreams} {
		if got := defaultMaxStreams(nofile); got != want {
			t.Errorf("defaultMaxStreams(%d) = %d, want %d", nofile, got, want)
		}
		if err := checkStreams(defaultMaxStreams(nofile), 10, nofile); err != nil {
			t.Errorf("the default for %d descriptors is refused: %v", nofile, err)
		}
	}
	if err := checkStreams(600, 10, 1024); err == nil || !strings.Contains(err.Error(), "-max-streams 600") {
		t.Errorf("600 streams under 1,024 descriptors: %v, want refused", err)
	}
	if err := checkStreams(10, 0, 1024); err == nil {
		t.Error("-client-streams 0 was accepted")
	}
	if n := descriptorLimit(); n > 0 {
		over := strconv.FormatUint(n, 10)
		if code, _, errs := runCLI("serve", "-addr", "127.0.0.1:0", "-max-streams", over); code != 2 || !strings.Contains(errs, "-max-streams "+over) {
			t.Errorf("serve -max-streams %s (the descriptor limit): exit %d, %q; want 2 naming the flag", over, code, errs)
		}
	}
}

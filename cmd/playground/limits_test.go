package main

import (
	"flag"
	"io"
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

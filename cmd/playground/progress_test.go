package main

import (
	"strings"
	"testing"
)

// TestRunProgressNotATerminal: `playground run` writes its "\rsimulating N%" progress only to a
// terminal, so that a log file or a pipe does not fill with it; -progress asks for it anyway
// and -q never shows it.
func TestRunProgressNotATerminal(t *testing.T) {
	const q = "/backoff?clients=20&trials=4&sweep=10:30:10"
	code, out, errs := runCLI("run", q)
	if code != 0 || out == "" {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.ContainsAny(errs, "\r\033") || strings.Contains(errs, "simulating") {
		t.Errorf("standard error is not a terminal, yet it got progress: %q", errs)
	}
	if code, _, errs := runCLI("run", "-progress", q); code != 0 || !strings.Contains(errs, "\rsimulating") {
		t.Errorf("-progress: exit %d, standard error %q, want progress", code, errs)
	}
	if code, _, errs := runCLI("run", "-q", "-progress", q); code != 0 || errs != "" {
		t.Errorf("-q -progress: exit %d, standard error %q, want nothing", code, errs)
	}
}

// Command testtime reads the events of `go test -json` on standard input, writes the tests'
// output as `go test` without -v would — a failed test's output, each package's verdict — and
// ends with where the time went: each package's time and the ten slowest tests. .ci/run pipes
// the suite through it:
//
//	go test -json ./... | go run ./tools/testtime
//
// It exits with status 1 when a test or a package failed (or the input is not go test's
// JSON), 0 otherwise; its report is on standard error.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

func main() {
	os.Exit(run(os.Stdin, os.Stdout, os.Stderr, 10))
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64 // seconds
	Output  string
}

// timing is a package's or a test's time.
type timing struct {
	name    string
	seconds float64
}

// run copies the output of the events read from in to out and reports the times of the
// packages and of the slowest tests to report; it returns the exit status.
func run(in io.Reader, out, report io.Writer, slowest int) int {
	var packages, tests []timing
	parents := map[string]bool{}  // tests with subtests: their time is their subtests'
	held := map[string][]string{} // a running test's output, written if it fails
	failed := false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // a build error, say: not JSON
			failed = failed || len(strings.TrimSpace(string(line))) > 0
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if e.Test == "" {
				if e.Output != "PASS\n" {
					fmt.Fprint(out, e.Output)
				}
				continue
			}
			held[key] = append(held[key], e.Output)
		case "skip":
			delete(held, key)
		case "pass", "fail":
			if e.Action == "fail" {
				failed = true
				if e.Test != "" {
					fmt.Fprint(out, strings.Join(held[key], ""))
				}
			}
			delete(held, key)
			if e.Test == "" {
				packages = append(packages, timing{e.Package, e.Elapsed})
				continue
			}
			if i := strings.LastIndex(e.Test, "/"); i > 0 {
				parents[e.Package+" "+e.Test[:i]] = true
			}
			tests = append(tests, timing{e.Package + " " + e.Test, e.Elapsed})
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(report, "testtime: %v\n", err)
		failed = true
	}
	tests = slices.DeleteFunc(tests, func(t timing) bool { return parents[t.name] })
	byTime := func(a, b timing) int { return cmp.Or(cmp.Compare(b.seconds, a.seconds), cmp.Compare(a.name, b.name)) }
	slices.SortFunc(packages, byTime)
	slices.SortFunc(tests, byTime)
	total := 0.0
	fmt.Fprintf(report, "\n== time per package (s)\n")
	for _, p := range packages {
		total += p.seconds
		fmt.Fprintf(report, "%8.1f  %s\n", p.seconds, p.name)
	}
	fmt.Fprintf(report, "%8.1f  all packages (summed; they run in parallel)\n", total)
	fmt.Fprintf(report, "\n== the %d slowest tests (s)\n", slowest)
	for _, t := range tests[:min(slowest, len(tests))] {
		fmt.Fprintf(report, "%8.1f  %s\n", t.seconds, t.name)
	}
	if failed {
		return 1
	}
	return 0
}

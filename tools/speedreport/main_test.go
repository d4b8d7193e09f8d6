package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/labs"
)

// fakeRunner answers the report's commands with go test's and the reference's usual output,
// without running them; it records the commands. kernel is BenchmarkReferenceSweep's
// ns/attempt in each round.
type fakeRunner struct {
	root   string
	kernel []float64
	calls  [][]string
	sweeps int
}

func (f *fakeRunner) Run(_ context.Context, dir string, args ...string) ([]byte, usage, error) {
	f.calls = append(f.calls, args)
	suffix := ""
	if runtime.GOMAXPROCS(0) > 1 {
		suffix = fmt.Sprintf("-%d", runtime.GOMAXPROCS(0))
	}
	switch {
	case args[0] == "go" && args[1] == "env":
		return []byte(filepath.Join(f.root, "go.mod") + "\n"), usage{}, nil
	case args[0] == "go" && args[1] == "version":
		return []byte("go version go1.26.8 linux/amd64\n"), usage{}, nil
	case args[0] == "go" && args[1] == "build":
		return nil, usage{}, nil
	case args[0] == "go" && args[1] == "test":
		name := strings.Trim(args[5], "^$")
		out := "goos: linux\ngoarch: amd64\npkg: github.com/resilience-playground/playground/x\ncpu: Test CPU @ 1GHz\n"
		switch name {
		case "BenchmarkReferenceSweep":
			out += fmt.Sprintf("BenchmarkReferenceSweep%s \t       3\t 415123456 ns/op\t     22885 sims/s\t         0.6500 cpu-s/op\t        %.2f ns/attempt\t  150000 B/op\t     289 allocs/op\n",
				suffix, f.kernel[f.sweeps])
			f.sweeps++
		case "BenchmarkSimulate":
			for _, p := range []string{"none", "exponential", "full"} {
				out += fmt.Sprintf("BenchmarkSimulate/%s%s \t   10000\t    100000 ns/op\t  2.0e+07 events/s\t        41.00 ns/attempt\t       0 B/op\t       0 allocs/op\n", p, suffix)
			}
		case "BenchmarkWorkUnit":
			for i, q := range []string{"", "clients=3000&backends=300&subset=300&rate=2&duration=1m&policy=least_loaded,weighted", "duration=1s"} {
				out += fmt.Sprintf("BenchmarkWorkUnit/%s%s \t       1\t 900000000 ns/op\t        %d ns/unit\t  2.0e+07 units/op\n", q, suffix, 30+10*i)
			}
			// Too little work for its CPU per unit to mean much: left out.
			out += fmt.Sprintf("BenchmarkWorkUnit/window=1h&limit=1%s \t       1\t 6892000 ns/op\t   6892000 ns/unit\t         0 units/op\n", suffix)
		default:
			out += fmt.Sprintf("%s/res=mean%s \t 9000000\t       125.0 ns/op\t   8.0e+06 events/s\t       0 B/op\t       0 allocs/op\n", name, suffix)
		}
		return []byte(out + "PASS\nok  \tgithub.com/resilience-playground/playground/x\t3.2s\n"), usage{}, nil
	case args[0] == "python2" && args[1] == "-c":
		return []byte("2.7.18\n"), usage{}, nil
	case args[0] == "python2":
		// 150,000 hundreds of calls: 15 M attempts, in 60 s of CPU: 4,000 ns each.
		csv := "clients,time,calls,Algorithm\n10,50,100000,Exponential\n190,900,50000,None\n"
		if err := os.WriteFile(filepath.Join(dir, "backoff_results.csv"), []byte(csv), 0o644); err != nil {
			return nil, usage{}, err
		}
		return nil, usage{cpu: time.Minute}, nil
	case strings.HasSuffix(args[0], "playground") && args[1] == "run":
		return nil, usage{cpu: 5 * time.Second, maxRSS: 42e6}, nil
	}
	return nil, usage{}, fmt.Errorf("unexpected command %q", args)
}

// TestReport runs the report with a fake runner: the section has its heading, the date and
// machine fields, a row for every benchmark and scenario, and the kernel's ratio to the
// reference computed round by round; the rounds interleave.
func TestReport(t *testing.T) {
	ref := filepath.Join(t.TempDir(), "backoff_simulator.py")
	if err := os.WriteFile(ref, []byte("# stand-in\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{root: t.TempDir(), kernel: []float64{40, 50}}
	var out, errs bytes.Buffer
	if code := run(t.Context(), []string{"-count", "2", "-reference", ref}, &out, &errs, f); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	report := out.String()
	t.Log(report)
	want := []string{
		"## Current figures\n",
		"- **Taken:** ",
		"by `go run ./tools/speedreport -count 2 -reference backoff_simulator.py`",
		"- **Machine:** ",
		fmt.Sprintf(", %d cores, linux/amd64\n", runtime.NumCPU()),
		"- **Go:** go1.26.8\n",
		"- **Load average (1 minute):** ",
		"median of 2 rounds",
		"| `labs/backoff` BenchmarkReferenceSweep | ",
		"45.0 (40.0–50.0) ns/attempt; 0.65 (0.65–0.65) cpu-s/op",
		"| `labs/backoff` BenchmarkSimulate/exponential | ",
		"| `engine` BenchmarkLoop/res=mean | ",
		"| `labs/loadbalance` BenchmarkWorkUnit | ",
		"lab: 3 of its 4 scenarios, those of 1e6 units or more | 30.0–50.0 ns/unit, median 40.0 |",
		"| Brooker's simulator (Python 2.7.18) | the same sweep, his code | 4000 (4000–4000) ns/attempt |",
		// 4,000 ns against 40 and 50: 100× and 80×, each from its own round.
		"| 90.0 (80.0–100)× |",
		"5.00 (5.00–5.00) s",
		"| 42.0 MB |",
	}
	for _, w := range want {
		if !strings.Contains(report, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
	for _, s := range scenarios {
		if !strings.Contains(report, "| `"+s+"` | ") {
			t.Errorf("the report has no row for %s", s)
		}
	}
	// Interleaved: round 1's benchmarks, reference and scenarios, then round 2's.
	var kinds []string
	for _, c := range f.calls {
		switch {
		case c[0] == "go" && c[1] == "test":
			kinds = append(kinds, "b")
		case c[0] == "python2" && c[1] != "-c":
			kinds = append(kinds, "r")
		case c[1] == "run":
			kinds = append(kinds, "s")
		}
	}
	round := strings.Repeat("b", len(benches)) + "r" + strings.Repeat("s", len(scenarios))
	if got := strings.Join(kinds, ""); got != round+round {
		t.Errorf("commands ran in the order %s, want %s", got, round+round)
	}
}

// TestScenariosHeavy: the scenarios the report runs are admitted at the default budget, each
// estimated at a quarter of the budget or more (the retry-storm lab's heaviest admitted
// scenario is estimated at about half: its estimate is an upper bound).
func TestScenariosHeavy(t *testing.T) {
	reg := labs.Registry()
	for _, s := range scenarios {
		l, v, err := api.Resolve(reg, s)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if err := l.CheckBudget(v, api.DefaultBudget); err != nil {
			t.Errorf("%s: %v", s, err)
		}
		if c := l.Cost(v); c < api.DefaultBudget/4 {
			t.Errorf("%s: estimated %.3g work units, under a quarter of the budget: not a heavy scenario", s, float64(c))
		}
	}
}

// TestParseBench reads result lines, sub-benchmark names with their punctuation, without the
// -GOMAXPROCS suffix, and skips the rest.
func TestParseBench(t *testing.T) {
	suffix := ""
	if runtime.GOMAXPROCS(0) > 1 {
		suffix = fmt.Sprintf("-%d", runtime.GOMAXPROCS(0))
	}
	out := "goos: linux\ncpu: AMD EPYC\n" +
		"BenchmarkWorkUnit/policy=round_robin,p2c&duration=2m" + suffix + " \t 1\t 9.5e+08 ns/op\t 45.5 ns/unit\t 2.1e+07 units/op\n" +
		"BenchmarkX" + suffix + " \t--- FAIL: BenchmarkX\n" +
		"PASS\n"
	got := parseBench([]byte(out))
	if len(got) != 1 {
		t.Fatalf("%d lines, want 1: %+v", len(got), got)
	}
	if got[0].name != "BenchmarkWorkUnit/policy=round_robin,p2c&duration=2m" || got[0].metrics["ns/unit"] != 45.5 || got[0].metrics["ns/op"] != 9.5e8 {
		t.Errorf("got %+v", got[0])
	}
	if m := cpuLine([]byte(out)); m != "AMD EPYC" {
		t.Errorf("cpu line %q", m)
	}
}

// TestReplaceSection replaces what lies between the markers and nothing else, and refuses a
// document without them.
func TestReplaceSection(t *testing.T) {
	path := filepath.Join(t.TempDir(), "speed.md")
	doc := "# Speed\n\nbefore\n" + beginMarker + " (go run ./tools/speedreport -doc docs/speed.md) -->\nold figures\n" + endMarker + "\nafter\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := replaceSection(path, "new figures\n"); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(path)
		want := strings.Replace(doc, "old figures\n", "new figures\n", 1)
		if string(b) != want {
			t.Errorf("got\n%s\nwant\n%s", b, want)
		}
	}
	if err := os.WriteFile(path, []byte("# Speed\n"), 0o644); err == nil {
		if err := replaceSection(path, "x\n"); err == nil || !strings.Contains(err.Error(), "markers") {
			t.Errorf("no markers: error %v, want one naming the markers", err)
		}
	}
}

// TestBadFlags: a count out of range, a missing reference and a document without the markers
// are refused, naming the flag, before anything runs.
func TestBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-count", "0"}, {"-count", "21"}, {"extra"}} {
		var out, errs bytes.Buffer
		if code := run(t.Context(), args, &out, &errs, &fakeRunner{}); code != 2 || !strings.Contains(errs.String(), "-count must be from 1 to 20") {
			t.Errorf("%q: exit %d, %q", args, code, errs.String())
		}
	}
	var out, errs bytes.Buffer
	if code := run(t.Context(), []string{"-reference", filepath.Join(t.TempDir(), "none.py")}, &out, &errs, &fakeRunner{}); code != 2 || !strings.Contains(errs.String(), "-reference") {
		t.Errorf("a missing reference: exit %d, %q", code, errs.String())
	}
	// A document without the markers is refused before anything runs.
	doc := filepath.Join(t.TempDir(), "speed.md")
	if err := os.WriteFile(doc, []byte("# Speed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := &fakeRunner{}
	errs.Reset()
	if code := run(t.Context(), []string{"-doc", doc}, &out, &errs, f); code != 2 || !strings.Contains(errs.String(), "markers") || len(f.calls) > 0 {
		t.Errorf("a document without markers: exit %d, %q, %d commands run", code, errs.String(), len(f.calls))
	}
}

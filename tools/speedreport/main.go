// Command speedreport measures how fast the playground computes on the machine it runs on and
// writes the figures as a markdown section, headed with the date, the Go version, the
// platform, the CPU model, its cores and the load average before and after: docs/speed.md
// embeds its output, between markers it replaces.
//
//	go run ./tools/speedreport                      # print the section
//	go run ./tools/speedreport -doc docs/speed.md   # replace the section in the doc
//	go run ./tools/speedreport -reference ~/aws-arch-backoff-simulator/src/backoff_simulator.py -python python2.7
//
// Each round runs the benchmarks that matter with `go test -bench` (the backoff kernel on the
// sweep of Marc Brooker's simulator, one simulation, the event queue, each lab's CPU time per
// work unit), then each lab's heaviest admitted scenario with `playground run`, timing the
// process's CPU (user + system, every thread and the garbage collector included) and its
// peak resident memory. Rounds interleave, so that figures compared with each other come from
// the same minutes of a shared machine; each figure is the median of the rounds, with their
// range.
//
// With -reference, each round also runs Brooker's simulator — his code for "Exponential
// Backoff And Jitter" (AWS Architecture Blog), github.com/aws-samples/aws-arch-backoff-simulator,
// a Python 2 program — on its own sweep, the one BenchmarkReferenceSweep runs, and the report
// gives the kernel's CPU time per write attempt as a multiple of the reference's, round by
// round. A reference run takes one to two CPU-minutes.
//
// It measures and reports; it asserts nothing about speed.
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/labs"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr, execRunner{}))
}

// A bench is a benchmark the report runs: `go test -run '^$' -bench '^name$' -benchtime time`
// in package pkg, reporting the metrics units (their first as the figure when spread).
type bench struct {
	pkg, name, time string
	what            string
	units           []string
	// spread: the report gives the range of the sub-benchmarks' medians of units[0], one row
	// for all of them, rather than a row for each: over those whose median units/op is at
	// least minUnits, where a run's setup does not outweigh its work.
	spread   bool
	minUnits float64
}

// benches are the benchmarks of the report.
var benches = []bench{
	{pkg: "./labs/backoff", name: "BenchmarkReferenceSweep", time: "3x", units: []string{"ns/attempt", "cpu-s/op"},
		what: "Brooker's sweep: clients 10–190 step 10 × 5 strategies × 100 trials, 9,500 simulations"},
	{pkg: "./labs/backoff", name: "BenchmarkSimulate", time: "1s", units: []string{"ns/attempt"},
		what: "one simulation of 100 clients, by policy"},
	{pkg: "./engine", name: "BenchmarkLoop", time: "1s", units: []string{"ns/op"},
		what: "the event queue: one event delivered and one scheduled, 1,000 pending"},
	{pkg: "./labs/backoff", name: "BenchmarkWorkUnit", time: "1x", units: []string{"ns/unit"}, spread: true, minUnits: 1e6,
		what: "CPU per work unit in the backoff lab"},
	{pkg: "./labs/ratelimit", name: "BenchmarkWorkUnit", time: "1x", units: []string{"ns/unit"}, spread: true, minUnits: 1e6,
		what: "CPU per work unit in the rate limiter"},
	{pkg: "./labs/loadbalance", name: "BenchmarkWorkUnit", time: "1x", units: []string{"ns/unit"}, spread: true, minUnits: 1e6,
		what: "CPU per work unit in the load-balancing lab"},
}

// scenarios are the heaviest slider end, /backoff?trials=1000, and each lab's heaviest admitted
// scenario at api.DefaultBudget as the api package's TestHeaviestAdmittedFinishes finds it:
// every cost parameter at its largest the lab's rules allow, the first lowered until the
// estimate fits. TestScenariosHeavy keeps them admitted and heavy.
var scenarios = []string{
	"/backoff?trials=1000",
	"/backoff?strategies=none,constant,linear,exponential,full,equal,decorrelated&clients=1000&trials=10&sweep=10:1000:10",
	"/ratelimit?limit=1&load=10&duration=38m40.409s&sweep=1:60:1&latency_sweep=0:1000:25&instances_sweep=1:64:9",
	"/loadbalance?clients=6&subset=300&policy=round_robin,least_loaded,weighted,random,p2c&rate=100&duration=10m&sweep=20:1000:20&load_sweep=5:200:5",
	"/retrystorm?policies=none,retries,adaptive,grpc,aws,budget,breaker,circuit,throttle&retries=0&clients=1000&rate=2000&duration=26.687s&sweep=0:100:5&client_sweep=10:1000:90",
}

// Markers around the generated section in a document.
const (
	beginMarker = "<!-- speedreport: begin"
	endMarker   = "<!-- speedreport: end -->"
)

// A runner runs a command in a directory: the tests give a fake.
type runner interface {
	Run(ctx context.Context, dir string, args ...string) ([]byte, usage, error)
}

// usage is what a finished process used.
type usage struct {
	cpu    time.Duration // user + system
	maxRSS int64         // peak resident memory, bytes; 0 when unknown
}

// execRunner runs commands with os/exec.
type execRunner struct{}

func (execRunner) Run(ctx context.Context, dir string, args ...string) ([]byte, usage, error) {
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Dir = dir
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var u usage
	if ps := cmd.ProcessState; ps != nil {
		u = usage{cpu: ps.UserTime() + ps.SystemTime(), maxRSS: maxRSS(ps)}
	}
	if err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = strings.TrimSpace(out.String())
		}
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		return out.Bytes(), u, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, msg)
	}
	return out.Bytes(), u, nil
}

// options are the command line's.
type options struct {
	count             int
	doc               string
	reference, python string
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, r runner) int {
	fs := flag.NewFlagSet("speedreport", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var o options
	fs.IntVar(&o.count, "count", 3, "rounds: each runs every benchmark and scenario once (1 to 20)")
	fs.StringVar(&o.doc, "doc", "", "replace the section between the markers in this markdown file, rather than print it")
	fs.StringVar(&o.reference, "reference", "", "Brooker's backoff_simulator.py, to time the reference simulator in each round")
	fs.StringVar(&o.python, "python", "python2", "the Python 2 interpreter that runs -reference")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || o.count < 1 || o.count > 20 {
		fmt.Fprintf(stderr, "speedreport: -count must be from 1 to 20 (got %d) and no arguments follow the flags (got %q)\n", o.count, fs.Args())
		return 2
	}
	if o.reference != "" {
		abs, err := filepath.Abs(o.reference)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			fmt.Fprintf(stderr, "speedreport: -reference: %v\n", err)
			return 2
		}
		o.reference = abs
	}
	if o.doc != "" {
		if err := replaceSection(o.doc, ""); err != nil { // before minutes of measuring
			fmt.Fprintf(stderr, "speedreport: -doc: %v\n", err)
			return 2
		}
	}
	m, err := measure(ctx, o, r, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "speedreport: %v\n", err)
		return 1
	}
	section := m.report(o)
	if o.doc == "" {
		fmt.Fprint(stdout, section)
		return 0
	}
	if err := replaceSection(o.doc, section); err != nil {
		fmt.Fprintf(stderr, "speedreport: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "speedreport: wrote the figures into %s\n", o.doc)
	return 0
}

// measurements are a report's figures.
type measurements struct {
	date                  time.Time
	goVersion, platform   string
	cpuModel              string
	cores                 int
	loadBefore, loadAfter string
	rounds                int
	// bench[i] holds the results of benches[i]: each of its sub-benchmarks (or itself), in the
	// order go test printed them, with its metrics in each round.
	bench [][]benchResult
	// reference: Brooker's simulator's CPU time per write attempt, ns, each round, and the
	// version of the Python that ran it.
	reference []float64
	python    string
	scenarios []scenarioResult
}

type benchResult struct {
	name   string // as go test prints it, without the -GOMAXPROCS suffix
	rounds []map[string]float64
}

type scenarioResult struct {
	url    string
	work   int64 // estimated work units
	rounds []usage
}

// measure runs the rounds.
func measure(ctx context.Context, o options, r runner, progress io.Writer) (*measurements, error) {
	gomod, _, err := r.Run(ctx, "", "go", "env", "GOMOD")
	if err != nil {
		return nil, err
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
		return nil, errors.New("run it inside the playground's module (go env GOMOD names no go.mod)")
	}
	ver, _, err := r.Run(ctx, root, "go", "version")
	if err != nil {
		return nil, err
	}
	m := &measurements{date: time.Now().UTC(), cores: runtime.NumCPU(), rounds: o.count, loadBefore: loadAverage()}
	if f := strings.Fields(string(ver)); len(f) >= 4 {
		m.goVersion, m.platform = f[2], f[3]
	} else {
		m.goVersion, m.platform = strings.TrimSpace(string(ver)), runtime.GOOS+"/"+runtime.GOARCH
	}
	m.cpuModel = cpuModel()

	reg := labs.Registry()
	for _, u := range scenarios {
		l, v, err := api.Resolve(reg, u)
		if err != nil {
			return nil, fmt.Errorf("scenario %s: %w", u, err)
		}
		if err := l.CheckBudget(v, api.DefaultBudget); err != nil {
			return nil, fmt.Errorf("scenario %s is not admitted at the default budget: %w", u, err)
		}
		m.scenarios = append(m.scenarios, scenarioResult{url: u, work: l.Cost(v)})
	}

	tmp, err := os.MkdirTemp("", "speedreport")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	playground := filepath.Join(tmp, "playground")
	fmt.Fprintln(progress, "speedreport: go build ./cmd/playground")
	if _, _, err := r.Run(ctx, root, "go", "build", "-o", playground, "./cmd/playground"); err != nil {
		return nil, err
	}

	if o.reference != "" {
		v, _, err := r.Run(ctx, root, o.python, "-c", "import sys; print(sys.version.split()[0])")
		if err != nil {
			return nil, fmt.Errorf("-python: %w", err)
		}
		m.python = strings.TrimSpace(string(v))
	}

	m.bench = make([][]benchResult, len(benches))
	for round := 1; round <= o.count; round++ {
		for i, b := range benches {
			args := []string{"go", "test", "-run", "^$", "-bench", "^" + b.name + "$", "-benchtime", b.time, "-count", "1", b.pkg}
			fmt.Fprintf(progress, "speedreport: round %d of %d: %s\n", round, o.count, strings.Join(args, " "))
			out, _, err := r.Run(ctx, root, args...)
			if err != nil {
				return nil, err
			}
			if model := cpuLine(out); m.cpuModel == "" {
				m.cpuModel = model
			}
			lines := parseBench(out)
			if len(lines) == 0 {
				return nil, fmt.Errorf("%s printed no benchmark line", strings.Join(args, " "))
			}
			for _, l := range lines {
				j := slices.IndexFunc(m.bench[i], func(r benchResult) bool { return r.name == l.name })
				if j < 0 {
					m.bench[i] = append(m.bench[i], benchResult{name: l.name})
					j = len(m.bench[i]) - 1
				}
				m.bench[i][j].rounds = append(m.bench[i][j].rounds, l.metrics)
			}
		}
		if o.reference != "" {
			fmt.Fprintf(progress, "speedreport: round %d of %d: %s %s\n", round, o.count, o.python, o.reference)
			ns, err := reference(ctx, r, o, tmp)
			if err != nil {
				return nil, err
			}
			m.reference = append(m.reference, ns)
		}
		for i, s := range m.scenarios {
			fmt.Fprintf(progress, "speedreport: round %d of %d: playground run %s\n", round, o.count, s.url)
			_, u, err := r.Run(ctx, root, playground, "run", "-q", s.url)
			if err != nil {
				return nil, err
			}
			m.scenarios[i].rounds = append(m.scenarios[i].rounds, u)
		}
	}
	m.loadAfter = loadAverage()
	return m, nil
}

// reference runs Brooker's simulator in a directory of its own (it writes its results there)
// and returns its CPU time per write attempt, in ns: the attempts are the calls its
// backoff_results.csv counts, a hundredth of them on each line.
func reference(ctx context.Context, r runner, o options, tmp string) (float64, error) {
	dir, err := os.MkdirTemp(tmp, "reference")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	_, u, err := r.Run(ctx, dir, o.python, o.reference)
	if err != nil {
		return 0, err
	}
	f, err := os.Open(filepath.Join(dir, "backoff_results.csv"))
	if err != nil {
		return 0, fmt.Errorf("the reference simulator left no results: %w", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) < 2 {
		return 0, fmt.Errorf("the reference simulator's backoff_results.csv is not its usual table (clients,time,calls,Algorithm): %v", err)
	}
	col := slices.Index(rows[0], "calls")
	var attempts float64
	for _, row := range rows[1:] {
		var n float64
		if col >= 0 && col < len(row) {
			n, err = strconv.ParseFloat(row[col], 64)
		}
		if col < 0 || col >= len(row) || err != nil {
			return 0, fmt.Errorf("the reference simulator's backoff_results.csv has no calls column of numbers: %q", row)
		}
		attempts += 100 * n
	}
	if attempts == 0 {
		return 0, errors.New("the reference simulator counted no write attempts")
	}
	return float64(u.cpu.Nanoseconds()) / attempts, nil
}

// benchLine is one result line of go test -bench.
type benchLine struct {
	name    string
	metrics map[string]float64
}

// parseBench reads the result lines of go test -bench's output.
func parseBench(out []byte) []benchLine {
	suffix := "-" + strconv.Itoa(runtime.GOMAXPROCS(0)) // go test adds it unless GOMAXPROCS is 1
	var lines []benchLine
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue
		}
		l := benchLine{name: f[0], metrics: map[string]float64{}}
		if runtime.GOMAXPROCS(0) > 1 {
			l.name = strings.TrimSuffix(l.name, suffix)
		}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				l.metrics[f[i+1]] = v
			}
		}
		lines = append(lines, l)
	}
	return lines
}

// cpuLine returns the CPU model go test -bench prints ("cpu: ..."), or "".
func cpuLine(out []byte) string {
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(line, "cpu: "); ok {
			return strings.TrimSpace(s)
		}
	}
	return ""
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or "" where there is none.
func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAverage returns the 1-minute load average from /proc/loadavg, or "unknown".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); err == nil && len(f) > 0 {
		return f[0]
	}
	return "unknown"
}

// report writes the measurements as a markdown section.
func (m *measurements) report(o options) string {
	var b strings.Builder
	cmd := "go run ./tools/speedreport"
	if o.count != 3 {
		cmd += " -count " + strconv.Itoa(o.count)
	}
	if o.reference != "" {
		cmd += " -reference backoff_simulator.py"
	}
	cpu := m.cpuModel
	if cpu == "" {
		cpu = "unknown CPU"
	}
	fmt.Fprintf(&b, "## Current figures\n\n")
	fmt.Fprintf(&b, "- **Taken:** %s, by `%s`\n", m.date.Format("2006-01-02 15:04 MST"), cmd)
	fmt.Fprintf(&b, "- **Machine:** %s, %d cores, %s\n", cpu, m.cores, m.platform)
	fmt.Fprintf(&b, "- **Go:** %s\n", m.goVersion)
	fmt.Fprintf(&b, "- **Load average (1 minute):** %s before, %s after\n\n", m.loadBefore, m.loadAfter)
	fmt.Fprintf(&b, "Each figure is the median of %d %s, run interleaved, with their range in brackets; "+
		"CPU is the process's user + system time, every thread and the garbage collector included.\n\n",
		m.rounds, plural(m.rounds, "round", "rounds"))

	b.WriteString("| benchmark | what it measures | figure |\n|---|---|---|\n")
	for i, bn := range benches {
		pkg := strings.TrimPrefix(bn.pkg, "./")
		if bn.spread {
			var medians []float64
			for _, r := range m.bench[i] {
				if median(metric(r.rounds, "units/op")) >= bn.minUnits {
					medians = append(medians, median(metric(r.rounds, bn.units[0])))
				}
			}
			fig := "—"
			if len(medians) > 0 {
				fig = fmt.Sprintf("%s–%s %s, median %s", num(slices.Min(medians)), num(slices.Max(medians)), bn.units[0], num(median(medians)))
			}
			fmt.Fprintf(&b, "| `%s` %s | %s: %d of its %d scenarios, those of %s units or more | %s |\n", pkg, bn.name, bn.what,
				len(medians), len(m.bench[i]), sci(bn.minUnits), fig)
			continue
		}
		for _, r := range m.bench[i] {
			var figs []string
			for _, unit := range bn.units {
				figs = append(figs, spread(metric(r.rounds, unit))+" "+unit)
			}
			fmt.Fprintf(&b, "| `%s` %s | %s | %s |\n", pkg, r.name, bn.what, strings.Join(figs, "; "))
		}
		if bn.name == "BenchmarkReferenceSweep" && len(m.reference) > 0 && len(m.bench[i]) > 0 {
			kernel := metric(m.bench[i][0].rounds, "ns/attempt")
			var ratios []float64
			for j := range min(len(kernel), len(m.reference)) {
				ratios = append(ratios, m.reference[j]/kernel[j])
			}
			fmt.Fprintf(&b, "| Brooker's simulator (Python %s) | the same sweep, his code | %s ns/attempt |\n", m.python, spread(m.reference))
			fmt.Fprintf(&b, "| the kernel against it | the reference's CPU per attempt ÷ the kernel's, round by round | %s× |\n", spread(ratios))
		}
	}

	fmt.Fprintf(&b, "\nThe heaviest slider end and each lab's heaviest admitted scenario, `playground run -q URL`, "+
		"against the default budget of %s work units and CPU safety net of %v (under the net: the net ÷ the most CPU "+
		"of the rounds; peak memory: the process's resident memory):\n\n", sci(api.DefaultBudget), api.DefaultMaxRunCPU)
	b.WriteString("| scenario | estimated work | CPU | per unit | under the net | peak memory |\n|---|---|---|---|---|---|\n")
	for _, s := range m.scenarios {
		var cpu, rss []float64
		for _, u := range s.rounds {
			cpu = append(cpu, u.cpu.Seconds())
			rss = append(rss, float64(u.maxRSS)/1e6)
		}
		mem := "unknown"
		if slices.Max(rss) > 0 {
			mem = num(median(rss)) + " MB"
		}
		fmt.Fprintf(&b, "| `%s` | %s units | %s s | %s ns | %s× | %s |\n", s.url, sci(float64(s.work)), spread(cpu),
			num(median(cpu)*1e9/float64(max(s.work, 1))), num(api.DefaultMaxRunCPU.Seconds()/slices.Max(cpu)), mem)
	}
	return b.String()
}

// metric returns unit's value in each round that reported it.
func metric(rounds []map[string]float64, unit string) []float64 {
	var xs []float64
	for _, r := range rounds {
		if v, ok := r[unit]; ok {
			xs = append(xs, v)
		}
	}
	return xs
}

// spread writes the median of xs with their range: "43.1 (42.0–44.5)".
func spread(xs []float64) string {
	if len(xs) == 0 {
		return "—"
	}
	if len(xs) == 1 {
		return num(xs[0])
	}
	return fmt.Sprintf("%s (%s–%s)", num(median(xs)), num(slices.Min(xs)), num(slices.Max(xs)))
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// num writes x with three significant digits, without an exponent below 10^6.
func num(x float64) string {
	switch a := max(x, -x); {
	case a >= 1e6:
		return strconv.FormatFloat(x, 'g', 3, 64)
	case a >= 100:
		return strconv.FormatFloat(x, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// sci writes x as the playground's messages do: 2e8, 1.66e8.
func sci(x float64) string {
	return strings.NewReplacer("e+0", "e", "e+", "e").Replace(strconv.FormatFloat(x, 'g', 3, 64))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// replaceSection replaces what lies between the markers in the markdown file at path with
// section; with section "", it only checks the file and its markers.
func replaceSection(path, section string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	doc := string(b)
	i := strings.Index(doc, beginMarker)
	j := strings.Index(doc, endMarker)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %q … %q markers around its figures", path, beginMarker+" -->", endMarker)
	}
	i += strings.Index(doc[i:], "\n") + 1
	if i <= 0 || i > j {
		return fmt.Errorf("%s: the line of %q must end before %q", path, beginMarker, endMarker)
	}
	if section == "" {
		return nil
	}
	doc = doc[:i] + section + doc[j:]
	return os.WriteFile(path, []byte(doc), 0o644)
}

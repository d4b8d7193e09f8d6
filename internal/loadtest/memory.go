package loadtest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"

	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// MemoryConfig describes a memory report: for each lab, its heaviest admitted scenario — the
// one whose memory estimate (lab.Lab.Memory) is largest among the scenarios that put one or two
// of its memory parameters (or all of them) at the top of their ranges, each taken to the work
// budget and the memory bound (lab.Lab.Fitted) — run Runs times at once, each with its own
// seed and from an address of its own (so that none shares another's run and the fair slots
// admit them all), each on a stream as a page runs it, while the server's resident memory is
// read from /proc every 10 ms. The
// report sets each lab's peak beside the soft memory limit the server runs with (its
// go_gc_gomemlimit_bytes).
type MemoryConfig struct {
	Server
	// PID is the server's process id, for its memory (Linux).
	PID int
	// Labs are the labs to run (their registry), and Names those of them to report, all when
	// empty.
	Labs  *lab.Registry
	Names []string
	// Runs is how many runs of each lab's heaviest scenario go at once; Budget is the work
	// budget the server admits scenarios within (its -budget).
	Runs   int
	Budget int64
}

// Check reports what is wrong with the configuration, naming the flag at fault.
func (c *MemoryConfig) Check() error {
	if err := c.Server.check(); err != nil {
		return err
	}
	switch {
	case c.PID <= 0:
		return errors.New("-pid is required: the server's memory is read from /proc/PID/status")
	case c.Runs < 1:
		return errors.New("-runs must be at least 1")
	case c.Budget < 0:
		return errors.New("-budget must not be negative")
	case c.Labs == nil:
		return errors.New("no labs")
	}
	for _, n := range c.Names {
		if _, ok := c.Labs.Lookup(n); !ok {
			return fmt.Errorf("-labs: no lab %q", n)
		}
	}
	return nil
}

// MemoryReport is what a memory report found.
type MemoryReport struct {
	URL       string         `json:"url"`
	Runs      int            `json:"runs"`
	SoftLimit float64        `json:"soft_limit"` // bytes; 0 when the server does not say
	Labs      []LabMemory    `json:"labs"`
	Errors    []string       `json:"errors,omitempty"`
	Answers   map[string]int `json:"answers"` // how the runs ended: done, error, busy, failed
}

// LabMemory is one lab's runs.
type LabMemory struct {
	Lab       string  `json:"lab"`
	Scenario  string  `json:"scenario"`
	Estimate  float64 `json:"estimate"`   // the lab's memory estimate of one run, bytes
	RSSBefore float64 `json:"rss_before"` // the server's resident memory before the runs
	RSSPeak   float64 `json:"rss_peak"`   // the most read while they ran
	Seconds   float64 `json:"seconds"`    // until the last answered
	OK        int     `json:"ok"`         // runs that reached their done
}

// MeasureMemory makes the memory report cfg describes.
func MeasureMemory(ctx context.Context, cfg MemoryConfig) (*MemoryReport, error) {
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	t, err := newTarget(cfg.Server, cfg.Runs+2)
	if err != nil {
		return nil, err
	}
	s, err := t.scrape(ctx)
	if err != nil {
		return nil, fmt.Errorf("reading the server's /metrics failed (is the server up?): %v", err)
	}
	rep := &MemoryReport{URL: t.base.String(), Runs: cfg.Runs, SoftLimit: s.get("go_gc_gomemlimit_bytes"), Answers: map[string]int{}}
	if rep.SoftLimit >= math.MaxInt64/2 {
		rep.SoftLimit = 0 // no limit
	}
	seed := time.Now().UnixNano() % (1 << 40)
	for labIndex, l := range cfg.Labs.All() {
		if len(cfg.Names) > 0 && !slices.Contains(cfg.Names, l.Name) {
			continue
		}
		fmt.Fprintf(t.Progress, "%s: looking for the heaviest admitted scenario\n", l.Name)
		v, est := heaviest(l, cfg.Budget)
		lm := LabMemory{Lab: l.Name, Scenario: l.URL(v), Estimate: float64(est)}
		fmt.Fprintf(t.Progress, "%s: %d runs of %s (estimate %.1f MB each) at once\n", l.Name, cfg.Runs, lm.Scenario, float64(est)/1e6)
		lm.RSSBefore, _, _ = processRSS(cfg.PID)
		var (
			wg   sync.WaitGroup
			mu   sync.Mutex
			done = make(chan struct{})
		)
		go func() { // the resident memory, every 10 ms
			tick := time.NewTicker(10 * time.Millisecond)
			defer tick.Stop()
			for {
				if rss, _, err := processRSS(cfg.PID); err == nil {
					mu.Lock()
					lm.RSSPeak = max(lm.RSSPeak, rss)
					mu.Unlock()
				}
				select {
				case <-done:
					return
				case <-tick.C:
				}
			}
		}()
		start := time.Now()
		for i := range cfg.Runs {
			from := t
			if ip := net.ParseIP(t.base.Hostname()).To4(); ip != nil && ip.IsLoopback() {
				// Each run from an address of its own, new to the server: the fair slots admit
				// one run of each at once.
				from = t.from(net.IPv4(127, 0, byte(50+labIndex), byte(1+i)))
			}
			w, _ := v.With(seedParam(l), strconv.FormatInt(seed, 10))
			seed++
			query := w.Encode()
			wg.Go(func() {
				// On a stream, as a page runs it: a JSON request would be cut by the server's
				// write timeout when eight heavy runs share a small machine.
				outcome, err := runOnStream(ctx, from, l.Name, query)
				mu.Lock()
				defer mu.Unlock()
				rep.Answers[outcome]++
				switch {
				case outcome == "done":
					lm.OK++
				case len(rep.Errors) < 10:
					rep.Errors = append(rep.Errors, fmt.Sprintf("/%s?%s: %s %v", l.Name, query, outcome, err))
				}
			})
		}
		wg.Wait()
		lm.Seconds = time.Since(start).Seconds()
		close(done)
		mu.Lock()
		rep.Labs = append(rep.Labs, lm)
		mu.Unlock()
		if ctx.Err() != nil {
			return rep, ctx.Err()
		}
	}
	return rep, nil
}

// runOnStream runs scenario query of lab on a new stream from t and returns how it ended:
// "done", "error" (a refusal, a run's error), "busy" (told busy until the timeout), or
// "failed" with the error.
func runOnStream(ctx context.Context, t *target, lab, query string) (string, error) {
	c, err := t.dial(ctx, labStream(lab))
	if err != nil {
		return "failed", err
	}
	defer c.CloseNow()
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	if err := t.send(ctx, c, params{Type: "params", ID: 1, Query: query}); err != nil {
		return "failed", err
	}
	busy := false
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			if busy {
				return "busy", err
			}
			return "failed", err
		}
		m, err := decode(b)
		if err != nil {
			return "failed", err
		}
		switch m.typ {
		case "done":
			return "done", nil
		case "error":
			return "error", errors.New(m.err)
		case "busy":
			busy = true
		}
	}
}

// seedParam is the name of l's seed parameter (the one the page re-rolls).
func seedParam(l *lab.Lab) string {
	for _, p := range l.Params {
		if p.Random {
			return p.Name
		}
	}
	return "seed"
}

// heaviest returns the scenario of l with the largest memory estimate among the admitted
// (lab.Lab.Fitted) ones that start with one or two of its memory parameters, or all of them, at
// the top of their ranges, and its estimate.
func heaviest(l *lab.Lab, budget int64) (param.Values, int64) {
	names := l.MemoryParams
	var sets [][]string
	for i := range names {
		sets = append(sets, []string{names[i]})
		for j := i + 1; j < len(names); j++ {
			sets = append(sets, []string{names[i], names[j]})
		}
	}
	sets = append(sets, names)
	best, most := l.Params.Defaults(), int64(-1)
	if l.Memory == nil {
		return best, 0
	}
	for _, set := range sets {
		v := l.Params.Defaults()
		for _, name := range set {
			sp, ok := l.Params.Lookup(name)
			if !ok {
				continue
			}
			if w, err := v.With(name, topOf(sp)); err == nil {
				v = w
			}
		}
		if _, err := l.Parse(v.Encode()); err != nil {
			continue // the lab's rules refuse it
		}
		v, err := l.Fitted(v, budget)
		if err != nil {
			continue
		}
		if m := l.Memory(v); m > most {
			best, most = v, m
		}
	}
	return best, most
}

// topOf is the top of a parameter's range in URL form: its maximum, every option of a list, the
// widest sweep; its default for other kinds.
func topOf(sp param.Spec) string {
	switch sp.Kind {
	case param.Int, param.Float:
		return strconv.FormatFloat(sp.Max, 'f', -1, 64)
	case param.Duration:
		return param.FormatDuration(time.Duration(math.Round(sp.Max * 1e6)))
	case param.EnumList:
		return strings.Join(sp.Options, ",")
	case param.IntRange:
		step := 1.0
		if sp.MaxLen > 1 {
			step = max(1, math.Ceil((sp.Max-sp.Min)/float64(sp.MaxLen-1)))
		}
		return fmt.Sprintf("%g:%g:%g", sp.Min, sp.Max, step)
	}
	return sp.Default
}

// WriteText writes the report for people.
func (r *MemoryReport) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	limit := "unknown"
	if r.SoftLimit > 0 {
		limit = mib(r.SoftLimit)
	}
	p("memory of %s: each lab's heaviest admitted scenario, %d runs at once (each its own seed and address); the soft memory limit is %s\n\n", r.URL, r.Runs, limit)
	p("| lab | scenario | estimate per run | RSS before | RSS peak | under the soft limit | runs done | seconds |\n|---|---|--:|--:|--:|---|--:|--:|\n")
	for _, l := range r.Labs {
		under := "unknown"
		if r.SoftLimit > 0 {
			under = fmt.Sprintf("%v (%.0f%%)", l.RSSPeak <= r.SoftLimit, 100*l.RSSPeak/r.SoftLimit)
		}
		p("| %s | %s | %.1f MB | %s | %s | %s | %d of %d | %.1f |\n", l.Lab, l.Scenario, l.Estimate/1e6, mib(l.RSSBefore), mib(l.RSSPeak), under, l.OK, r.Runs, l.Seconds)
	}
	p("\nruns: %v\n", r.Answers)
	for _, e := range r.Errors {
		p("  e.g. %s\n", e)
	}
}

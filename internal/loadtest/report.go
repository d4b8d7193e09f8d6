package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"
)

// Report is the outcome of a load test; -json prints it as is.
type Report struct {
	Mode             string   `json:"mode"` // "viewers" or "churn"
	URL              string   `json:"url"`
	Lab              string   `json:"lab"`
	Scenarios        string   `json:"scenarios,omitempty"`
	BaseQuery        string   `json:"base_query"`
	Space            []string `json:"space"`      // the parameters viewers move and their positions
	SpaceSize        int      `json:"space_size"` // how many scenarios that makes
	Viewers          int      `json:"viewers,omitempty"`
	ThinkS           float64  `json:"think_s,omitempty"`
	Churn            int      `json:"churn,omitempty"`
	ChurnConcurrency int      `json:"churn_concurrency,omitempty"`
	DurationS        float64  `json:"duration_s"` // the configured bound
	ElapsedS         float64  `json:"elapsed_s"`  // the load's actual length

	Counts         Counts      `json:"counts"`
	FirstFrame     Dist        `json:"to_first_frame"`
	Done           Dist        `json:"to_done"`
	FirstFrameBusy Dist        `json:"to_first_frame_busy"` // of the changes that met a busy reply
	DoneOneFrame   Dist        `json:"to_done_one_frame"`   // of the changes served in a single frame (cached)
	Dial           Dist        `json:"dial"`
	Errors         ErrorCounts `json:"errors"`
	ErrorSamples   []string    `json:"error_samples,omitempty"`
	RefusalSamples []string    `json:"refusal_samples,omitempty"` // the first refusal naming each parameter

	Server ServerReport `json:"server"`
	CPU                 // over the load

	// Windows are the latencies to first frame by when the change was sent, one per -window.
	Windows []Window `json:"windows,omitempty"`
}

// Window is the latency to first frame of the changes sent in one window of the load.
type Window struct {
	FromS float64 `json:"from_s"`
	Dist
}

// ErrorCounts are the errors by kind; Total decides the exit status.
type ErrorCounts struct {
	Total            int64 `json:"total"`
	Dial             int64 `json:"dial"`
	ErrorReplies     int64 `json:"error_replies"`
	UnexpectedCloses int64 `json:"unexpected_closes"`
	Stalls           int64 `json:"stalls"`
	SendFailures     int64 `json:"send_failures"`
	Protocol         int64 `json:"protocol"`
}

// ServerReport is what the server's /metrics showed.
type ServerReport struct {
	Baseline       Snapshot           `json:"baseline"`
	Peak           Snapshot           `json:"peak"`
	End            Snapshot           `json:"end"`
	SettleS        float64            `json:"settle_s"` // how long the end waited for goroutines to stop falling
	Runs           map[string]float64 `json:"runs"`     // runs by outcome, baseline to end
	MeanRunMS      float64            `json:"mean_run_ms"`
	Rejected       map[string]float64 `json:"rejected"` // refusals by reason, baseline to end
	Frames         float64            `json:"frames"`
	ScrapeFailures int64              `json:"scrape_failures"`
}

func (t *tester) report(base, during, end sample, elapsed, settled time.Duration) *Report {
	cfg := t.cfg
	r := &Report{
		Mode: "viewers", URL: t.t.base.String(), Lab: t.space.lab, BaseQuery: t.space.startQuery(),
		Space: t.space.describe(), SpaceSize: t.space.size(),
		DurationS: cfg.Duration.Seconds(), ElapsedS: round(elapsed.Seconds(), 2),
	}
	if cfg.Churn > 0 {
		r.Mode, r.Churn, r.ChurnConcurrency = "churn", cfg.Churn, cfg.ChurnConcurrency
	} else {
		r.Scenarios, r.Viewers, r.ThinkS = cfg.Scenarios, cfg.Viewers, cfg.Think.Seconds()
	}

	t.rec.mu.Lock()
	r.Counts = t.rec.counts
	r.FirstFrame, r.Done, r.Dial = distOf(t.rec.firstFrame), distOf(t.rec.done), distOf(t.rec.dial)
	r.FirstFrameBusy, r.DoneOneFrame = distOf(t.rec.busyFirst), distOf(t.rec.oneDone)
	if len(t.rec.byWindow) > 0 {
		for w := range slices.Max(slices.Collect(maps.Keys(t.rec.byWindow))) + 1 {
			r.Windows = append(r.Windows, Window{
				FromS: (time.Duration(w) * t.rec.window).Seconds(), Dist: distOf(t.rec.byWindow[w]),
			})
		}
	}
	e := t.rec.errs
	r.ErrorSamples = slices.Clone(t.rec.samples)
	for _, k := range slices.Sorted(maps.Keys(t.rec.refusals)) {
		r.RefusalSamples = append(r.RefusalSamples, t.rec.refusals[k])
	}
	t.rec.mu.Unlock()
	r.Errors = ErrorCounts{
		Dial: e[errDial], ErrorReplies: e[errReply], UnexpectedCloses: e[errClose],
		Stalls: e[errStall], SendFailures: e[errSend], Protocol: e[errProtocol],
	}
	for _, n := range e {
		r.Errors.Total += n
	}

	t.peakMu.Lock()
	peak, failures := t.peak, t.scrapeFailures
	t.peakMu.Unlock()
	s := ServerReport{
		Baseline: snapshotOf(base), Peak: peakOf(peak, snapshotOf(during)), End: snapshotOf(end),
		SettleS: round(settled.Seconds(), 2), ScrapeFailures: failures,
		Runs: delta(base.labelValues("playground_runs_total", "outcome"), end.labelValues("playground_runs_total", "outcome")),
		Rejected: delta(base.labelValues("playground_runs_rejected_total", "reason"),
			end.labelValues("playground_runs_rejected_total", "reason")),
		Frames: end.get("playground_stream_frames_total") - base.get("playground_stream_frames_total"),
	}
	if n := end.sum("playground_run_duration_seconds_count") - base.sum("playground_run_duration_seconds_count"); n > 0 {
		s.MeanRunMS = round(1000*(end.sum("playground_run_duration_seconds_sum")-base.sum("playground_run_duration_seconds_sum"))/n, 1)
	}
	r.Server = s
	return r
}

// WriteText prints the report for people.
func (r *Report) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	if r.Mode == "churn" {
		p("churn load on %s (lab %s): %d cycles, %d at a time, base query %q; %.1fs\n",
			r.URL, r.Lab, r.Churn, r.ChurnConcurrency, r.BaseQuery, r.ElapsedS)
		c := r.Counts
		p("  cycles %d, connected %d, vanished %d, changes sent %d\n", c.ChurnCycles, c.Connects, c.ChurnVanished, c.Sent)
	} else {
		p("viewers load on %s (lab %s): %d viewers, %s scenarios, think %gs, base query %q; %.1fs\n",
			r.URL, r.Lab, r.Viewers, r.Scenarios, r.ThinkS, r.BaseQuery, r.ElapsedS)
		p("  viewers move (%d scenarios):\n", r.SpaceSize)
		for _, a := range r.Space {
			p("    %s\n", a)
		}
		c := r.Counts
		p("  changes: sent %d, answered %d, done %d (%d in a single frame), refused %d, superseded %d, unfinished %d\n",
			c.Sent, c.Answered, c.Done, c.OneFrameDone, c.Refused, c.Superseded, c.Unfinished)
		p("  busy replies %d (on %d changes), frames %d, stale replies ignored %d, connects %d, reconnects %d\n",
			c.BusyReplies, c.BusyChanges, c.Frames, c.StaleReplies, c.Connects, c.Reconnects)
		p("  latency, ms     %8s %8s %8s %8s %8s %8s\n", "n", "p50", "p90", "p99", "max", "mean")
		dist := func(name string, d Dist) {
			p("  %-14s %8d %8s %8s %8s %8s %8s\n", name, d.N, ms(d.P50, d.N), ms(d.P90, d.N), ms(d.P99, d.N), ms(d.Max, d.N), ms(d.Mean, d.N))
		}
		dist("to first frame", r.FirstFrame)
		dist("to done", r.Done)
		dist(" …met busy", r.FirstFrameBusy)
		dist(" …one frame", r.DoneOneFrame)
		p("  (…met busy: to first frame of the changes that got a busy reply; …one frame: to done of\n" +
			"   those served in a single frame, i.e. from the cache)\n")
		if len(r.Windows) > 1 {
			p("  to first frame by when sent:")
			for _, w := range r.Windows {
				p("  %gs: p50 %s p99 %sms (n %d);", w.FromS, ms(w.P50, w.N), ms(w.P99, w.N), w.N)
			}
			p("\n")
		}
	}
	p("  dial            p50 %sms  p99 %sms  max %sms  (n %d)\n", ms(r.Dial.P50, r.Dial.N), ms(r.Dial.P99, r.Dial.N), ms(r.Dial.Max, r.Dial.N), r.Dial.N)
	e := r.Errors
	p("  errors %d: dial %d, error replies %d, unexpected closes %d, stalls %d, send failures %d, protocol %d\n",
		e.Total, e.Dial, e.ErrorReplies, e.UnexpectedCloses, e.Stalls, e.SendFailures, e.Protocol)
	for _, s := range r.ErrorSamples {
		p("    e.g. %s\n", s)
	}
	for _, s := range r.RefusalSamples {
		p("    refused, e.g. %s\n", s)
	}
	s := r.Server
	p("  server           %12s %12s %12s\n", "baseline", "peak", "end")
	row := func(name string, f func(Snapshot) string) {
		p("  %-15s %12s %12s %12s\n", name, f(s.Baseline), f(s.Peak), f(s.End))
	}
	row("goroutines", func(x Snapshot) string { return fmt.Sprintf("%.0f", x.Goroutines) })
	row("heap", func(x Snapshot) string { return mib(x.HeapBytes) })
	row("rss", func(x Snapshot) string { return mib(x.RSSBytes) })
	row("streams", func(x Snapshot) string { return fmt.Sprintf("%.0f", x.Connections) })
	row("runs in flight", func(x Snapshot) string { return fmt.Sprintf("%.0f", x.RunsInFlight) })
	p("  ")
	r.CPU.writeText(w, "over the load")
	p("  end measured after %.1fs of settling\n", s.SettleS)
	p("  runs: %s; mean run %.0fms; frames written %.0f\n", kv(s.Runs), s.MeanRunMS, s.Frames)
	p("  refused: %s\n", kv(s.Rejected))
	if s.ScrapeFailures > 0 {
		p("  /metrics scrapes failed during the load: %d\n", s.ScrapeFailures)
	}
}

// kv formats m as "k v, k v" in key order, or "none".
func kv(m map[string]float64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %.0f", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/resilience-playground/playground/labs"
)

// viewersConfig is a short, small viewers load on lab of the server at url.
func viewersConfig(url, lab string) ViewersConfig {
	return ViewersConfig{
		Server: server(url), Lab: lab, Viewers: 3, Duration: 2 * time.Second, Think: 150 * time.Millisecond,
		Scenarios: "classroom", Stops: 8, Seeds: 3, ChurnConcurrency: 1,
		ScrapeEvery: 200 * time.Millisecond, Settle: 20 * time.Second,
	}
}

// TestViewers: viewers move the free lab's parameters; scenarios over the server's budget are
// refused (an answer, not an error), the rest run; the report counts both and the server's
// view of them.
func TestViewers(t *testing.T) {
	url := mustServe(t, 1e8, free())
	cfg := viewersConfig(url, "free")
	cfg.Labs, cfg.Vary = labsOf(free()), []string{"n", "steps=1|2|3"}
	rep, err := Viewers(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Counts
	if rep.Errors.Total != 0 || c.Sent == 0 || c.Done == 0 || c.Refused == 0 || rep.FirstFrame.N == 0 || rep.Done.N != int(c.Done) {
		t.Errorf("errors %+v %q, counts %+v, first frame %+v, done %+v; want changes done and refused, no error",
			rep.Errors, rep.ErrorSamples, c, rep.FirstFrame, rep.Done)
	}
	if c.Sent != c.Done+c.Refused+c.Superseded+c.Unfinished {
		t.Errorf("counts %+v: sent is not done + refused + superseded + unfinished", c)
	}
	if len(rep.RefusalSamples) == 0 || !strings.HasPrefix(rep.RefusalSamples[0], "n: this scenario needs about") {
		t.Errorf("refusals %q, want the budget's, naming n", rep.RefusalSamples)
	}
	if rep.Server.Rejected["over_budget"] != float64(c.Refused) || rep.Server.Runs["ok"] == 0 {
		t.Errorf("server: refused %v, runs %v; want %d refusals over budget and runs ok", rep.Server.Rejected, rep.Server.Runs, c.Refused)
	}
	if rep.Server.End.Connections != 0 || rep.Server.Peak.Connections == 0 {
		t.Errorf("server streams: peak %v, end %v", rep.Server.Peak.Connections, rep.Server.End.Connections)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	for _, want := range []string{"viewers load on " + url, "n: positions 0 ", "steps: positions 1 2 3", "refused, e.g. n: "} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	if b, err := json.Marshal(rep); err != nil || !strings.Contains(string(b), `"changes_refused":`) {
		t.Errorf("JSON report: %v\n%s", err, b)
	}
}

// TestViewersEveryLab: the viewers mode loads every lab of the registry, moving every one of
// its parameters, starting from a cheap scenario; changes are answered, with no error. (How
// many runs finish within the window depends on the machine, so that is not asserted.)
func TestViewersEveryLab(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every lab")
	}
	reg := labs.Registry()
	url := mustServe(t, 1e6, reg.All()...)
	for _, l := range reg.All() {
		t.Run(l.Name, func(t *testing.T) {
			cfg := viewersConfig(url, l.Name)
			cfg.Labs, cfg.BaseQuery = reg, l.Light
			for _, s := range l.Params {
				cfg.Vary = append(cfg.Vary, s.Name)
			}
			rep, err := Viewers(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Counts
			if rep.Errors.Total != 0 || c.Answered == 0 || len(rep.Space) != len(l.Params) {
				t.Errorf("errors %+v %q, counts %+v, space %q", rep.Errors, rep.ErrorSamples, c, rep.Space)
			}
			t.Logf("%s: %+v; refusals %q", l.Name, c, rep.RefusalSamples)
		})
	}
}

// TestChurn: vanished connections are counted, and the server lets go of them.
func TestChurn(t *testing.T) {
	url := mustServe(t, 0, free())
	cfg := viewersConfig(url, "free")
	cfg.Labs, cfg.Vary, cfg.Churn, cfg.ChurnConcurrency, cfg.Duration = labsOf(free()), []string{"n"}, 12, 4, time.Minute
	rep, err := Viewers(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Counts
	if rep.Mode != "churn" || c.ChurnCycles != 12 || c.ChurnVanished != 12 || c.Connects != 12 || c.Sent < 12 || rep.Errors.Total != 0 {
		t.Errorf("mode %s, counts %+v, errors %+v %q", rep.Mode, c, rep.Errors, rep.ErrorSamples)
	}
	if rep.Server.End.Connections != 0 {
		t.Errorf("%v streams left open at the end", rep.Server.End.Connections)
	}
}

// TestViewersCheck: a bad configuration is refused before any load, naming the flag.
func TestViewersCheck(t *testing.T) {
	base := viewersConfig("http://127.0.0.1:1", "free")
	base.Labs = labsOf(free())
	for _, tc := range []struct {
		edit func(*ViewersConfig)
		want string
	}{
		{func(c *ViewersConfig) { c.Lab = "nosuch" }, `-lab "nosuch" is not a lab; choose one of [free]`},
		{func(c *ViewersConfig) { c.URL = "http://example.com" }, "not loopback"},
		{func(c *ViewersConfig) { c.Viewers = 0 }, "-viewers"},
		{func(c *ViewersConfig) { c.Scenarios = "crowd" }, "-scenarios"},
		{func(c *ViewersConfig) { c.Stops = 1 }, "-stops"},
		{func(c *ViewersConfig) { c.BaseQuery = "n=-1" }, "-base-query: n must be"},
		{func(c *ViewersConfig) { c.Vary = []string{"x"} }, `-vary: the free lab has no parameter "x"`},
	} {
		cfg := base
		tc.edit(&cfg)
		if err := cfg.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Check() = %v, want an error with %q", err, tc.want)
		}
		if _, err := Viewers(context.Background(), cfg); err == nil {
			t.Errorf("Viewers ran a configuration whose Check fails with %q", tc.want)
		}
	}
}

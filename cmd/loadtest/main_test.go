package main

import (
	"strings"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	tests := []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"empty", nil, 50, 0},
		{"one", ms(7), 50, 7 * time.Millisecond},
		{"one p99", ms(7), 99, 7 * time.Millisecond},
		{"p0 is the minimum", ms(1, 2, 3), 0, time.Millisecond},
		{"median of odd", ms(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{"median of even is the lower middle", ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p100 is the maximum", ms(1, 2, 3, 4), 100, 4 * time.Millisecond},
		{"p90 of 1..100", ms(hundred...), 90, 90 * time.Millisecond},
		{"p99 of 1..100", ms(hundred...), 99, 99 * time.Millisecond},
		{"p99 of 10 is the maximum", ms(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p50.1 of 1..100 rounds up", ms(hundred...), 50.1, 51 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: percentile(p=%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestDistOf(t *testing.T) {
	d := distOf([]time.Duration{3 * time.Millisecond, time.Millisecond, 2 * time.Millisecond})
	if d.N != 3 || d.P50 != 2 || d.Max != 3 || d.Mean != 2 {
		t.Errorf("distOf = %+v, want n 3, p50 2, max 3, mean 2", d)
	}
	if d := distOf(nil); d != (Dist{}) {
		t.Errorf("distOf(nil) = %+v, want zero", d)
	}
}

func TestLoopbackURL(t *testing.T) {
	ok := []string{
		"http://127.0.0.1:8080",
		"http://127.0.0.1",
		"http://127.1.2.3:9000/prefix",
		"https://localhost:8443",
		"http://LOCALHOST:8080",
		"http://localhost.:8080",
		"http://[::1]:8080",
		"ws://127.0.0.1:8080",
		"wss://[::1]",
		"http://[::ffff:127.0.0.1]:8080", // IPv4-mapped 127.0.0.1
	}
	for _, raw := range ok {
		if _, err := loopbackURL(raw); err != nil {
			t.Errorf("loopbackURL(%q) = %v, want accepted", raw, err)
		}
	}
	bad := []string{
		"http://10.0.0.1:8080",
		"http://128.0.0.1",
		"http://0.0.0.0:8080",
		"http://[::]:8080",
		"http://[::2]:8080",
		"http://[fe80::1%25lo]:8080",
		"http://example.com",
		"http://localhost.example.com",
		"http://foo.localhost",
		"http://127.0.0.1.nip.io",
		"http://2130706433", // 127.0.0.1 as a number: resolvers may accept it, we do not
		"http://user:pw@127.0.0.1:8080",
		"ftp://127.0.0.1",
		"127.0.0.1:8080",
		"http://",
		"http://127.0.0.1:99999",
		"://bad",
	}
	for _, raw := range bad {
		if _, err := loopbackURL(raw); err == nil {
			t.Errorf("loopbackURL(%q) accepted, want refused", raw)
		}
	}
	u, err := loopbackURL("ws://127.0.0.1:18080/?x=1#f")
	if err != nil || u.Scheme != "http" || u.RawQuery != "" || u.Fragment != "" {
		t.Errorf("loopbackURL(ws://...) = %v, %v; want http scheme without query or fragment", u, err)
	}
}

func TestRunRefusesRemoteURL(t *testing.T) {
	var out, errOut strings.Builder
	if code := run([]string{"-url", "http://192.0.2.1:8080"}, &out, &errOut); code != 2 {
		t.Errorf("run with a remote -url = %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "not loopback") {
		t.Errorf("stderr = %q, want it to say the host is not loopback", errOut.String())
	}
}

func TestStreamURL(t *testing.T) {
	u, err := loopbackURL("http://127.0.0.1:8080/pg/")
	if err != nil {
		t.Fatal(err)
	}
	c := &config{base: u, lab: "backoff"}
	if got, want := c.streamURL(), "http://127.0.0.1:8080/pg/api/v1/backoff/stream"; got != want {
		t.Errorf("streamURL = %q, want %q", got, want)
	}
	if got, want := c.metricsURL(), "http://127.0.0.1:8080/pg/metrics"; got != want {
		t.Errorf("metricsURL = %q, want %q", got, want)
	}
}

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 42
playground_runs_total{lab="backoff",outcome="ok"} 5
playground_runs_total{lab="backoff",outcome="cancelled"} 2
playground_runs_rejected_total{reason="busy"} 7
process_resident_memory_bytes 1.2345e+07
`
	series, err := parseMetrics(strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	s := sample{series: series}
	if got := s.get("go_goroutines"); got != 42 {
		t.Errorf("go_goroutines = %v, want 42", got)
	}
	if got := s.sum("playground_runs_total"); got != 7 {
		t.Errorf("sum runs = %v, want 7", got)
	}
	if got := s.sum("playground_runs_total", `outcome="ok"`); got != 5 {
		t.Errorf("sum ok runs = %v, want 5", got)
	}
	if got := s.labelValues("playground_runs_total", "outcome"); got["cancelled"] != 2 || got["ok"] != 5 {
		t.Errorf("runs by outcome = %v", got)
	}
	if got := s.get("process_resident_memory_bytes"); got != 12345000 {
		t.Errorf("rss = %v", got)
	}
	if _, err := parseMetrics(strings.NewReader("go_goroutines x\n")); err == nil {
		t.Error("a malformed value parsed")
	}
}

func TestGestureStaysInSpace(t *testing.T) {
	sp := &space{clients: []int{10, 20, 30}, sets: []string{"a", "b"}, seeds: 2}
	rng := newRand()
	p := sp.start()
	for range 1000 {
		for _, s := range sp.gesture(p, false, rng) {
			p = s.p
			if p.client < 0 || p.client >= 3 || p.set < 0 || p.set >= 2 || p.seed < 0 || p.seed >= 2 {
				t.Fatalf("gesture left the space: %+v", p)
			}
		}
	}
}

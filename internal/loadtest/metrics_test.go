package loadtest

import (
	"strings"
	"testing"
)

func TestParseMetrics(t *testing.T) {
	text := `# HELP go_goroutines Number of goroutines.
# TYPE go_goroutines gauge
go_goroutines 42
playground_runs_total{lab="backoff",outcome="ok"} 5
playground_runs_total{lab="backoff",outcome="cancelled"} 2
playground_runs_rejected_total{reason="busy"} 7
process_resident_memory_bytes 1.2345e+07
process_cpu_seconds_total 1.5
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
	if got, ok := s.cpu(); !ok || got.Seconds() != 1.5 {
		t.Errorf("cpu = %v, %v; want 1.5s", got, ok)
	}
	if _, err := parseMetrics(strings.NewReader("go_goroutines x\n")); err == nil {
		t.Error("a malformed value parsed")
	}
}

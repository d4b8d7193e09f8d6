package loadtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// sample is one scrape of the server's /metrics: series value by name, labels kept as served
// ("{k=\"v\",...}"), e.g. playground_runs_total{lab="backoff",outcome="ok"}.
type sample struct {
	at     time.Time
	series map[string]float64
}

// scrape fetches and parses the server's /metrics within the timeout.
func (t *target) scrape(ctx context.Context) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, t.Timeout)
	defer cancel()
	u := t.url("/metrics")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return sample{}, err
	}
	// Plain text, not the protobuf or OpenMetrics formats a client may negotiate.
	req.Header.Set("Accept", "text/plain; version=0.0.4")
	resp, err := t.client.Do(req)
	if err != nil {
		return sample{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return sample{}, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	series, err := parseMetrics(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return sample{}, fmt.Errorf("GET %s: %v", u, err)
	}
	return sample{at: time.Now(), series: series}, nil
}

// parseMetrics parses the Prometheus text format: one "name[{labels}] value [timestamp]" per
// line, comments and blank lines skipped. Labels are kept verbatim as part of the key.
func parseMetrics(r io.Reader) (map[string]float64, error) {
	out := map[string]float64{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		key, rest := line, ""
		if i := strings.LastIndexByte(line, '}'); i >= 0 {
			key, rest = line[:i+1], line[i+1:]
		} else if i := strings.IndexByte(line, ' '); i >= 0 {
			key, rest = line[:i], line[i:]
		}
		fields := strings.Fields(rest)
		if len(fields) == 0 {
			return nil, fmt.Errorf("malformed metrics line %q", line)
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			return nil, fmt.Errorf("malformed value in metrics line %q", line)
		}
		out[key] = v
	}
	return out, sc.Err()
}

// get returns the value of the series named exactly key (0 when absent).
func (s sample) get(key string) float64 { return s.series[key] }

// sum adds the series of metric name whose labels include every label="value" pair given.
func (s sample) sum(name string, labels ...string) float64 {
	var total float64
	for k, v := range s.series {
		base, lbl, _ := strings.Cut(k, "{")
		if base != name {
			continue
		}
		ok := true
		for _, l := range labels {
			if !strings.Contains(","+strings.TrimSuffix(lbl, "}")+",", ","+l+",") {
				ok = false
				break
			}
		}
		if ok {
			total += v
		}
	}
	return total
}

// labelValues returns, for metric name, the sum of its series by the value of label lbl.
func (s sample) labelValues(name, lbl string) map[string]float64 {
	out := map[string]float64{}
	for k, v := range s.series {
		base, labels, ok := strings.Cut(k, "{")
		if base != name || !ok {
			continue
		}
		for pair := range strings.SplitSeq(strings.TrimSuffix(labels, "}"), ",") {
			if name, val, ok := strings.Cut(pair, "="); ok && name == lbl {
				out[strings.Trim(val, `"`)] += v
			}
		}
	}
	return out
}

// cpu is the server's CPU time so far, and whether it reports it.
func (s sample) cpu() (time.Duration, bool) {
	v, ok := s.series["process_cpu_seconds_total"]
	return time.Duration(v * float64(time.Second)), ok
}

// delta returns after minus before for every key of after whose value changed.
func delta(before, after map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out[k] = d
		}
	}
	return out
}

// Snapshot is the server's footprint at one moment, as its /metrics shows it.
type Snapshot struct {
	Goroutines   float64 `json:"goroutines"`
	HeapBytes    float64 `json:"heap_alloc_bytes"`
	RSSBytes     float64 `json:"rss_bytes"`
	Connections  float64 `json:"stream_connections"`
	RunsInFlight float64 `json:"runs_in_flight"`
}

func snapshotOf(s sample) Snapshot {
	return Snapshot{
		Goroutines:   s.get("go_goroutines"),
		HeapBytes:    s.get("go_memstats_heap_alloc_bytes"),
		RSSBytes:     s.get("process_resident_memory_bytes"),
		Connections:  s.get("playground_stream_connections"),
		RunsInFlight: s.get("playground_runs_in_flight"),
	}
}

// peakOf is the field-by-field maximum of a and b.
func peakOf(a, b Snapshot) Snapshot {
	return Snapshot{
		Goroutines:   max(a.Goroutines, b.Goroutines),
		HeapBytes:    max(a.HeapBytes, b.HeapBytes),
		RSSBytes:     max(a.RSSBytes, b.RSSBytes),
		Connections:  max(a.Connections, b.Connections),
		RunsInFlight: max(a.RunsInFlight, b.RunsInFlight),
	}
}

func mib(b float64) string { return fmt.Sprintf("%.1fMiB", b/(1<<20)) }

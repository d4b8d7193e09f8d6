package loadtest

import (
	"encoding/json"
	"testing"
	"time"
)

func msList(xs ...int) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

func TestPercentile(t *testing.T) {
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
		{"one", msList(7), 50, 7 * time.Millisecond},
		{"one p99", msList(7), 99, 7 * time.Millisecond},
		{"p0 is the minimum", msList(1, 2, 3), 0, time.Millisecond},
		{"median of odd", msList(1, 2, 3, 4, 5), 50, 3 * time.Millisecond},
		{"median of even is the lower middle", msList(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{"p100 is the maximum", msList(1, 2, 3, 4), 100, 4 * time.Millisecond},
		{"p90 of 1..100", msList(hundred...), 90, 90 * time.Millisecond},
		{"p99 of 1..100", msList(hundred...), 99, 99 * time.Millisecond},
		{"p99 of 10 is the maximum", msList(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), 99, 10 * time.Millisecond},
		{"p50.1 of 1..100 rounds up", msList(hundred...), 50.1, 51 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := percentile(tt.sorted, tt.p); got != tt.want {
			t.Errorf("%s: percentile(p=%v) = %v, want %v", tt.name, tt.p, got, tt.want)
		}
	}
}

func TestDistOf(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	d := distOf(s)
	if d.N != 100 || d.P50 != 50*time.Millisecond || d.P90 != 90*time.Millisecond || d.P99 != 99*time.Millisecond ||
		d.Max != 100*time.Millisecond || d.Mean != 50500*time.Microsecond {
		t.Errorf("distOf(1..100ms) = %+v", d)
	}
	if d := distOf(nil); d != (Dist{}) {
		t.Errorf("distOf(nil) = %+v, want zero", d)
	}
	b, err := json.Marshal(distOf(msList(3, 1, 2)))
	if want := `{"n":3,"p50_ms":2,"p90_ms":3,"p99_ms":3,"max_ms":3,"mean_ms":2}`; err != nil || string(b) != want {
		t.Errorf("JSON %s, %v; want %s", b, err, want)
	}
}

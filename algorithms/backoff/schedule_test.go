package backoff_test

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/resilience-playground/playground/algorithms/backoff"
)

// secs formats d in seconds to 3 decimals, as the Qiita post's tables do.
func secs(d time.Duration) string { return fmt.Sprintf("%.3f", d.Seconds()) }

// TestScheduleSeed004 reproduces the table of the Qiita post "Exponential
// backoff における経過時間とリトライ間隔の関係" for a = 1s and r = 1.1, chosen
// so that the sleep is about 1/10 of the elapsed time around T = 1000s.
func TestScheduleSeed004(t *testing.T) {
	steps := backoff.Schedule(time.Second, time.Hour, backoff.MultiplierForRatio(0.1), 49)
	if len(steps) != 49 {
		t.Fatalf("len = %d, want 49", len(steps))
	}
	table := []struct {
		retry          int
		sleep, elapsed string
	}{
		{1, "1.000", "1.000"},
		{2, "1.100", "2.100"},
		{3, "1.210", "3.310"},
		{48, "88.197", "960.172"},
		{49, "97.017", "1057.190"},
	}
	for _, row := range table {
		s := steps[row.retry-1]
		if s.Retry != row.retry || secs(s.Sleep) != row.sleep || secs(s.Elapsed) != row.elapsed {
			t.Errorf("step %d = {%d %s %s}, want {%d %s %s}",
				row.retry-1, s.Retry, secs(s.Sleep), secs(s.Elapsed), row.retry, row.sleep, row.elapsed)
		}
	}
	// The post's point: after T_48 = 960.172s the next sleep is a + 0.1·T_48.
	next := backoff.NextSleep(time.Second, 1.1, steps[47].Elapsed)
	if secs(next) != "97.017" {
		t.Errorf("NextSleep after %v = %v, want 97.017s", steps[47].Elapsed, next)
	}
}

// TestScheduleDoubling reproduces the post's a = 1s, r = 2 table.
func TestScheduleDoubling(t *testing.T) {
	steps := backoff.Schedule(time.Second, 0, 2, 11)
	want := []struct {
		retry          int
		sleep, elapsed time.Duration
	}{
		{1, 1 * time.Second, 1 * time.Second},
		{2, 2 * time.Second, 3 * time.Second},
		{3, 4 * time.Second, 7 * time.Second},
		{10, 512 * time.Second, 1023 * time.Second},
		{11, 1024 * time.Second, 2047 * time.Second},
	}
	for _, w := range want {
		if got := steps[w.retry-1]; got != (backoff.Step{Retry: w.retry, Sleep: w.sleep, Elapsed: w.elapsed}) {
			t.Errorf("retry %d: got %+v, want sleep %v elapsed %v", w.retry, got, w.sleep, w.elapsed)
		}
	}
	if got := backoff.NextSleep(time.Second, 2, 1023*time.Second); got != 1024*time.Second {
		t.Errorf("NextSleep(1s, 2, 1023s) = %v, want 1024s", got)
	}
}

func TestScheduleCases(t *testing.T) {
	tests := []struct {
		name       string
		base, cap  time.Duration
		multiplier float64
		n          int
		sleeps     []time.Duration // in seconds
	}{
		{"capped", time.Second, 10 * time.Second, 2, 6, []time.Duration{1, 2, 4, 8, 10, 10}},
		{"multiplier 0 means 2", time.Second, 0, 0, 4, []time.Duration{1, 2, 4, 8}},
		{"multiplier 1 is constant", time.Second, 0, 1, 3, []time.Duration{1, 1, 1}},
		{"n=0", time.Second, 0, 2, 0, nil},
		{"n<0", time.Second, 0, 2, -1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := backoff.Schedule(tt.base, tt.cap, tt.multiplier, tt.n)
			if len(steps) != len(tt.sleeps) {
				t.Fatalf("len = %d, want %d", len(steps), len(tt.sleeps))
			}
			var elapsed time.Duration
			for i, s := range steps {
				want := tt.sleeps[i] * time.Second
				elapsed += want
				if s != (backoff.Step{Retry: i + 1, Sleep: want, Elapsed: elapsed}) {
					t.Errorf("step %d = %+v, want sleep %v elapsed %v", i, s, want, elapsed)
				}
			}
		})
	}
}

// TestScheduleMatchesExponential checks t_n = Exponential at attempt n-1 and
// that Elapsed sums the sleeps exactly.
func TestScheduleMatchesExponential(t *testing.T) {
	for _, r := range []float64{1.1, 1.5, 2, 3} {
		e := backoff.Exponential{Base: 250 * ms, Cap: time.Hour, Multiplier: r}
		var elapsed time.Duration
		for i, s := range backoff.Schedule(e.Base, e.Cap, r, 60) {
			elapsed += s.Sleep
			if want := e.Sleep(i, 0, nil); s.Sleep != want || s.Elapsed != elapsed {
				t.Fatalf("r=%v step %d = %+v, want sleep %v elapsed %v", r, i, s, want, elapsed)
			}
		}
	}
}

// TestNextSleepIdentity checks t_{n+1} = a + (r-1)·T_n along uncapped
// schedules, up to the rounding of each sleep to a nanosecond.
func TestNextSleepIdentity(t *testing.T) {
	for _, r := range []float64{1.1, 1.5, 2, 3} {
		steps := backoff.Schedule(time.Second, 0, r, 30)
		for i := 0; i+1 < len(steps); i++ {
			got := backoff.NextSleep(time.Second, r, steps[i].Elapsed)
			want := steps[i+1].Sleep
			if diff := math.Abs(float64(got - want)); diff > float64(i+1)*r {
				t.Errorf("r=%v: NextSleep after %v = %v, want %v", r, steps[i].Elapsed, got, want)
			}
		}
	}
}

func TestScheduleSaturates(t *testing.T) {
	steps := backoff.Schedule(time.Second, 0, 2, 100)
	last := steps[len(steps)-1]
	if last.Sleep != maxDur || last.Elapsed != maxDur {
		t.Errorf("last step = %+v, want sleep and elapsed saturated at %v", last, maxDur)
	}
	for i := 1; i < len(steps); i++ {
		if steps[i].Elapsed < steps[i-1].Elapsed {
			t.Fatalf("elapsed decreases at step %d: %v < %v", i, steps[i].Elapsed, steps[i-1].Elapsed)
		}
	}
}

func TestNextSleep(t *testing.T) {
	tests := []struct {
		base       time.Duration
		multiplier float64
		elapsed    time.Duration
		want       time.Duration
	}{
		{time.Second, 2, 0, time.Second},
		{time.Second, 2, 1023 * time.Second, 1024 * time.Second},
		{time.Second, 0, 1023 * time.Second, 1024 * time.Second},
		{time.Second, 1.1, 1000 * time.Second, 101 * time.Second},
		{time.Second, 1, time.Hour, time.Second},
		{time.Second, 2, maxDur, maxDur},
	}
	for _, tt := range tests {
		if got := backoff.NextSleep(tt.base, tt.multiplier, tt.elapsed); got != tt.want {
			t.Errorf("NextSleep(%v, %v, %v) = %v, want %v", tt.base, tt.multiplier, tt.elapsed, got, tt.want)
		}
	}
}

func TestMultiplierForRatio(t *testing.T) {
	tests := []struct{ ratio, want float64 }{
		{0.1, 1.1},
		{1, 2},
		{0.5, 1.5},
		{0, 1},
	}
	for _, tt := range tests {
		if got := backoff.MultiplierForRatio(tt.ratio); got != tt.want {
			t.Errorf("MultiplierForRatio(%v) = %v, want %v", tt.ratio, got, tt.want)
		}
	}
}

package roomload

import (
	"bytes"
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// serve starts an API server whose only lab is labtest's ungated lab, named "free".
func serve(t *testing.T) string {
	t.Helper()
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: 4, CacheSize: 64, Observe: m.ObserveRun})
	a := api.New(api.Config{Labs: lab.NewRegistry(labtest.NewGated("free", false).Lab), Hub: h, Metrics: m})
	srv := httptest.NewServer(a)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRun(t *testing.T) {
	for _, tc := range []struct {
		name     string
		vary     string
		compress bool
	}{{"new runs", "n", true}, {"cached runs", "", false}} {
		t.Run(tc.name, func(t *testing.T) {
			var progress bytes.Buffer
			res, err := Run(context.Background(), Config{
				BaseURL: serve(t), Scenario: "/free?steps=4", Vary: tc.vary, Compress: tc.compress,
				Followers: 12, Changes: 4, Interval: time.Millisecond, Timeout: 20 * time.Second, Progress: &progress,
			})
			if err != nil {
				t.Fatal(err)
			}
			if res.Followers != 12 || res.Changes != 4 || res.Scenario != "/free?steps=4" || len(res.Code) == 0 {
				t.Errorf("result %+v", res)
			}
			for k := range NumKinds {
				if res.Last[k].N != 4 || res.First[k].N != 4 || res.Each[k].N != 48 || res.Missing[k] != 0 {
					t.Errorf("%s: last %+v, first %+v, each %+v, %d missing; want a sample per change and per follower-change",
						k, res.Last[k], res.First[k], res.Each[k], res.Missing[k])
				}
				if l, e, f := res.Last[k], res.Each[k], res.First[k]; l.Max < l.P50 || f.P50 > l.P50 || e.Max != l.Max || l.P50 <= 0 {
					t.Errorf("%s: inconsistent: last %+v, first %+v, each %+v", k, l, f, e)
				}
			}
			if res.Last[Done].P50 < res.Last[Start].P50 {
				t.Errorf("the runs ended (%v) before they started (%v)", res.Last[Done].P50, res.Last[Start].P50)
			}
			var out bytes.Buffer
			res.WriteText(&out)
			for _, want := range []string{"12 followers, 4 changes of /free?steps=4", "last follower", "\ndone "} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("report lacks %q:\n%s", want, out.String())
				}
			}
			if !strings.Contains(progress.String(), "change 4 of 4 reached every follower") {
				t.Errorf("progress:\n%s", progress.String())
			}
		})
	}
}

// TestRunErrors: what goes wrong is said clearly.
func TestRunErrors(t *testing.T) {
	base := serve(t)
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Scenario: "/nosuchlab"}, "creating the room: 400"},
		{Config{Scenario: "/free?steps=0"}, "steps must be"},
		{Config{Scenario: "/free", Vary: "nosuchparam"}, `is "nosuchparam" a parameter of the lab?`},
	} {
		tc.cfg.BaseURL, tc.cfg.Followers, tc.cfg.Changes, tc.cfg.Timeout = base, 3, 2, 10*time.Second
		_, err := Run(context.Background(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one with %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := Run(context.Background(), Config{BaseURL: "ftp://x", Scenario: "/free", Followers: 1, Changes: 1}); err == nil {
		t.Error("an ftp base URL is accepted")
	}
}

func TestPeek(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want message
	}{
		{`{"type":"frame","id":7,"series":[{"x":[1,2,3]}]}`, message{"frame", 7}},
		{`{"type":"done","id":12}`, message{"done", 12}},
		{`{"type":"room","id":0,"room":{"code":"ABC","version":3,"presenter":false}}`, message{"room", 3}},
		{`{"id":4, "type":"start"}`, message{"start", 4}},
		{`{"type":"busy","id":2,"retry_ms":400}`, message{"busy", 2}},
	} {
		got, err := peek([]byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("peek(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{`not json`, `{"type":"room","id":0}`} {
		if _, err := peek([]byte(bad)); err == nil {
			t.Errorf("peek(%s): no error", bad)
		}
	}
}

func TestDistOf(t *testing.T) {
	var s []time.Duration
	for i := 100; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	if d := DistOf(s); d.N != 100 || d.P50 != 50*time.Millisecond || d.P99 != 99*time.Millisecond || d.Max != 100*time.Millisecond {
		t.Errorf("DistOf(1..100ms) = %+v", d)
	}
	if d := DistOf(nil); d != (Dist{}) {
		t.Errorf("DistOf(nil) = %+v", d)
	}
}

package main

import (
	"bytes"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// TestRoomMode: loadtest room prints its table and exits 0; a bad flag exits 2, a failed
// measurement 1, each with a message.
func TestRoomMode(t *testing.T) {
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: 4, CacheSize: 64, Observe: m.ObserveRun})
	srv := httptest.NewServer(api.New(api.Config{Labs: lab.NewRegistry(labtest.NewGated("free", false).Lab), Hub: h, Metrics: m}))
	defer srv.Close()

	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-url", srv.URL, "-followers", "5", "-changes", "3", "-interval", "0", "-scenario", "/free?steps=2", "-vary", "n"}, 0, "5 followers, 3 changes of /free?steps=2"},
		{[]string{"-url", srv.URL, "-followers", "2", "-changes", "1", "-scenario", "/free", "-vary", "seed"}, 1, `is "seed" a parameter of the lab?`},
		{[]string{"-url", srv.URL, "-scenario", "/nosuchlab"}, 1, "creating the room: 400"},
		{[]string{"-url", "http://example.com"}, 2, "not loopback"},
		{[]string{"-followers", "0"}, 2, "-followers must be at least 1"},
		{[]string{"-scenario", "backoff"}, 2, "-scenario must be a lab URL"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"room", "-q"}, tc.args...), &stdout, &stderr)
		if code != tc.code || !strings.Contains(stdout.String()+stderr.String(), tc.want) {
			t.Errorf("loadtest room %q: exit %d, want %d with %q\nstdout:\n%s\nstderr:\n%s", tc.args, code, tc.code, tc.want, &stdout, &stderr)
		}
	}
}

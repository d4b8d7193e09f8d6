package loadtest

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// mustServe starts an in-process API server offering labs, whose hub refuses runs estimated
// above budget (0: no limit), and returns its URL.
func mustServe(tb testing.TB, budget int64, labs ...*lab.Lab) string {
	tb.Helper()
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: 4, CacheSize: 64, Budget: budget, Observe: m.ObserveRun})
	srv := httptest.NewServer(api.New(api.Config{Labs: lab.NewRegistry(labs...), Hub: h, Metrics: m}))
	tb.Cleanup(srv.Close)
	return srv.URL
}

// free is labtest's ungated lab, named "free": its runs finish at once.
func free() *lab.Lab { return labtest.NewGated("free", false).Lab }

// server is a Server for the URL, with a timeout long enough for a busy machine under -race.
func server(url string) Server { return Server{URL: url, Timeout: 20 * time.Second} }

// labsOf is a registry of the labs.
func labsOf(labs ...*lab.Lab) *lab.Registry { return lab.NewRegistry(labs...) }

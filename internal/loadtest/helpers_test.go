package loadtest

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/resilience-playground/playground/api"
	"github.com/resilience-playground/playground/hub"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// mustServe starts an in-process API server offering labs, whose hub refuses runs estimated
// above budget (0: no limit), and returns its URL.
func mustServe(tb testing.TB, budget int64, labs ...*lab.Lab) string {
	tb.Helper()
	return mustServeWith(tb, nil, budget, labs...)
}

// mustServeWith is mustServe with a handler in front of the API: it answers the requests it
// wants to and passes the others on to next.
func mustServeWith(tb testing.TB, front func(w http.ResponseWriter, r *http.Request, next http.Handler), budget int64, labs ...*lab.Lab) string {
	tb.Helper()
	m := api.NewMetrics(prometheus.NewRegistry())
	h := hub.New(hub.Config{MaxRuns: 4, CacheSize: 64, Budget: budget, Observe: m.ObserveRun})
	var next http.Handler = api.New(api.Config{Labs: lab.NewRegistry(labs...), Hub: h, Metrics: m})
	if front != nil {
		api := next
		next = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { front(w, r, api) })
	}
	srv := httptest.NewServer(next)
	tb.Cleanup(srv.Close)
	return srv.URL
}

// free is labtest's ungated lab, named "free": its runs finish at once.
func free() *lab.Lab { return labtest.NewGated("free", false).Lab }

// server is a Server for the URL, with a timeout long enough for a busy machine under -race.
func server(url string) Server { return Server{URL: url, Timeout: 20 * time.Second} }

// labsOf is a registry of the labs.
func labsOf(labs ...*lab.Lab) *lab.Registry { return lab.NewRegistry(labs...) }

// seeded is labtest's ungated lab, named "free", with a seed parameter that changes nothing:
// for the attack's patterns, which give each run a fresh seed.
func seeded() *lab.Lab {
	l := *free()
	l.Params = append(slices.Clone(labtest.Params),
		param.Spec{Name: "seed", Label: "Seed", Kind: param.Int, Default: "1", Min: 0, Max: 1<<53 - 1, Step: 1, Random: true, Help: "Changes nothing."})
	return &l
}

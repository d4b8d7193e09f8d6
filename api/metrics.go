package api

import (
	"context"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/resilience-playground/playground/hub"
)

// Metrics are the operator's view of the server, in Prometheus text format at /metrics.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	latency     *prometheus.HistogramVec
	runs        *prometheus.CounterVec
	runLatency  *prometheus.HistogramVec
	rejected    *prometheus.CounterVec
	connections prometheus.Gauge
	frames      prometheus.Counter
}

// NewMetrics registers the server's metrics, and Go and process collectors, in reg.
func NewMetrics(reg *prometheus.Registry) *Metrics {
	m := &Metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "playground_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "playground_http_request_duration_seconds", Help: "HTTP request latency by route (streams: connection lifetime excluded).",
			Buckets: prometheus.ExponentialBuckets(0.001, 2.5, 12),
		}, []string{"route"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "playground_runs_total", Help: "Simulation runs by lab and outcome (ok, cancelled, error).",
		}, []string{"lab", "outcome"}),
		runLatency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "playground_run_duration_seconds", Help: "Simulation run time by lab.",
			Buckets: prometheus.ExponentialBuckets(0.005, 2.5, 10),
		}, []string{"lab"}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "playground_runs_rejected_total", Help: "Runs refused by reason (bad_params, over_budget, busy, draining, rate_limited).",
		}, []string{"reason"}),
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "playground_stream_connections", Help: "Open websocket streams.",
		}),
		frames: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "playground_stream_frames_total", Help: "Frames written to streams.",
		}),
	}
	reg.MustRegister(m.requests, m.latency, m.runs, m.runLatency, m.rejected, m.connections, m.frames,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// ObserveRun counts a finished run; it is a hub.Config.Observe.
func (m *Metrics) ObserveRun(lab string, d time.Duration, err error) {
	outcome := "ok"
	switch {
	case err == nil:
	case errors.Is(err, context.Canceled):
		outcome = "cancelled"
	default:
		outcome = "error"
	}
	m.runs.WithLabelValues(lab, outcome).Inc()
	m.runLatency.WithLabelValues(lab).Observe(d.Seconds())
}

// watch exports the hub's runs in flight.
func (m *Metrics) watch(h *hub.Hub) {
	_ = m.reg.Register(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "playground_runs_in_flight", Help: "Simulation runs in flight.",
	}, func() float64 { return float64(h.Running()) }))
}

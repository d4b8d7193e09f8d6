package loadbalance

import (
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

// workScenarios are heavy scenarios across the parameter space, for BenchmarkWorkUnit.
var workScenarios = []string{
	"",
	"policy=round_robin,least_loaded,weighted,random,p2c&duration=2m",
	"clients=3000&backends=3000&subset=100&rate=1&duration=1m",
	"clients=3000&backends=300&subset=300&rate=2&duration=1m&policy=least_loaded,weighted",
	"subsetting=rendezvous&clients=1000&backends=1000&subset=10&duration=20s",
	"clients=1000&backends=1000&subset=1000&rate=0.1&duration=1s", // subsetting and churn only
	"rate=100&clients=300&backends=30&duration=20s",               // overloaded
	"event=abrupt_stop&event_share=0.5&duration=3m",
	"clients=30&backends=3000&subset=1000&rate=100&duration=1m&policy=least_loaded",
	"cost_spread=1000&machine_spread=4&client_spread=100&antagonists=1&duration=2m",
}

// BenchmarkWorkUnit runs heavy scenarios and reports the CPU time per unit of counted work:
//
//	go test ./labs/loadbalance -run XXX -bench WorkUnit -benchtime 2x
func BenchmarkWorkUnit(b *testing.B) {
	for _, q := range workScenarios {
		b.Run(q, func(b *testing.B) {
			labtest.BenchmarkWorkUnit(b, q, func() (*lab.Lab, func() int64) {
				r := newRunner()
				return r.lab(), r.work.Load
			})
		})
	}
}

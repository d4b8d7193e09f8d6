package balance_test

import (
	"fmt"

	"github.com/resilience-playground/playground/algorithms/balance"
)

// ExampleLeastLoaded replays the chapter's least-loaded round robin
// example: five requests go to the five backends with no active request,
// in turn, and none completes meanwhile.
func ExampleLeastLoaded() {
	tab := &balance.Table{InFlight: []int{2, 1, 0, 0, 1, 0, 2, 0, 0, 1}}
	var ll balance.LeastLoaded
	var picks []string
	for range 5 {
		i := ll.Pick(tab)
		tab.InFlight[i]++ // the caller counts the request
		picks = append(picks, fmt.Sprintf("t%d", i))
	}
	fmt.Println(picks)
	fmt.Println(tab.InFlight)
	// Output:
	// [t2 t3 t5 t7 t8]
	// [2 1 1 1 1 1 2 1 1 1]
}

// ExampleWeighted gives three backends weights from their load reports.
// Backend 1 serves as many queries as backend 0 at twice the utilisation;
// backend 2 as many again, but half of them fail.
func ExampleWeighted() {
	tab := &balance.Table{
		InFlight: make([]int, 3),
		Reports: []balance.Report{
			{QPS: 100, Utilization: 0.25},
			{QPS: 100, Utilization: 0.5},
			{QPS: 100, EPS: 50, Utilization: 0.25},
		},
	}
	w := balance.Weighted{ErrorPenalty: 1}
	for i, r := range tab.Reports {
		fmt.Printf("backend %d: weight %.0f\n", i, balance.Weight(r, w.ErrorPenalty))
	}
	count := make([]int, 3)
	for range 1000 {
		count[w.Pick(tab)]++
	}
	fmt.Println("picks:", count)
	// Output:
	// backend 0: weight 400
	// backend 1: weight 200
	// backend 2: weight 133
	// picks: [545 273 182]
}

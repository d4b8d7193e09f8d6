package subset_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/resilience-playground/playground/algorithms/subset"
)

// ExampleDeterministic reproduces the chapter's two examples of
// deterministic subsetting, and one where the subset size does not divide
// the number of backends.
func ExampleDeterministic() {
	for _, c := range []struct{ clients, backends, size int }{
		{10, 12, 3},    // the chapter's rounds example
		{300, 300, 10}, // the chapter's figure
		{300, 10, 3},   // 3 does not divide 10: still 90 each
	} {
		conn := subset.Connections(nil, &subset.Deterministic{Seed: 1}, c.clients, c.backends, c.size)
		s := subset.Summarize(conn)
		fmt.Printf("%d clients × %d of %d backends: %d to %d connections per backend\n",
			c.clients, c.size, c.backends, s.Min, s.Max)
	}
	// Output:
	// 10 clients × 3 of 12 backends: 2 to 3 connections per backend
	// 300 clients × 10 of 300 backends: 10 to 10 connections per backend
	// 300 clients × 3 of 10 backends: 90 to 90 connections per backend
}

// ExampleRandom_SubsetFrom is a real client choosing 5 of 20 backends with
// its own random source, skipping the backends it cannot reach.
func ExampleRandom_SubsetFrom() {
	down := map[int]bool{3: true, 7: true, 11: true}
	r := &subset.Random{Healthy: func(b int) bool { return !down[b] }}
	s := r.SubsetFrom(nil, rand.NewPCG(2016, 20), 20, 5)
	ok := true
	for _, b := range s {
		ok = ok && !down[b]
	}
	fmt.Println(len(s), "backends, all healthy:", ok)
	// Output: 5 backends, all healthy: true
}

// ExampleAperture shows three clients' apertures over four backends with
// subsets of two: each aperture is two client arcs (2/3 of the ring) wide,
// so the backends at its edges get fractional weights, and every backend
// ends up with 3/4 of a client's requests.
func ExampleAperture() {
	var a subset.Aperture
	load := make([]float64, 4)
	for c := range 3 {
		s := a.Subset(nil, c, 3, 4, 2)
		w := a.Weights(nil, c, 3, 4, 2)
		fmt.Printf("client %d: backends %v weights %.3f\n", c, s, w)
		for i, b := range s {
			load[b] += w[i]
		}
	}
	fmt.Printf("load per backend: %.3f\n", load)
	// Output:
	// client 0: backends [0 1 2] weights [0.375 0.375 0.250]
	// client 1: backends [1 2 3] weights [0.250 0.375 0.375]
	// client 2: backends [2 3 0 1] weights [0.125 0.375 0.375 0.125]
	// load per backend: [0.750 0.750 0.750 0.750]
}

// ExampleMeasureChurn compares how many connections move when a backend
// joins 1000 clients that each keep 10 of 100 backends.
func ExampleMeasureChurn() {
	for _, a := range []struct {
		name string
		alg  subset.Algorithm
	}{
		{"deterministic", &subset.Deterministic{Seed: 1}},
		{"rendezvous", subset.Rendezvous{Seed: 1}},
	} {
		c := subset.MeasureChurn(a.alg, 1000, 100, 10, subset.AddBackend)
		fmt.Printf("%s: more than half of the 10000 connections move: %v\n", a.name, c.Total() > 5000)
	}
	// Output:
	// deterministic: more than half of the 10000 connections move: true
	// rendezvous: more than half of the 10000 connections move: false
}

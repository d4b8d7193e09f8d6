package balance

import "math/rand/v2"

// TwoChoices is the power of two choices: each request draws two distinct
// available backends at random and goes to the one with fewer active
// requests, the first drawn on ties. It calls [View.Len],
// [View.Available], [View.Active] and, with CountErrors,
// [View.RecentErrors].
//
// It is not in the chapter. Michael Mitzenmacher, "The Power of Two Choices
// in Randomized Load Balancing" (IEEE TPDS, 2001), shows that choosing the
// less loaded of two random bins brings the maximum load down
// exponentially compared with one random choice; Finagle's p2c balancers
// and Envoy's least_request policy use it. Compared
// with [LeastLoaded] it needs only two reads of load per pick, and it never
// sends to the most loaded backend unless that one ties with the other
// draw. It is as exposed to sinkholing as least-loaded picking: a
// fail-fast backend wins every comparison it takes part in, so it gets about
// 2/n of the requests instead of 1/n; CountErrors is the same remedy.
//
// It draws two values from Src per pick, and two more only when a first
// draw lands on an unavailable backend; the pair is uniform over pairs of
// available backends. With one available backend it picks that one. A nil
// Src draws from the top-level functions of math/rand/v2.
type TwoChoices struct {
	Src rand.Source
	// CountErrors adds each backend's recent errors to its active requests.
	CountErrors bool
}

// Pick returns the less loaded of two random available backends, or −1.
func (p *TwoChoices) Pick(v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	src := source(p.Src)
	if n >= 2 {
		a, b := pair(src, n)
		if v.Available(a) && v.Available(b) {
			return p.better(v, a, b)
		}
	}
	c := available(v)
	switch c {
	case 0:
		return -1
	case 1:
		return nth(v, 0)
	}
	a, b := pair(src, c)
	return p.better(v, nth(v, a), nth(v, b))
}

// pair returns two distinct uniform values in [0, n), n ≥ 2.
func pair(src rand.Source, n int) (a, b int) {
	a = uintn(src, n)
	b = uintn(src, n-1)
	if b >= a {
		b++
	}
	return a, b
}

// better returns a unless b has a lower load.
func (p *TwoChoices) better(v View, a, b int) int {
	if load(v, b, p.CountErrors) < load(v, a, p.CountErrors) {
		return b
	}
	return a
}

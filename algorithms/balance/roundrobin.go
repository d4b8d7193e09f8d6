package balance

// RoundRobin is the chapter's simple round robin: each request goes to the
// next available backend of the subset, in subset order, skipping those
// that refuse connections or are in lame duck state. It calls only
// [View.Len] and [View.Available].
//
// It ignores load, which is why the chapter measured up to twice the CPU on
// the busiest backend as on the idlest: clients send at different rates,
// queries cost different amounts, and machines differ. It ignores errors
// too: a backend that fails fast keeps its share of the requests.
//
// The zero value starts at position 0.
type RoundRobin struct {
	next int
}

// Pick returns the first available backend at or after the one following
// the previous pick, wrapping around, or −1.
func (r *RoundRobin) Pick(v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	start := r.next % n
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		if v.Available(i) {
			r.next = i + 1
			return i
		}
	}
	return -1
}

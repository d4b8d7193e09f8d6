package balance

import "math/rand/v2"

// Random sends each request to a uniformly random available backend. It
// calls [View.Len] and [View.Available]. Like [RoundRobin] it ignores load;
// unlike it, it also lets short-term counts wander. It reads no error
// signal either, so it cannot avoid a backend that fails fast: such a
// backend gets its share, as under round robin, give or take chance.
//
// It draws one value from Src per pick, and a second only when the first
// lands on an unavailable backend; the result is uniform over the available
// backends. A nil Src draws from the top-level functions of math/rand/v2,
// which are not reproducible; set it to a seeded source, such as
// rand.NewPCG(seed, client), for a reproducible run.
type Random struct {
	Src rand.Source
}

// Pick returns a uniformly random available backend, or −1.
func (r *Random) Pick(v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	src := source(r.Src)
	if i := uintn(src, n); v.Available(i) {
		return i
	}
	c := available(v)
	if c == 0 {
		return -1
	}
	return nth(v, uintn(src, c))
}

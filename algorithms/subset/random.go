package subset

import "math/rand/v2"

// Random is the chapter's random subsetting: each client shuffles the list
// of backends and fills its subset from the front of the shuffled list,
// skipping backends that are not healthy.
//
// Client c draws from rand.NewPCG(Seed, c), so a client's subset depends
// only on Seed, its own index and the backends, never on the other
// clients. [Random.SubsetFrom] takes any source instead, for a real client
// that brings its own.
//
// The shuffle stops as soon as the subset is full: drawing position i of a
// Fisher–Yates shuffle from the positions not yet drawn, for i = 0, 1, …,
// gives each backend order the same probability as shuffling the whole list
// and reading it from the front, at a cost proportional to the positions
// read rather than to the number of backends. A Random keeps the identity
// permutation between calls and undoes its swaps before returning, so after
// the first call with a given number of backends a call costs O(positions
// read) and allocates nothing. It is therefore not safe for concurrent use.
//
// The connection counts it produces are uneven: each backend is in a given
// client's subset with probability size/backends, independently across
// clients, so a backend's count is binomial with mean clients·size/backends
// and relative spread √((1−p)/(clients·p)) for p = size/backends. The chapter
// shows 300 clients and 300 backends at 30% and 10% subsets, and concludes a
// 75% subset is needed for a roughly even spread.
type Random struct {
	// Seed seeds every client's source together with the client index.
	Seed uint64
	// Healthy reports whether a backend may join a subset; nil means all
	// backends are healthy. When fewer than size backends are healthy,
	// the subset holds all healthy backends.
	Healthy func(backend int) bool

	perm  []int // the identity permutation between calls
	swaps []int // swaps[i] is the position swapped into position i
	pcg   rand.PCG
}

// Subset returns the subset of client, drawn from rand.NewPCG(r.Seed,
// uint64(client)). clients is ignored.
func (r *Random) Subset(dst []int, client, clients, backends, size int) []int {
	checkClient(client)
	r.pcg.Seed(r.Seed, uint64(client))
	return r.SubsetFrom(dst, &r.pcg, backends, size)
}

// SubsetFrom returns dst[:0] with up to size healthy backends out of
// backends appended, in the order a shuffle drawing from src puts them. It
// draws one value from src (more, rarely, to stay unbiased) per position
// read.
func (r *Random) SubsetFrom(dst []int, src rand.Source, backends, size int) []int {
	dst = dst[:0]
	if backends <= 0 || size <= 0 {
		return dst
	}
	if len(r.perm) != backends {
		r.perm = make([]int, backends)
		for i := range r.perm {
			r.perm[i] = i
		}
	}
	p := r.perm
	sw := r.swaps[:0]
	for i := 0; i < backends && len(dst) < size; i++ {
		j := i + int(uintn(src, uint64(backends-i)))
		p[i], p[j] = p[j], p[i]
		sw = append(sw, j)
		if r.Healthy == nil || r.Healthy(p[i]) {
			dst = append(dst, p[i])
		}
	}
	for i := len(sw) - 1; i >= 0; i-- {
		j := sw[i]
		p[i], p[j] = p[j], p[i]
	}
	r.swaps = sw
	return dst
}

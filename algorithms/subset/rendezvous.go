package subset

// Rendezvous is rendezvous-hash (highest random weight) subsetting, as in
// gRPC's random_subsetting policy (gRFC A68, "Random subsetting with
// rendezvous hashing LB policy"): each client scores every backend with a
// hash of the backend and a client-specific salt and keeps the size
// backends with the highest scores.
//
// The scores of the other backends do not change when one backend joins or
// leaves, so each client's subset changes by at most one backend: a client
// whose subset held a departing backend replaces it with its next-ranked
// one, and a newcomer enters a subset only by displacing the lowest-ranked
// member. Adding one backend to B therefore moves about clients·size/(B+1)
// connections (each is one removal and one addition). Like [Random], it
// makes no promise about balance: a backend's connection count is
// binomial, even over the chapter's 300 clients × 10 of 300 backends.
//
// gRFC A68 salts with 32 random bytes per client and hashes address strings
// with MurmurHash3. Here the salt is derived from Seed and the client index,
// and a backend is scored by SplitMix64 mixing of the salt and its key, so
// the subsets are reproducible from Seed. Subset returns the backends
// highest score first. It keeps no state, allocates nothing when dst has
// room for size backends, and costs O(backends·log size).
type Rendezvous struct {
	// Seed, with the client index, determines each client's salt.
	Seed uint64
	// Keys, when not nil, holds the hash key of each backend, so that a
	// backend keeps its scores when the list is reordered (a real client
	// would use a hash of the backend's address). When nil, a backend's
	// key is its index. Keys must have at least backends elements.
	Keys []uint64
}

// Subset returns the size backends with the highest scores for client,
// highest first; ties, which need a 64-bit hash collision, go to the lower
// index. clients is ignored.
func (r Rendezvous) Subset(dst []int, client, clients, backends, size int) []int {
	checkClient(client)
	dst = dst[:0]
	k := min(size, backends)
	if k <= 0 {
		return dst
	}
	salt := mix(r.Seed ^ mix(uint64(client)+0x9e3779b97f4a7c15))
	score := func(b int) uint64 {
		key := uint64(b)
		if r.Keys != nil {
			key = r.Keys[b]
		}
		return mix(salt ^ mix(key))
	}
	// less reports whether backend a ranks below backend b.
	less := func(a, sa, b, sb uint64) bool {
		return sa < sb || (sa == sb && a > b)
	}
	// down restores the min-heap order of dst[:n] (lowest rank at the root)
	// below position i.
	down := func(i, n int) {
		x := dst[i]
		sx := score(x)
		for {
			c := 2*i + 1
			if c >= n {
				break
			}
			sc := score(dst[c])
			if c+1 < n {
				if s := score(dst[c+1]); less(uint64(dst[c+1]), s, uint64(dst[c]), sc) {
					c, sc = c+1, s
				}
			}
			if !less(uint64(dst[c]), sc, uint64(x), sx) {
				break
			}
			dst[i] = dst[c]
			i = c
		}
		dst[i] = x
	}
	for b := range k {
		dst = append(dst, b)
	}
	for i := k/2 - 1; i >= 0; i-- {
		down(i, k)
	}
	root := score(dst[0])
	for b := k; b < backends; b++ {
		if s := score(b); less(uint64(dst[0]), root, uint64(b), s) {
			dst[0] = b
			down(0, k)
			root = score(dst[0])
		}
	}
	// Heap sort: moving the lowest-ranked to the end leaves dst highest first.
	for n := k - 1; n > 0; n-- {
		dst[0], dst[n] = dst[n], dst[0]
		down(0, n)
	}
	return dst
}

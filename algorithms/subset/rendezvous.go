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
	// Healthy reports whether a backend may join a subset; nil means all
	// backends are healthy. An unhealthy backend is passed over, so a
	// client whose subset held it takes its next-ranked backend instead and
	// no other subset changes. When fewer than size backends are healthy,
	// the subset holds all healthy backends.
	Healthy func(backend int) bool
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
	h := ranking{salt: mix(r.Seed ^ mix(uint64(client)+0x9e3779b97f4a7c15)), keys: r.Keys}
	// The heap keeps the scores of its members beside them, on the stack
	// for subsets of up to len(local); larger heaps recompute them.
	var local [128]uint64
	if k <= len(local) {
		h.scores = local[:k]
	}
	// dst is a min-heap of the best k seen so far, lowest-ranked at the root.
	b := 0
	for ; b < backends && len(dst) < k; b++ {
		if r.Healthy != nil && !r.Healthy(b) {
			continue
		}
		if h.scores != nil {
			h.scores[len(dst)] = h.score(b)
		}
		dst = append(dst, b)
	}
	k = len(dst)
	if k == 0 {
		return dst
	}
	for i := k/2 - 1; i >= 0; i-- {
		h.down(dst, i, k)
	}
	root, rootScore := dst[0], h.at(dst, 0)
	for ; b < backends; b++ {
		if r.Healthy != nil && !r.Healthy(b) {
			continue
		}
		if s := h.score(b); below(root, rootScore, b, s) {
			h.set(dst, 0, b, s)
			h.down(dst, 0, k)
			root, rootScore = dst[0], h.at(dst, 0)
		}
	}
	// Heap sort: moving the lowest-ranked to the end leaves dst highest first.
	for n := k - 1; n > 0; n-- {
		x, sx := dst[0], h.at(dst, 0)
		h.set(dst, 0, dst[n], h.at(dst, n))
		h.set(dst, n, x, sx)
		h.down(dst, 0, n)
	}
	return dst
}

// ranking scores backends for one client and keeps its heap's scores.
type ranking struct {
	salt   uint64
	keys   []uint64
	scores []uint64 // scores[i] is the score of heap[i]; nil: recompute
}

// score returns backend b's score: with index keys, element b of the
// SplitMix64 sequence seeded with the client's salt.
func (h *ranking) score(b int) uint64 {
	key := uint64(b)
	if h.keys != nil {
		key = h.keys[b]
	}
	return mix(h.salt + key*0x9e3779b97f4a7c15)
}

// at returns the score of heap[i].
func (h *ranking) at(heap []int, i int) uint64 {
	if h.scores != nil {
		return h.scores[i]
	}
	return h.score(heap[i])
}

// set puts backend b with score s at heap[i].
func (h *ranking) set(heap []int, i, b int, s uint64) {
	heap[i] = b
	if h.scores != nil {
		h.scores[i] = s
	}
}

// below reports whether backend a with score sa ranks below backend b with
// score sb.
func below(a int, sa uint64, b int, sb uint64) bool {
	return sa < sb || (sa == sb && a > b)
}

// down restores the heap order of heap[:n] (lowest rank at the root) below
// position i.
func (h *ranking) down(heap []int, i, n int) {
	x, sx := heap[i], h.at(heap, i)
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		sc := h.at(heap, c)
		if c+1 < n {
			if s := h.at(heap, c+1); below(heap[c+1], s, heap[c], sc) {
				c, sc = c+1, s
			}
		}
		if !below(heap[c], sc, x, sx) {
			break
		}
		h.set(heap, i, heap[c], sc)
		i = c
	}
	h.set(heap, i, x, sx)
}

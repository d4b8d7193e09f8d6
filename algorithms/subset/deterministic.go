package subset

import "math/rand/v2"

// Deterministic is the chapter's deterministic subsetting, extended so that
// its promise of even connection counts holds for every number of clients,
// backends and subset size.
//
// The chapter groups clients into rounds of backends/size clients; round r
// shuffles the backend list with a shuffle seeded by r, and the client at
// position p of its round takes the shuffled backends [p·size, (p+1)·size).
// When size divides backends, Deterministic computes exactly that.
//
// When it does not, the chapter's code leaves backends mod size backends of
// every round unused, and which ones depends on the shuffle, so over many
// rounds some backends fall behind by more than one connection. Here the
// rounds' shuffled lists are read as one continuous stream instead: list 0,
// then list 1, and so on, and client c takes positions [c·size,
// (c+1)·size) of the stream, so the backends left over at the end of one
// list go to the next client, which completes its subset from the front of
// the next list. Since the first clients·size positions of the stream are
// whole lists plus the front of one more, each backend appears in them
// ⌊clients·size/backends⌋ or ⌈clients·size/backends⌉ times: per-backend
// connection counts differ by at most one, for every number of clients.
//
// A subset that spans two lists could hold a backend twice: once among the
// leftovers of list r and again at the front of list r+1. To prevent that,
// list r+1 is the shuffle seeded by r+1 with one change: its first h
// elements are the first h backends of the shuffle that are not among the
// leftovers (h is the number the spanning client still needs), and the
// leftover backends the client skipped come right after them, in shuffle
// order; the rest of the shuffle is untouched. The list is still a
// permutation, so the counting argument above still holds, and there are
// always enough backends to skip to because h + leftovers = size ≤ backends.
//
// Because of the carry, list r depends on list r−1 back to the last list
// that starts exactly where a subset starts, which happens every
// size/gcd(backends, size) lists (every list when size divides backends). A
// Deterministic therefore keeps the last list it built: asking for clients
// in increasing order builds each list once, so subsetting N clients costs
// O(N·size + lists·backends), with lists = ⌈N·size/backends⌉, and allocates
// only on the first call. Asking for an earlier client rebuilds from the
// start of its chain. A Deterministic is not safe for concurrent use.
//
// Subset ignores clients: client c's subset does not depend on how many
// clients there are, so adding a client at the end adds its connections and
// changes no other. Changing the number of backends, by contrast, reshuffles
// every list, so most connections move (see [MeasureChurn]).
type Deterministic struct {
	// Seed is combined with the list number r to seed each list's shuffle,
	// rand.NewPCG(Seed, uint64(r)), followed by a Fisher–Yates shuffle of
	// 0, 1, …, backends−1. Every client must use the same Seed.
	Seed uint64
	// Shuffle, when not nil, replaces that shuffle: it must permute list,
	// which holds 0, 1, …, len(list)−1, as a function of round and
	// len(list) only. Tests use it to replay the shuffled lists the chapter
	// prints. Set it before the first call and do not change it.
	Shuffle func(round int, list []int)

	perm     []int // list number round, carry applied
	round    int
	backends int // parameters perm was built for
	size     int
	seed     uint64
	built    bool
	mark     []uint32 // mark[b] == stamp: b is a leftover of the previous list
	stamp    uint32
	skipped  []int
	pcg      rand.PCG
}

// Subset returns the backends of client. clients is ignored.
func (d *Deterministic) Subset(dst []int, client, clients, backends, size int) []int {
	checkClient(client)
	dst = dst[:0]
	k := min(size, backends)
	if k <= 0 {
		return dst
	}
	pos := client * k
	r, o := pos/backends, pos%backends
	d.seek(r, backends, k)
	if o+k <= backends {
		return append(dst, d.perm[o:o+k]...)
	}
	dst = append(dst, d.perm[o:]...)
	d.next()
	return append(dst, d.perm[:k-(backends-o)]...)
}

// seek makes d.perm list r for backends and subset size k.
func (d *Deterministic) seek(r, backends, k int) {
	period := k / gcd(backends, k)
	start := r - r%period // the last list no subset spans into
	if !d.built || d.backends != backends || d.size != k || d.seed != d.Seed ||
		d.round > r || d.round < start {
		if len(d.perm) != backends {
			d.perm = make([]int, backends)
			d.mark = make([]uint32, backends)
			d.stamp = 0
		}
		d.backends, d.size, d.seed, d.built = backends, k, d.Seed, true
		d.round = start
		d.fill(start)
	}
	for d.round < r {
		d.next()
	}
}

// next advances d.perm from list d.round to list d.round+1.
func (d *Deterministic) next() {
	b, k := d.backends, d.size
	r := d.round + 1
	t := (r * b) % k // leftovers of list r−1 in the subset spanning into list r
	if t == 0 {
		d.fill(r)
		d.round = r
		return
	}
	d.stamp++
	if d.stamp == 0 { // wrapped: forget every old mark
		clear(d.mark)
		d.stamp = 1
	}
	for _, x := range d.perm[b-t:] {
		d.mark[x] = d.stamp
	}
	d.fill(r)
	h := k - t
	sk := d.skipped[:0]
	w, i := 0, 0
	for w < h { // ends: at most t of the backends are marked, and h ≤ b−t
		x := d.perm[i]
		i++
		if d.mark[x] == d.stamp {
			sk = append(sk, x)
		} else {
			d.perm[w] = x
			w++
		}
	}
	copy(d.perm[w:i], sk)
	d.skipped = sk
	d.round = r
}

// fill sets d.perm to the shuffle of list r.
func (d *Deterministic) fill(r int) {
	for i := range d.perm {
		d.perm[i] = i
	}
	if d.Shuffle != nil {
		d.Shuffle(r, d.perm)
		return
	}
	d.pcg.Seed(d.Seed, uint64(r))
	shuffle(d.perm, &d.pcg)
}

// gcd returns the greatest common divisor of positive a and b.
func gcd(a, b int) int {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

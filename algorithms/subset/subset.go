package subset

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Algorithm chooses the backends one client connects to.
//
// Subset returns dst[:0] with the indices of the backends that client
// connects to appended, each index in [0, backends) and none twice. client
// is the client's index among clients (0 ≤ client < clients); backends is
// the number of backends, identified by their position in a list every
// client agrees on; size is the wanted subset size, clamped to [0,
// backends]. Subset allocates only when dst is too short, so a caller that
// keeps passing back the slice it got reaches a steady state with no
// allocation.
//
// Subset panics if client is negative. Implementations that keep scratch
// space between calls say so and are not safe for concurrent use.
type Algorithm interface {
	Subset(dst []int, client, clients, backends, size int) []int
}

// Connections returns dst[:backends] (grown if needed) with element b set
// to the number of clients, out of clients, whose subset contains backend
// b: the connections backend b holds. It calls a.Subset once per client, in
// client order, and allocates one subset buffer plus dst when dst is short.
func Connections(dst []int, a Algorithm, clients, backends, size int) []int {
	backends = max(backends, 0)
	if cap(dst) < backends {
		dst = make([]int, backends)
	}
	dst = dst[:backends]
	clear(dst)
	buf := make([]int, 0, max(min(size, backends), 0))
	for c := range max(clients, 0) {
		buf = a.Subset(buf, c, clients, backends, size)
		for _, b := range buf {
			dst[b]++
		}
	}
	return dst
}

// Stats summarises per-backend connection counts.
type Stats struct {
	// Min and Max are the smallest and largest count.
	Min, Max int
	// Mean is the average count and StdDev the population standard
	// deviation; StdDev/Mean is the relative spread the chapter's
	// histograms show.
	Mean, StdDev float64
}

// Summarize returns the statistics of counts, or the zero Stats when counts
// is empty.
func Summarize(counts []int) Stats {
	if len(counts) == 0 {
		return Stats{}
	}
	s := Stats{Min: counts[0], Max: counts[0]}
	var sum float64
	for _, c := range counts {
		s.Min = min(s.Min, c)
		s.Max = max(s.Max, c)
		sum += float64(c)
	}
	s.Mean = sum / float64(len(counts))
	var ss float64
	for _, c := range counts {
		d := float64(c) - s.Mean
		ss += d * d
	}
	s.StdDev = math.Sqrt(ss / float64(len(counts)))
	return s
}

// checkClient panics if client is negative.
func checkClient(client int) {
	if client < 0 {
		panic("subset: negative client index")
	}
}

// uintn returns a uniform value in [0, n) from src, n > 0, by Lemire's
// multiply-and-reject method ("Fast Random Integer Generation in an
// Interval", 2019). It is written here rather than taken from rand.Rand so
// that the values drawn, and so every subset, stay the same across Go
// releases.
func uintn(src rand.Source, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// shuffle permutes p by a Fisher–Yates shuffle drawing from src.
func shuffle(p []int, src rand.Source) {
	for i := len(p) - 1; i > 0; i-- {
		j := int(uintn(src, uint64(i+1)))
		p[i], p[j] = p[j], p[i]
	}
}

// mix is the SplitMix64 finaliser (Steele, Lea and Flood, "Fast Splittable
// Pseudorandom Number Generators", 2014): a bijection on uint64 whose
// output bits each depend on every input bit.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

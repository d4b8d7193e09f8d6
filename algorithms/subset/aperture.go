package subset

// Aperture is deterministic aperture subsetting in the manner of Finagle's
// DeterministicAperture (Twitter's Finagle, com.twitter.finagle.loadbalancer.
// aperture): clients and backends are laid out on the same unit ring, each
// client owning an arc of width 1/clients starting at client/clients and
// each backend an arc of width 1/backends starting at backend/backends. A
// client's aperture is an arc that starts where its own arc starts; it
// connects to every backend whose arc overlaps the aperture, and should send
// each one the fraction of its requests that the overlap is of the aperture
// ([Aperture.Weights]), so the backends at the two edges, which the aperture
// covers only partly, get fractional weights.
//
// The aperture's width is the smallest whole number m of client arcs that
// covers size backend arcs, m = ⌈size·clients/backends⌉ capped at clients,
// as in Finagle's dApertureWidth. Because the apertures start one client arc
// apart and are m client arcs wide, every point of the ring lies under
// exactly m apertures, which gives two properties:
//
//   - Load is exactly even: with weights, every backend receives
//     clients/backends clients' worth of requests, and no backend is idle,
//     even when clients·size < backends.
//   - Connection counts differ by at most one between backends: a backend's
//     count is the number of aperture starts within a fixed-length arc
//     before it, and evenly spaced points fall into equal-length arcs in
//     numbers that differ by at most one.
//
// The price is the subset size: a client connects to at least size backends
// and up to about size + backends/clients + 1, because the aperture is
// rounded up to whole client arcs and usually cuts two backend arcs. With
// fewer clients than backends/size the aperture widens until the ring is
// covered, which is the chapter's advice for that case (make subsets large
// enough that no backend is left without traffic).
//
// Simplifications against Finagle: positions are exact integers on a ring
// of clients·backends units rather than float64 fractions; backends sit on
// the ring in list order (Finagle orders its backend list deterministically
// and can rotate the client ring by a shared peer offset; callers can
// shuffle their list with a shared seed to get the same effect); there is no
// minimum aperture (Finagle keeps at least 12 backends so that its
// power-of-two-choices picker has room); and the aperture never grows or
// shrinks with load. Because positions depend on clients and backends, a
// change to either shifts every aperture a little, so churn is moderate: more
// than [Rendezvous], far less than [Deterministic] (see [MeasureChurn]).
//
// Aperture keeps no state, is safe for concurrent use, and allocates nothing
// when dst has room.
type Aperture struct{}

// window returns client's aperture on the ring of clients·backends units:
// backend j's arc is [j·clients, (j+1)·clients) and client c's aperture
// [start, start+width), possibly past the end of the ring (wrapping around).
func window(client, clients, backends, size int) (start, width int) {
	k := min(size, backends)
	m := min((k*clients+backends-1)/backends, clients)
	return client * backends, m * backends
}

// check panics unless 0 ≤ client < clients.
func (Aperture) check(client, clients int) {
	checkClient(client)
	if client >= clients {
		panic("subset: Aperture client index not below clients")
	}
}

// Subset returns the backends under client's aperture in ring order, from
// the backend where the aperture starts. It panics unless 0 ≤ client <
// clients.
func (a Aperture) Subset(dst []int, client, clients, backends, size int) []int {
	a.check(client, clients)
	dst = dst[:0]
	if backends <= 0 || size <= 0 {
		return dst
	}
	start, width := window(client, clients, backends, size)
	first := start / clients
	n := min((start+width-1)/clients-first+1, backends) // arcs touched, each once
	for j := first; j < first+n; j++ {
		if j < backends {
			dst = append(dst, j)
		} else {
			dst = append(dst, j-backends)
		}
	}
	return dst
}

// Weights returns dst[:0] with the share of client's requests each backend
// of [Aperture.Subset] should get appended, in the same order: the length of
// the overlap between the backend's arc and the aperture divided by the
// aperture's width. The weights add up to 1. It panics unless 0 ≤ client <
// clients.
func (a Aperture) Weights(dst []float64, client, clients, backends, size int) []float64 {
	a.check(client, clients)
	dst = dst[:0]
	if backends <= 0 || size <= 0 {
		return dst
	}
	start, width := window(client, clients, backends, size)
	end := start + width
	first, last := start/clients, (end-1)/clients
	for j := first; j <= last; j++ {
		overlap := float64(min((j+1)*clients, end) - max(j*clients, start))
		if j-first == backends { // the aperture wrapped into its first arc again
			dst[0] += overlap / float64(width)
			continue
		}
		dst = append(dst, overlap/float64(width))
	}
	return dst
}

package ratelimit

// heapOrdered is a pointer to a heap element that knows its order: scheduled events by time,
// decisions by the time they count at.
type heapOrdered[T any] interface {
	*T
	before(*T) bool
}

// heapPush appends x to the binary min-heap h and restores its order.
func heapPush[T any, P heapOrdered[T]](h []T, x T) []T {
	h = append(h, x)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !P(&h[i]).before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return h
}

// heapPop removes the least element of the non-empty binary min-heap h and returns it and
// the heap.
func heapPop[T any, P heapOrdered[T]](h []T) (T, []T) {
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		if r := l + 1; r < n && P(&h[r]).before(&h[l]) {
			l = r
		}
		if !P(&h[l]).before(&h[i]) {
			break
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
	return top, h
}

package lab

// CoarseToFine returns the indices 0..m-1 in the order a sweep is refined in: both ends, then
// the middle, then the middles of the halves, and so on, so that the curve's whole shape
// appears first and fills in.
func CoarseToFine(m int) []int {
	if m <= 0 {
		return nil
	}
	order := []int{0}
	if m > 1 {
		order = append(order, m-1)
	}
	for q := [][2]int{{0, m - 1}}; len(q) > 0; q = q[1:] {
		lo, hi := q[0][0], q[0][1]
		if hi-lo < 2 {
			continue
		}
		mid := (lo + hi) / 2
		order = append(order, mid)
		q = append(q, [2]int{lo, mid}, [2]int{mid, hi})
	}
	return order
}

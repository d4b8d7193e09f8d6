package balance

// LeastLoaded is the chapter's least-loaded round robin: each request goes
// to one of the available backends with the fewest active requests from
// this client, taking those in round-robin order. It calls [View.Len],
// [View.Available], [View.Active] and, with CountErrors, [View.RecentErrors].
//
// The chapter names its limits: a client sees only its own requests, not
// those other clients send to the same backend, and active requests say
// little about capacity (a backend twice as fast with the same latency
// looks just as loaded).
//
// It also warns of sinkholing: a backend that fails fast, answering every
// request at once with an error, never has active requests, so it always
// looks least loaded and draws nearly all the traffic. Its remedy is to
// count recent errors as active requests, which CountErrors does.
//
// The zero value starts at position 0 and does not count errors.
type LeastLoaded struct {
	// CountErrors adds each backend's recent errors to its active requests.
	CountErrors bool

	next int
}

// Pick returns the available backend with the lowest load, the first such
// at or after the one following the previous pick, wrapping around, or −1.
// A *Table is read directly rather than through its methods.
func (l *LeastLoaded) Pick(v View) int {
	n := v.Len()
	if n == 0 {
		return -1
	}
	start := l.next % n
	var best int
	if t, ok := v.(*Table); ok {
		best = l.pickTable(t, start)
	} else {
		best = l.pickView(v, start)
	}
	if best >= 0 {
		l.next = best + 1
	}
	return best
}

func (l *LeastLoaded) pickView(v View, start int) int {
	n := v.Len()
	best, bestLoad := -1, 0
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		if !v.Available(i) {
			continue
		}
		if ld := load(v, i, l.CountErrors); best < 0 || ld < bestLoad {
			best, bestLoad = i, ld
		}
	}
	return best
}

// pickTable is pickView for a *Table, without the interface calls.
func (l *LeastLoaded) pickTable(t *Table, start int) int {
	n := len(t.InFlight)
	errs := t.Errors
	if !l.CountErrors {
		errs = nil
	}
	best, bestLoad := -1, 0
	for k := range n {
		i := start + k
		if i >= n {
			i -= n
		}
		if t.Down != nil && t.Down[i] {
			continue
		}
		ld := t.InFlight[i]
		if errs != nil {
			ld += errs[i]
		}
		if best < 0 || ld < bestLoad {
			best, bestLoad = i, ld
		}
	}
	return best
}

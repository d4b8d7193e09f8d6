package balance

import "math"

// Weighted is the chapter's weighted round robin: each backend's share of
// the requests is proportional to a weight computed from what the backend
// reports about itself, so that backends that serve more queries for the
// same utilisation (faster machines, cheaper queries) get more, and
// backends that fail get less. It calls [View.Len], [View.Available] and
// [View.Report].
//
// The weight is [Weight]: QPS / (Utilization + EPS/QPS · ErrorPenalty), the
// formula of gRPC's weighted_round_robin policy (gRFC A58) for the
// chapter's "capability score": queries served per unit of utilisation,
// with the error rate counted as extra utilisation so that a backend that
// answers fast with errors does not look capable. A backend without a
// usable report (zero QPS or utilisation) gets the mean weight of those
// that have one, as in gRPC; when none has, all weigh the same and Weighted
// is plain round robin.
//
// Requests follow nginx's smooth weighted round robin: every pick adds each
// available backend's weight to its running credit, picks the backend with
// the most credit (the first, on ties) and takes the sum of the weights
// from it. With weights 5, 1, 1 the picks go a a b a c a a, and over any
// stretch each backend's count stays within one or so of its share. Every
// pick reads the reports from the View (recomputing a backend's weight when
// its report has changed), so the client adapts as soon as new reports
// arrive, as the chapter's clients adjust their scores periodically.
//
// The zero value applies no error penalty; gRPC's default is 1.
type Weighted struct {
	// ErrorPenalty scales the error rate's contribution to utilisation.
	ErrorPenalty float64

	credit  []float64 // running credit per backend
	report  []Report  // the report weight[i] was computed from
	weight  []float64 // Weight(report[i], penalty)
	use     []float64 // this pick's weights
	penalty float64   // ErrorPenalty the caches were computed with
}

// Weight returns the weight of a backend that reported r: r.QPS /
// (r.Utilization + r.EPS/r.QPS·errorPenalty). It returns 0, meaning no
// usable report, when r.QPS or r.Utilization is not positive or the result
// is not finite; a negative EPS or errorPenalty counts as 0.
func Weight(r Report, errorPenalty float64) float64 {
	if !(r.QPS > 0) || !(r.Utilization > 0) {
		return 0
	}
	w := r.QPS / (r.Utilization + max(r.EPS, 0)/r.QPS*max(errorPenalty, 0))
	if !(w < math.Inf(1)) {
		return 0
	}
	return w
}

// Pick returns the available backend with the most credit after adding
// the weights, or −1. The credits reset when the subset size changes.
// Weights are cached and recomputed only for backends whose report
// changed. A *Table is read directly rather than through its methods.
func (w *Weighted) Pick(v View) int {
	n := v.Len()
	if len(w.credit) != n || w.penalty != w.ErrorPenalty {
		w.credit = make([]float64, n)
		w.weight = make([]float64, n)
		w.report = make([]Report, n) // zero reports have weight 0
		w.use = make([]float64, n)
		w.penalty = w.ErrorPenalty
	}
	// use[i] is backend i's weight, 0 without a report, −1 when it is
	// unavailable; mean is the mean of the known weights.
	sum, known := 0.0, 0
	t, _ := v.(*Table)
	for i := range n {
		var r Report
		if t != nil {
			if t.Down != nil && t.Down[i] {
				w.use[i] = -1
				continue
			}
			if t.Reports != nil {
				r = t.Reports[i]
			}
		} else {
			if !v.Available(i) {
				w.use[i] = -1
				continue
			}
			r = v.Report(i)
		}
		if r != w.report[i] {
			w.report[i] = r
			w.weight[i] = Weight(r, w.penalty)
		}
		if wt := w.weight[i]; wt > 0 {
			sum += wt
			known++
		}
		w.use[i] = w.weight[i]
	}
	mean := 1.0
	if known > 0 {
		mean = sum / float64(known)
	}
	best, total := -1, 0.0
	for i, wt := range w.use {
		if wt < 0 {
			continue
		}
		if wt == 0 {
			wt = mean
		}
		w.credit[i] += wt
		total += wt
		if best < 0 || w.credit[i] > w.credit[best] {
			best = i
		}
	}
	if best >= 0 {
		w.credit[best] -= total
	}
	return best
}

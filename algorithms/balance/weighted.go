package balance

import "math"

// Weighted is the chapter's weighted round robin: each backend's share of
// the requests is proportional to a weight computed from what the backend
// reports about itself, so that backends that serve more queries for the
// same utilisation (faster machines, cheaper queries) get more, and
// backends that fail get less ("failed requests are a penalty in future
// decisions", as the chapter puts it). It calls [View.Len],
// [View.Available] and [View.Report].
//
// The weight is [Weight]: QPS / (Utilization + EPS/QPS · ErrorPenalty), the
// formula of gRPC's weighted_round_robin policy (gRFC A58, "Client-side
// weighted round robin LB policy") for the chapter's "capability score":
// queries served per unit of utilisation, with the error rate counted as
// extra utilisation so that a backend that answers fast with errors does not
// look capable.
//
// One departure from gRPC, so that the penalty reaches the backend it is
// for: gRPC ignores a report with zero utilisation, and so a backend that
// fails every request without using any CPU (a fail-fast backend) keeps the
// mean weight there and gets as much traffic as under plain round robin.
// Weighted evaluates the formula at zero utilisation too, whenever the
// backend reports errors: a backend that fails every request weighs
// QPS/ErrorPenalty, less than a healthy backend at the same rate, and its
// share shrinks report by report.
//
// A report with no queries, or with no utilisation and no errors, is not
// usable: the backend keeps the weight of its last usable report, as in
// gRPC (which also forgets a weight not refreshed for three minutes; a
// Weighted has no clock and does not). A backend that has never sent a
// usable report gets the mean weight of those that have, as in gRPC; when
// none has, all weigh the same and Weighted is plain round robin.
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
	report  []Report  // the last report seen of each backend
	weight  []float64 // the weight of its last usable report, or 0
	use     []float64 // this pick's weights
	penalty float64   // ErrorPenalty the caches were computed with
}

// Weight returns the weight of a backend that reported r: r.QPS /
// (r.Utilization + r.EPS/r.QPS·errorPenalty). It returns 0, meaning no
// usable report, when r.QPS is not positive, r.Utilization is negative or
// not a number, or the result is not finite (zero utilisation without
// errors); a negative EPS or errorPenalty counts as 0. Unlike gRPC, a
// report of zero utilisation with errors is usable: see [Weighted].
func Weight(r Report, errorPenalty float64) float64 {
	if !(r.QPS > 0) || !(r.Utilization >= 0) {
		return 0
	}
	w := r.QPS / (r.Utilization + max(r.EPS, 0)/r.QPS*max(errorPenalty, 0))
	if !(w < math.Inf(1)) {
		return 0
	}
	return w
}

// Pick returns the available backend with the most credit after adding
// the weights, or −1. The credits and weights reset when the subset size
// changes. Weights are cached and recomputed only for backends whose report
// changed; an unusable report leaves the last weight in place. A *Table is
// read directly rather than through its methods.
func (w *Weighted) Pick(v View) int {
	n := v.Len()
	if len(w.credit) != n || w.penalty != w.ErrorPenalty {
		w.credit = make([]float64, n)
		w.weight = make([]float64, n)
		w.report = make([]Report, n) // zero reports have weight 0
		w.use = make([]float64, n)
		w.penalty = w.ErrorPenalty
	}
	// use[i] is backend i's weight, 0 before its first usable report, −1
	// when it is unavailable; mean is the mean of the known weights.
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
			if wt := Weight(r, w.penalty); wt > 0 {
				w.weight[i] = wt
			}
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

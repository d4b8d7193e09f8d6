package main

import (
	"math"
	"slices"
	"sync"
	"time"
)

// percentile returns the p-th percentile (0 < p <= 100) of sorted by the nearest-rank method:
// the smallest sample such that at least p% of the samples are no larger. It returns 0 for no
// samples; p <= 0 gives the minimum.
func percentile(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := int(math.Ceil(p / 100 * float64(n)))
	return sorted[min(max(rank, 1), n)-1]
}

// Dist summarizes latency samples, in milliseconds.
type Dist struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50_ms"`
	P90  float64 `json:"p90_ms"`
	P99  float64 `json:"p99_ms"`
	Max  float64 `json:"max_ms"`
	Mean float64 `json:"mean_ms"`
}

// distOf summarizes samples; it sorts them in place.
func distOf(samples []time.Duration) Dist {
	slices.Sort(samples)
	d := Dist{N: len(samples)}
	if d.N == 0 {
		return d
	}
	ms := func(x time.Duration) float64 { return math.Round(float64(x)/1e4) / 100 }
	var sum time.Duration
	for _, s := range samples {
		sum += s
	}
	d.P50, d.P90, d.P99 = ms(percentile(samples, 50)), ms(percentile(samples, 90)), ms(percentile(samples, 99))
	d.Max, d.Mean = ms(samples[d.N-1]), ms(sum/time.Duration(d.N))
	return d
}

// errKind is a class of error the report counts.
type errKind int

const (
	errDial     errKind = iota // dial or upgrade failed
	errReply                   // an "error" reply
	errClose                   // the connection ended without our asking
	errStall                   // no reply to a pending change within the timeout
	errSend                    // a write failed
	errProtocol                // a message that does not follow the protocol
	numErrKinds
)

// recorder collects the measurements of every viewer. It is safe for concurrent use.
type recorder struct {
	mu         sync.Mutex
	firstFrame []time.Duration
	done       []time.Duration
	busyFirst  []time.Duration         // firstFrame of the changes that met a busy reply
	oneDone    []time.Duration         // done of the changes served in a single frame (cached)
	start      time.Time               // when the load started
	byWindow   map[int][]time.Duration // firstFrame by window of the time the change was sent
	window     time.Duration
	dial       []time.Duration
	counts     Counts
	errs       [numErrKinds]int64
	samples    []string // the first few distinct error messages
}

// Counts are the events of a load run.
type Counts struct {
	Connects      int64 `json:"connects"`
	Sent          int64 `json:"changes_sent"`
	Answered      int64 `json:"changes_answered"` // got a first frame
	Done          int64 `json:"changes_done"`
	Superseded    int64 `json:"changes_superseded"` // replaced by a newer change before their first frame
	Unfinished    int64 `json:"changes_unfinished"` // still pending when the load ended
	BusyReplies   int64 `json:"busy_replies"`
	BusyChanges   int64 `json:"changes_with_busy"`
	OneFrameDone  int64 `json:"changes_done_in_one_frame"` // cached or nearly finished: a single frame then done
	StaleReplies  int64 `json:"stale_replies"`             // replies to superseded changes, ignored
	Frames        int64 `json:"frames"`
	Reconnects    int64 `json:"reconnects"`
	ChurnCycles   int64 `json:"churn_cycles,omitempty"`
	ChurnVanished int64 `json:"churn_vanished,omitempty"`
}

const maxErrSamples = 10

func (r *recorder) add(f func(c *Counts)) {
	r.mu.Lock()
	f(&r.counts)
	r.mu.Unlock()
}

// addLatency records d, the time from a change sent at sent to its first frame (first) or to
// its "done"; busy says whether the change met a busy reply, one whether it was served in a
// single frame.
func (r *recorder) addLatency(first, busy, one bool, sent time.Time, d time.Duration) {
	r.mu.Lock()
	if first {
		r.firstFrame = append(r.firstFrame, d)
		if r.window > 0 {
			if r.byWindow == nil {
				r.byWindow = map[int][]time.Duration{}
			}
			w := int(max(0, sent.Sub(r.start)) / r.window)
			r.byWindow[w] = append(r.byWindow[w], d)
		}
		if busy {
			r.busyFirst = append(r.busyFirst, d)
		}
	} else {
		r.done = append(r.done, d)
		if one {
			r.oneDone = append(r.oneDone, d)
		}
	}
	r.mu.Unlock()
}

func (r *recorder) addDial(d time.Duration) {
	r.mu.Lock()
	r.dial = append(r.dial, d)
	r.counts.Connects++
	r.mu.Unlock()
}

// fail counts an error of kind k; msg describes it.
func (r *recorder) fail(k errKind, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs[k]++
	if len(r.samples) < maxErrSamples && !slices.Contains(r.samples, msg) {
		r.samples = append(r.samples, msg)
	}
}

func (r *recorder) errorCount() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var n int64
	for _, e := range r.errs {
		n += e
	}
	return n
}

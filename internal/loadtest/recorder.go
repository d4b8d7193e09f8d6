package loadtest

import (
	"slices"
	"sync"
	"time"
)

// errKind is a class of error the viewers report counts.
type errKind int

const (
	errDial     errKind = iota // dial or upgrade failed
	errReply                   // an "error" reply that names no parameter
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
	samples    []string          // the first few distinct error messages
	refusals   map[string]string // the first refusal naming each parameter
}

// Counts are the events of a viewers or churn load.
type Counts struct {
	Connects      int64 `json:"connects"`
	Sent          int64 `json:"changes_sent"`
	Answered      int64 `json:"changes_answered"` // got a first frame
	Done          int64 `json:"changes_done"`
	Superseded    int64 `json:"changes_superseded"` // replaced by a newer change before their first frame
	Unfinished    int64 `json:"changes_unfinished"` // still pending when the load ended
	Refused       int64 `json:"changes_refused"`    // answered by an error naming a parameter: over budget, say
	BusyReplies   int64 `json:"busy_replies"`
	BusyChanges   int64 `json:"changes_with_busy"`
	OneFrameDone  int64 `json:"changes_done_in_one_frame"` // cached or nearly finished: a single frame then done
	StaleReplies  int64 `json:"stale_replies"`             // replies to superseded changes, ignored
	Frames        int64 `json:"frames"`
	Reconnects    int64 `json:"reconnects"`
	ChurnCycles   int64 `json:"churn_cycles,omitempty"`
	ChurnVanished int64 `json:"churn_vanished,omitempty"`
}

const maxSamples = 10

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
	defer r.mu.Unlock()
	if !first {
		r.done = append(r.done, d)
		if one {
			r.oneDone = append(r.oneDone, d)
		}
		return
	}
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
	if len(r.samples) < maxSamples && !slices.Contains(r.samples, msg) {
		r.samples = append(r.samples, msg)
	}
}

// refuse counts a change the server refused with a reason, as a page shows it next to the
// control it names, param.
func (r *recorder) refuse(param, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.counts.Refused++
	if r.refusals == nil {
		r.refusals = map[string]string{}
	}
	if _, ok := r.refusals[param]; !ok {
		r.refusals[param] = param + ": " + msg
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

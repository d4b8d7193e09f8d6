package loadtest

import (
	"fmt"
	"io"
	"time"
)

// WriteText prints the result: a Markdown table of milliseconds, from the presenter's change
// to each message, that a README can quote as it is, then the counts and the CPU use.
func (r *RoomResult) WriteText(w io.Writer) {
	fmt.Fprintf(w, "room %s: %d followers, %d changes of %s\n", r.Code, r.Followers, r.Changes, r.Scenario)
	fmt.Fprintf(w, "connecting the followers and serving them the first run took %v\n\n", r.Connect.Round(time.Millisecond))
	fmt.Fprintf(w, "time from the presenter's change to the message, ms (last follower: per change; each follower: per follower-change)\n\n")
	fmt.Fprintf(w, "| message | last follower p50 | p99 | max | each follower p50 | p99 | max | first follower p50 |\n")
	fmt.Fprintf(w, "|---|--:|--:|--:|--:|--:|--:|--:|\n")
	for k := range numKinds {
		l, e, f := r.Last[k], r.Each[k], r.First[k]
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", k,
			ms(l.P50, l.N), ms(l.P99, l.N), ms(l.Max, l.N), ms(e.P50, e.N), ms(e.P99, e.N), ms(e.Max, e.N), ms(f.P50, f.N))
	}
	fmt.Fprintf(w, "\nsamples: %d changes for the last and first follower columns, %d follower-changes for each follower\n",
		r.Last[msgDone].N, r.Each[msgDone].N)
	for k := range numKinds {
		if r.Missing[k] > 0 {
			fmt.Fprintf(w, "%d follower-changes ended without a %s message\n", r.Missing[k], k)
		}
	}
	if r.Busy > 0 {
		fmt.Fprintf(w, "%d busy replies (every run slot was taken)\n", r.Busy)
	}
	fmt.Fprintf(w, "the followers received %.1f kB of messages (uncompressed) during the changes, %.1f kB per follower-change\n",
		float64(r.Bytes)/1e3, float64(r.Bytes)/1e3/float64(max(1, r.Followers*r.Changes)))
	r.CPU.writeText(w, "during the changes")
	if a := r.Answers; a != nil {
		fmt.Fprintf(w, "\nanswers to %s: %d followers answered at once (sent over %v); the presenter's tally counted all %d %v after the first was sent, in %d tally messages\n",
			a.Step, r.Followers, a.Sent.Round(time.Millisecond), a.Answered, a.Counted.Round(time.Millisecond), a.Tallies)
		a.CPU.writeText(w, "while the class answered")
	}
}

package loadtest

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// WriteText prints the report for people: what each pattern got, the default viewer with and
// without attack, the slots held and the server's memory.
func (r *AttackReport) WriteText(w io.Writer) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("attack on %s: %d connections per pattern for %gs, after %gs calm\n\n", r.URL, r.Conns, r.DurationS, r.CalmS)
	p("| pattern | sent | outcomes |\n|---|--:|---|\n")
	for _, pr := range r.Patterns {
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(pr.Outcomes)) {
			parts = append(parts, fmt.Sprintf("%s %d", k, pr.Outcomes[k]))
		}
		p("| %s | %d | %s |\n", pr.Name, pr.Sent, strings.Join(parts, ", "))
	}
	for _, pr := range r.Patterns {
		p("\n%s: %s", pr.Name, pr.What)
		for _, s := range pr.Samples {
			p("\n  e.g. %s", s)
		}
	}
	p("\n\nthe default viewer (%s with a fresh seed each visit), ms from sending it to the first frame and to done:\n\n", r.Viewer)
	p("| | visits | first frame p50 | p90 | max | done p50 | p90 | max | busy replies | refused | unfinished | cut |\n")
	p("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, v := range []struct {
		name string
		r    VisitReport
	}{{"without attack", r.Calm}, {"under attack", r.Attacked}, {"fresh viewers, without attack", r.FreshCalm}, {"fresh viewers, under attack", r.FreshAttacked}} {
		f, d := v.r.FirstFrame, v.r.Done
		p("| %s | %d | %s | %s | %s | %s | %s | %s | %d | %d | %d | %d |\n", v.name, v.r.Visits,
			ms(f.P50, f.N), ms(f.P90, f.N), ms(f.Max, f.N), ms(d.P50, d.N), ms(d.P90, d.N), ms(d.Max, d.N), v.r.Busy, v.r.Refused, v.r.Unfinished, v.r.Cut)
	}
	p("(unfinished: no done within the timeout; cut: still running when the phase ended)\n")
	from := "each from an address the server had never seen"
	if !r.FreshAddresses {
		from = "all from the tool's one address: the server is not on IPv4 loopback"
	}
	f := r.FreshAttacked.FirstFrame
	p("\nfresh viewers under attack (%s): first frame after %s ms at the median, %s at p90, %s at most, over %d of %d visits; %d without a frame (unfinished or cut), %d refused a connection\n",
		from, ms(f.P50, f.N), ms(f.P90, f.N), ms(f.Max, f.N), f.N, r.FreshAttacked.Visits, r.FreshAttacked.Visits-f.N, r.FreshAttacked.DialFailed)
	if n := r.Calm.DialFailed + r.Attacked.DialFailed; n > 0 {
		p("(%d visits could not connect: 429 or 503)\n", n)
	}
	p("\nslots held (runs in flight): at most %.0f without attack; under attack at most %.0f, %.1f on average\n", r.SlotsCalm, r.SlotsPeak, r.SlotsMean)
	after := "after the attack's runs ended"
	if r.RunsAfter > 0 {
		after = fmt.Sprintf("after the attack, with %.0f of its runs still in flight", r.RunsAfter)
	}
	p("server memory (RSS, from %s): %s before, peak %s, %s %s", r.RSSFrom, mib(r.RSSBefore), mib(r.RSSPeak), mib(r.RSSAfter), after)
	if r.RSSHighWater > 0 {
		p("; the process's peak since it started %s", mib(r.RSSHighWater))
	}
	p("\nserver refusals during the attack: %s\nserver HTTP answers during the attack: %s\n", kv(r.Rejected), kv(r.Answers))
	r.CPU.writeText(w, "during the attack")
	p("protocol errors: %d\n", r.ProtocolErrors)
	for _, s := range r.ErrorSamples {
		p("  e.g. %s\n", s)
	}
}

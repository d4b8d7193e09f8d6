package e2e

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestSliderLatency drags the clients slider through 30 positions, an input event every
// 100 ms as a hand does, and reports the time from each input to the next chart redraw. It
// asserts what holds at any speed — every input is answered by a redraw of its value or a
// newer one, and the box shows the last value — and nothing about the figures, which depend
// on the machine; they are logged as
//
//	slider latency p50=…ms p95=…ms n=…
func TestSliderLatency(t *testing.T) {
	srv := MustOpenServer(t)
	for _, tc := range []struct{ name, url string }{
		{"small", "/backoff?trials=20&sweep=off"},
		{"default", "/backoff"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := MustOpenTab(t)
			hookTab(t, ctx)
			// Warm: the page loaded, connected and drew its first frame. The default scenario
			// takes seconds to finish (far longer under -race); the drag does not wait for it.
			if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+tc.url)); err != nil {
				t.Fatal(err)
			}
			waitFor(t, ctx, `window.__e2e.lastSent > 0 && window.__e2e.lastStart === window.__e2e.lastSent && window.__playground.frames > 0`)
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.__playground.latencies.length = 0`)); err != nil {
				t.Fatal(err)
			}
			start := eval[int](t, ctx, `Number(document.querySelector('input[type=range][data-for="clients"]').value)`)
			prev := lastSent(t, ctx)
			tick := time.NewTicker(100 * time.Millisecond)
			for i := range 30 {
				<-tick.C
				js := fmt.Sprintf(`(() => { const s = document.querySelector('input[type=range][data-for="clients"]');
					s.value = %d; s.dispatchEvent(new Event("input", { bubbles: true })); })()`, start-15+i)
				if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](js)); err != nil {
					t.Fatal(err)
				}
			}
			tick.Stop()
			if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](
				`document.querySelector('input[type=range][data-for="clients"]').dispatchEvent(new Event("change", { bubbles: true }))`)); err != nil {
				t.Fatal(err)
			}
			// The last input's first redraw, not its run's end: the redraw that answered the
			// newest request. (A redraw of an older run's frame can come after the last input;
			// counting samples would read the latencies before the last one is in.)
			waitFor(t, ctx, fmt.Sprintf(`window.__e2e.lastSent > %d && window.__playground.answered === window.__e2e.lastSent`, prev))
			lat := eval[[]float64](t, ctx, `window.__playground.latencies`)
			if got, want := textValue(t, ctx, "clients"), fmt.Sprint(start+14); got != want {
				t.Errorf("clients box = %q after the drag, want %s", got, want)
			}
			p50, p95 := percentile(lat, 50), percentile(lat, 95)
			t.Logf("slider latency p50=%.1fms p95=%.1fms n=%d (%s)", p50, p95, len(lat), tc.url)
			// The last input's redraw timed every input before it too (see js/probe.js).
			if len(lat) < 30 {
				t.Errorf("%d latency samples for 30 inputs: some input was never answered by a redraw", len(lat))
			}
		})
	}
}

// percentile returns the p-th percentile of xs (nearest rank).
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

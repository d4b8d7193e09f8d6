package api_test

import (
	"fmt"
	"math"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/api"
)

// TestDragPictures measures, without a browser, how often a viewer dragging base (an input
// every 30 ms for 3 s) receives a new complete picture, for several parameter rates side by
// side. It only runs with PLAYGROUND_MEASURE=1 (about a minute), and asserts only that the one
// viewer never hears "busy"; the figures are logged as
//
//	rate=20/s clients=500: 58 pictures for 100 inputs, first after 86ms, gaps p50=52ms p90=72ms max=99ms; …
func TestDragPictures(t *testing.T) {
	if os.Getenv("PLAYGROUND_MEASURE") == "" {
		t.Skip("a measurement: set PLAYGROUND_MEASURE=1 to run it")
	}
	for _, sc := range []string{"clients=500", "clients=100&trials=20&sweep=off"} {
		for _, rate := range []float64{10, 20, 30} {
			t.Run(fmt.Sprintf("%s/rate=%v", sc, rate), func(t *testing.T) {
				srv := MustOpenServer(t, WithConfig(func(c *api.Config) { c.ParamRate = rate }))
				st := srv.MustDial(t, "backoff", nil)
				query := func(i int) string {
					base := time.Duration(float64(5*time.Millisecond) * math.Pow(1.0134, float64(i))) // a slider position each
					return sc + "&base=" + base.Round(10*time.Microsecond).String()
				}
				st.Send(1, query(0))
				st.Run(1)
				type picture struct {
					at time.Time
					id int64
				}
				pictures, busy := make(chan picture, 200), make(chan int64, 200)
				go func() {
					defer close(pictures)
					seen := map[int64]bool{}
					for {
						r, err := st.Next()
						if err != nil {
							return
						}
						if r.Type == "busy" {
							busy <- r.ID
						}
						if r.Type == "frame" && r.Refine != nil && !seen[r.ID] {
							seen[r.ID] = true
							pictures <- picture{time.Now(), r.ID}
						}
					}
				}()
				const inputs = 100
				start := time.Now()
				tick := time.NewTicker(30 * time.Millisecond)
				for i := 1; i <= inputs; i++ {
					<-tick.C
					st.SendDrag(int64(i+1), query(i)) // as the page sends a drag's steps
				}
				tick.Stop()
				end := time.Now()
				var at []time.Time
				for p := range pictures {
					at = append(at, p.at)
					if p.id == inputs+1 {
						break
					}
				}
				st.C.CloseNow()
				if len(busy) > 0 {
					t.Errorf("one viewer dragging heard busy %d times", len(busy))
				}
				var gaps []float64
				for i := 1; i < len(at) && at[i-1].Before(end); i++ {
					next := at[i]
					if next.After(end) {
						next = end
					}
					gaps = append(gaps, float64(next.Sub(at[i-1]).Microseconds())/1000)
				}
				if len(at) == 0 || len(gaps) == 0 {
					t.Fatalf("%d pictures during the drag", len(at))
				}
				slices.Sort(gaps)
				t.Logf("rate=%v/s %s: %d pictures for %d inputs over %.2fs, first after %.0fms, gaps p50=%.0fms p90=%.0fms max=%.0fms",
					rate, sc, len(at), inputs, end.Sub(start).Seconds(), float64(at[0].Sub(start).Microseconds())/1000,
					gaps[len(gaps)/2], gaps[len(gaps)*9/10], gaps[len(gaps)-1])
			})
		}
	}
}

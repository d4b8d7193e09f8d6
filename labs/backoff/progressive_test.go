package backoff

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
)

// oneShot are scenarios whose results testdata/oneshot/*.golden.json holds as the lab computed
// them before runs were progressive, in one pass of all trials. Never regenerate these files:
// they are what the URLs meant then, and progressive runs must end in exactly the same bytes.
var oneShot = map[string]string{
	"default-40-trials":     "trials=40",
	"n150-inside-sweep":     "clients=150&trials=35&sweep=50:250:50",
	"baseline-hidden":       "strategies=none,full&clients=7&trials=12&sweep=off",
	"lockstep-boundary":     "strategies=equal,decorrelated&clients=60&trials=3&latency_sd=0s&sweep=20:100:40",
	"one-trial":             "trials=1&clients=33&sweep=5:45:20&seed=99",
	"every-strategy-capped": "strategies=none,constant,linear,exponential,full,equal,decorrelated&clients=25&trials=17&base=1ms&cap=20ms&multiplier=3&sweep=10:50:10&retries=9",
}

// TestProgressiveEqualsOneShot: the result of a progressive run — the fold of every batch's
// updates — equals the one-shot result byte for byte, at several GOMAXPROCS, with an empty
// memo and with the memo holding some of the points (a run that mixes memoised and simulated
// points).
func TestProgressiveEqualsOneShot(t *testing.T) {
	heavy.Test(t)
	for name, q := range oneShot {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile("testdata/oneshot/" + name + ".golden.json")
			if err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 2, 7} {
				old := runtime.GOMAXPROCS(procs)
				l := Lab()
				got := asThen(marshal(t, mustRunOn(t, l, q)))
				again := asThen(marshal(t, mustRunOn(t, l, q))) // from the memo
				runtime.GOMAXPROCS(old)
				if !bytes.Equal(got, want) {
					t.Errorf("GOMAXPROCS=%d: progressive result differs from the one-shot result", procs)
				}
				if !bytes.Equal(again, want) {
					t.Errorf("GOMAXPROCS=%d: the memoised result differs from the one-shot result", procs)
				}
			}
			// Half the points memoised by a neighbouring scenario first.
			l := Lab()
			v, err := Params.ParseQuery(q)
			if err != nil {
				t.Fatal(err)
			}
			if v, err = v.With("clients", "2"); err != nil {
				t.Fatal(err)
			}
			mustRunOn(t, l, v.Encode())
			if got := asThen(marshal(t, mustRunOn(t, l, q))); !bytes.Equal(got, want) {
				t.Errorf("after a neighbour filled the memo: result differs from the one-shot result")
			}
		})
	}
}

// addedSince matches the lines of the fields added to the result since the one-shot files
// were written (fields may be added, never renamed): summary.schedule[].simulated_sleep_ms,
// and series[].width, a histogram's bin width, the last field of its series.
var addedSince = []*regexp.Regexp{
	regexp.MustCompile(`(?m)^ *"simulated_sleep_ms": [^\n]*,\n`),
	regexp.MustCompile(`(?m),\n *"width": [0-9.e+-]+$`),
}

// asThen is a marshalled result without the fields added since the one-shot files.
func asThen(b []byte) []byte {
	for _, re := range addedSince {
		b = re.ReplaceAll(b, nil)
	}
	return b
}

func marshal(tb testing.TB, r *lab.Result) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestRefinement: a run shows a complete picture after its first trial — the table and every
// chart — then refines it batch by batch, saying how many trials its numbers rest on; frames
// carry only the sweep points that changed.
func TestRefinement(t *testing.T) {
	v, err := Params.ParseQuery("trials=40&sweep=10:50:10&clients=30")
	if err != nil {
		t.Fatal(err)
	}
	l := Lab()
	var (
		refines  []int64
		picture  *lab.Result // the fold when the first refinement is reported
		fold     = lab.NewResult(l, v)
		upserted = map[string]int{} // points sent per series
	)
	_, err = l.Execute(context.Background(), v, func(u lab.Update) {
		fold.Apply(u)
		for _, s := range u.Series {
			if s.Upsert {
				upserted[s.Name] += len(s.X)
			}
		}
		if u.Refine == nil {
			return
		}
		if u.Refine.Total != 40 || u.Refine.Unit != "trials" {
			t.Errorf("refinement %+v", *u.Refine)
		}
		refines = append(refines, u.Refine.Done)
		if picture == nil {
			b, _ := json.Marshal(fold)
			picture = &lab.Result{}
			if err := json.Unmarshal(b, picture); err != nil {
				t.Fatal(err)
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int64{1, 3, 10, 30, 40}; !slices.Equal(refines, want) {
		t.Errorf("refinements at %v trials, want %v", refines, want)
	}
	for _, key := range []string{"strategies", "schedule"} {
		if _, ok := picture.Summary[key]; !ok {
			t.Errorf("the first picture lacks summary.%s", key)
		}
	}
	// summary.sweep is not drawn: it comes once, with the final numbers.
	if _, ok := picture.Summary["sweep"]; ok {
		t.Errorf("the first picture has summary.sweep, which only the final batch sends")
	}
	if _, ok := fold.Summary["sweep"]; !ok {
		t.Errorf("the result lacks summary.sweep")
	}
	charts := map[string]int{}
	for _, s := range picture.Series {
		charts[s.Chart]++
		if s.Chart == "work" && len(s.X) != 5 {
			t.Errorf("the first picture's %s has %d of the 5 sweep points", s.Name, len(s.X))
		}
	}
	for _, c := range view.Charts {
		if charts[c.ID] == 0 {
			t.Errorf("the first picture has nothing in chart %s", c.ID)
		}
	}
	// Each sweep point goes out once per batch, never the sweep so far again and again.
	// Bands start with the second batch (an interval needs two trials) and go out when the
	// trials have grown tenfold (3, 30) and with the final batch.
	for name, want := range map[string]int{"work none": 5 * 5, "completion full": 5 * 5, "work full lo": 5 * 3} {
		if got := upserted[name]; got != want {
			t.Errorf("%s: %d points sent, want %d: each sweep point once per batch", name, got, want)
		}
	}
	// The first picture is a picture of one trial: it differs from the final one.
	if fmt.Sprint(picture.Summary["strategies"]) == fmt.Sprint(fold.Summary["strategies"]) {
		t.Errorf("the first picture already has the final numbers")
	}
}

// TestCoarseToFine: every index once, ends first, then middles.
func TestCoarseToFine(t *testing.T) {
	for m := range 40 {
		got := coarseToFine(m)
		if s := slices.Sorted(slices.Values(got)); len(s) != m || (m > 0 && (s[0] != 0 || s[m-1] != m-1)) || len(slices.Compact(s)) != m {
			t.Fatalf("coarseToFine(%d) = %v: not a permutation of 0..%d", m, got, m-1)
		}
	}
	if got, want := coarseToFine(9), []int{0, 8, 4, 2, 6, 1, 3, 5, 7}; !slices.Equal(got, want) {
		t.Errorf("coarseToFine(9) = %v, want %v", got, want)
	}
}

// BenchmarkBaseMove is what a viewer waits for after moving the base slider at the default
// scenario: the first complete picture (the first refinement: every panel drawn from one
// trial) and the final numbers. Each iteration moves base to a value not seen before, so
// nothing comes from the memo.
func BenchmarkBaseMove(b *testing.B) {
	l := Lab()
	mustRunOn(b, l, "")
	var picture, final time.Duration
	for i := 0; b.Loop(); i++ {
		v, err := Params.ParseQuery(fmt.Sprintf("base=%dus", 5001+i))
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		seen := false
		if _, err := l.Execute(context.Background(), v, func(u lab.Update) {
			if u.Refine != nil && !seen {
				seen = true
				picture += time.Since(start)
			}
		}); err != nil {
			b.Fatal(err)
		}
		final += time.Since(start)
	}
	b.ReportMetric(float64(picture.Milliseconds())/float64(b.N), "ms-to-picture")
	b.ReportMetric(float64(final.Milliseconds())/float64(b.N), "ms-to-final")
}

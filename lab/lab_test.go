package lab_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/labs/backoff"
	"github.com/resilience-playground/playground/param"
)

// copyUpdate returns a deep copy of u, sharing nothing with it but summary values.
func copyUpdate(u lab.Update) lab.Update {
	var c lab.Update
	if u.Progress != nil {
		p := *u.Progress
		c.Progress = &p
	}
	if u.Summary != nil {
		c.Summary = maps.Clone(u.Summary)
	}
	c.Series = copySeries(u.Series)
	return c
}

func copySeries(ss []lab.Series) []lab.Series {
	var c []lab.Series
	for _, s := range ss {
		s.X, s.Y = slices.Clone(s.X), slices.Clone(s.Y)
		c = append(c, s)
	}
	return c
}

// merged returns the merge of us into an empty update, as a hub builds it.
func merged(us ...lab.Update) lab.Update {
	var m lab.Update
	for _, u := range us {
		m.Merge(u)
	}
	return m
}

// result returns a result holding deep copies of summary and series.
func result(summary map[string]any, series []lab.Series) *lab.Result {
	r := &lab.Result{Lab: "t", URL: "/t", Summary: maps.Clone(summary), Series: copySeries(series)}
	if r.Summary == nil {
		r.Summary = map[string]any{}
	}
	if r.Series == nil {
		r.Series = []lab.Series{}
	}
	return r
}

// ser builds a series; append marks it as an extension.
func ser(name string, app bool, xy ...float64) lab.Series {
	s := lab.Series{Name: name, Chart: "c", Label: name, XUnit: "x", YUnit: "y", Append: app, X: []float64{}, Y: []float64{}}
	for i := 0; i+1 < len(xy); i += 2 {
		s.X = append(s.X, xy[i])
		s.Y = append(s.Y, xy[i+1])
	}
	return s
}

// ups builds an upsert of points into a series.
func ups(name string, xy ...float64) lab.Series {
	s := ser(name, false, xy...)
	s.Upsert = true
	return s
}

// band builds one view-only bound of a band around series of.
func band(of, bound string, xy ...float64) lab.Series {
	s := ser(of+" "+bound, false, xy...)
	s.Of, s.Bound = of, bound
	return s
}

func hasDuplicateNames(u lab.Update) bool {
	seen := map[string]bool{}
	for _, s := range u.Series {
		if seen[s.Name] {
			return true
		}
		seen[s.Name] = true
	}
	return false
}

func prog(done int64) *lab.Progress { return &lab.Progress{Done: done, Total: 10, Stage: "s"} }

func TestMergeEquivalence(t *testing.T) {
	relabel := ser("a", false, 5, 50)
	relabel.Label = "new label"
	relabelApp := ser("a", true, 6, 60)
	relabelApp.Label = "ignored on append"
	tests := []struct {
		name        string
		summary     map[string]any // the result before
		series      []lab.Series
		u, next     lab.Update
		wantSummary map[string]any // the result after, if checked
		wantSeries  []lab.Series
	}{
		{
			name:        "summary replacement",
			summary:     map[string]any{"a": 1, "keep": 0},
			u:           lab.Update{Summary: map[string]any{"a": 2, "b": 2}},
			next:        lab.Update{Summary: map[string]any{"b": 3, "c": 3}},
			wantSummary: map[string]any{"a": 2, "b": 3, "c": 3, "keep": 0},
		},
		{
			name:       "series replace",
			series:     []lab.Series{ser("a", false, 1, 10, 2, 20)},
			u:          lab.Update{Series: []lab.Series{ser("a", false, 3, 30)}},
			next:       lab.Update{Series: []lab.Series{ser("a", false, 4, 40, 5, 50)}},
			wantSeries: []lab.Series{ser("a", false, 4, 40, 5, 50)},
		},
		{
			name:       "append onto existing",
			series:     []lab.Series{ser("a", false, 1, 10)},
			u:          lab.Update{Series: []lab.Series{ser("a", true, 2, 20)}},
			next:       lab.Update{Series: []lab.Series{ser("a", true, 3, 30, 4, 40)}},
			wantSeries: []lab.Series{ser("a", false, 1, 10, 2, 20, 3, 30, 4, 40)},
		},
		{
			name:       "append onto absent",
			series:     []lab.Series{ser("z", false, 0, 0)},
			u:          lab.Update{Series: []lab.Series{ser("a", true, 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ser("a", true, 2, 20)}},
			wantSeries: []lab.Series{ser("z", false, 0, 0), ser("a", false, 1, 10, 2, 20)},
		},
		{
			name:       "append onto absent, then nothing",
			u:          lab.Update{Series: []lab.Series{ser("a", true, 1, 10)}},
			next:       lab.Update{Summary: map[string]any{"k": "v"}},
			wantSeries: []lab.Series{ser("a", false, 1, 10)},
		},
		{
			name:       "replace then append",
			series:     []lab.Series{ser("a", false, 9, 90)},
			u:          lab.Update{Series: []lab.Series{ser("a", false, 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ser("a", true, 2, 20)}},
			wantSeries: []lab.Series{ser("a", false, 1, 10, 2, 20)},
		},
		{
			name:       "append then replace",
			series:     []lab.Series{ser("a", false, 9, 90)},
			u:          lab.Update{Series: []lab.Series{ser("a", true, 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ser("a", false, 2, 20)}},
			wantSeries: []lab.Series{ser("a", false, 2, 20)},
		},
		{
			name:       "append onto absent then replace",
			u:          lab.Update{Series: []lab.Series{ser("a", true, 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ser("a", false, 2, 20)}},
			wantSeries: []lab.Series{ser("a", false, 2, 20)},
		},
		{
			name:       "replace keeps the new metadata, append the old",
			series:     []lab.Series{ser("a", false, 1, 10)},
			u:          lab.Update{Series: []lab.Series{relabel}},
			next:       lab.Update{Series: []lab.Series{relabelApp}},
			wantSeries: func() []lab.Series { s := ser("a", false, 5, 50, 6, 60); s.Label = "new label"; return []lab.Series{s} }(),
		},
		{
			name:   "series order: existing first, then new in order of arrival",
			series: []lab.Series{ser("x", false, 0, 0)},
			u:      lab.Update{Series: []lab.Series{ser("b", false, 1, 1), ser("x", true, 1, 1)}},
			next:   lab.Update{Series: []lab.Series{ser("a", true, 2, 2), ser("b", true, 3, 3), ser("c", false, 4, 4)}},
			wantSeries: []lab.Series{
				ser("x", false, 0, 0, 1, 1), ser("b", false, 1, 1, 3, 3), ser("a", false, 2, 2), ser("c", false, 4, 4),
			},
		},
		{
			name:       "one name twice in one update",
			series:     []lab.Series{ser("a", false, 0, 0)},
			u:          lab.Update{Series: []lab.Series{ser("a", true, 1, 1), ser("a", true, 2, 2)}},
			next:       lab.Update{Series: []lab.Series{ser("a", false, 3, 3), ser("a", true, 4, 4)}},
			wantSeries: []lab.Series{ser("a", false, 3, 3, 4, 4)},
		},
		{
			name:       "empty appends and replacements",
			series:     []lab.Series{ser("a", false, 1, 1), ser("b", false, 2, 2)},
			u:          lab.Update{Series: []lab.Series{ser("a", true)}},
			next:       lab.Update{Series: []lab.Series{ser("b", false)}},
			wantSeries: []lab.Series{ser("a", false, 1, 1), ser("b", false)},
		},
		{
			name:       "upsert onto existing",
			series:     []lab.Series{ser("a", false, 1, 10, 3, 30)},
			u:          lab.Update{Series: []lab.Series{ups("a", 2, 20, 3, 33)}},
			next:       lab.Update{Series: []lab.Series{ups("a", 0, 0, 3, 34)}},
			wantSeries: []lab.Series{ser("a", false, 0, 0, 1, 10, 2, 20, 3, 34)},
		},
		{
			name:       "upsert onto absent, out of order",
			u:          lab.Update{Series: []lab.Series{ups("a", 5, 50, 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ups("a", 3, 30, 5, 55)}},
			wantSeries: []lab.Series{ser("a", false, 1, 10, 3, 30, 5, 55)},
		},
		{
			name:       "replace then upsert",
			series:     []lab.Series{ser("a", false, 9, 90)},
			u:          lab.Update{Series: []lab.Series{ser("a", false, 1, 10, 4, 40)}},
			next:       lab.Update{Series: []lab.Series{ups("a", 2, 20, 4, 44)}},
			wantSeries: []lab.Series{ser("a", false, 1, 10, 2, 20, 4, 44)},
		},
		{
			name:       "upsert then replace",
			series:     []lab.Series{ser("a", false, 9, 90)},
			u:          lab.Update{Series: []lab.Series{ups("a", 1, 10)}},
			next:       lab.Update{Series: []lab.Series{ser("a", false, 2, 20)}},
			wantSeries: []lab.Series{ser("a", false, 2, 20)},
		},
		{
			name:       "bands are left out of results",
			series:     []lab.Series{ser("a", false, 1, 10)},
			u:          lab.Update{Series: []lab.Series{band("a", "lo", 1, 9), ups("a", 1, 11), band("a", "hi", 1, 13)}},
			next:       lab.Update{Series: []lab.Series{band("a", "lo", 1, 10)}, Refine: &lab.Refinement{Done: 3, Total: 10, Unit: "trials"}},
			wantSeries: []lab.Series{ser("a", false, 1, 11)},
		},
		{
			name:    "empty then something",
			summary: map[string]any{"a": 1},
			u:       lab.Update{},
			next:    lab.Update{Summary: map[string]any{"a": 2}, Series: []lab.Series{ser("s", true, 1, 1)}, Progress: prog(3)},
		},
		{
			name:   "something then empty",
			series: []lab.Series{ser("s", false, 0, 0)},
			u:      lab.Update{Summary: map[string]any{"a": 2}, Series: []lab.Series{ser("s", true, 1, 1)}, Progress: prog(3)},
			next:   lab.Update{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			seq := result(tt.summary, tt.series)
			seq.Apply(copyUpdate(tt.u))
			seq.Apply(copyUpdate(tt.next))

			once := result(tt.summary, tt.series)
			once.Apply(merged(copyUpdate(tt.u), copyUpdate(tt.next)))
			if !reflect.DeepEqual(seq, once) {
				t.Errorf("u then next:\n %+v\nMerge(u, next):\n %+v", seq, once)
			}

			// Merging into u itself (a copy the caller owns) has the same effect, provided u names
			// each series once, as every update built by Merge does: Merge folds next onto the
			// first series of a name only.
			if hasDuplicateNames(tt.u) {
				return
			}
			own := copyUpdate(tt.u)
			own.Merge(copyUpdate(tt.next))
			direct := result(tt.summary, tt.series)
			direct.Apply(own)
			if !reflect.DeepEqual(seq, direct) {
				t.Errorf("u then next:\n %+v\nu.Merge(next):\n %+v", seq, direct)
			}

			if tt.wantSummary != nil && !reflect.DeepEqual(seq.Summary, tt.wantSummary) {
				t.Errorf("summary = %v, want %v", seq.Summary, tt.wantSummary)
			}
			if tt.wantSeries != nil && !reflect.DeepEqual(seq.Series, tt.wantSeries) {
				t.Errorf("series = %+v\nwant %+v", seq.Series, tt.wantSeries)
			}
		})
	}
}

func TestMergeProgress(t *testing.T) {
	tests := []struct {
		name string
		ps   []*lab.Progress
		want *lab.Progress
	}{
		{"none", []*lab.Progress{nil, nil}, nil},
		{"first only", []*lab.Progress{prog(1), nil}, prog(1)},
		{"second only", []*lab.Progress{nil, prog(2)}, prog(2)},
		{"latest wins", []*lab.Progress{prog(1), prog(2)}, prog(2)},
		{"latest wins even if smaller", []*lab.Progress{prog(5), prog(2), nil}, prog(2)},
		{"latest of many", []*lab.Progress{prog(1), nil, prog(3), nil, prog(4), nil}, prog(4)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var us []lab.Update
			for _, p := range tt.ps {
				us = append(us, lab.Update{Progress: p})
			}
			m := merged(us...)
			if !reflect.DeepEqual(m.Progress, tt.want) {
				t.Errorf("Progress = %+v, want %+v", m.Progress, tt.want)
			}
			if m.Empty() != (tt.want == nil) {
				t.Errorf("Empty() = %v with progress %+v", m.Empty(), m.Progress)
			}
		})
	}
}

func TestUpdateEmpty(t *testing.T) {
	tests := []struct {
		u    lab.Update
		want bool
	}{
		{lab.Update{}, true},
		{lab.Update{Summary: map[string]any{}, Series: []lab.Series{}}, true},
		{lab.Update{Progress: &lab.Progress{}}, false},
		{lab.Update{Summary: map[string]any{"a": nil}}, false},
		{lab.Update{Series: []lab.Series{{Name: "a"}}}, false},
	}
	for i, tt := range tests {
		if got := tt.u.Empty(); got != tt.want {
			t.Errorf("%d: Empty() = %v, want %v", i, got, tt.want)
		}
	}
	if m := merged(lab.Update{}, lab.Update{Summary: map[string]any{}}); !m.Empty() || m.Summary != nil {
		t.Errorf("merging nothing gave %+v", m)
	}
}

// TestMergeRandom folds random update streams one by one and in random batches, as a hub
// sends them to a slow reader, and checks every way gives the same result.
func TestMergeRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	names := []string{"a", "b", "c"}
	upsertNames := []string{"u", "v"}
	randUpdate := func() lab.Update {
		var u lab.Update
		if r.IntN(3) == 0 {
			u.Progress = prog(r.Int64N(100))
		}
		for range r.IntN(3) {
			if u.Summary == nil {
				u.Summary = map[string]any{}
			}
			u.Summary[names[r.IntN(len(names))]] = r.IntN(100)
		}
		for range r.IntN(4) {
			var xy []float64
			for range r.IntN(4) {
				xy = append(xy, float64(r.IntN(100)), r.Float64())
			}
			s := ser(names[r.IntN(len(names))], r.IntN(2) == 0, xy...)
			s.Label = fmt.Sprint("label ", r.IntN(3))
			u.Series = append(u.Series, s)
		}
		// Series refined point by point: replaced (x ascending) or upserted, never appended.
		for range r.IntN(3) {
			xs := map[float64]bool{}
			for range r.IntN(5) {
				xs[float64(r.IntN(10))] = true
			}
			var xy []float64
			for _, x := range slices.Sorted(maps.Keys(xs)) {
				xy = append(xy, x, r.Float64())
			}
			s := ser(upsertNames[r.IntN(len(upsertNames))], false, xy...)
			if r.IntN(3) > 0 {
				s.Upsert = true
				slices.Reverse(s.X) // an upsert's own points need no order
				slices.Reverse(s.Y)
			}
			u.Series = append(u.Series, s)
		}
		if r.IntN(4) == 0 {
			u.Refine = &lab.Refinement{Done: r.Int64N(10), Total: 10, Unit: "trials"}
		}
		return u
	}
	for trial := range 500 {
		us := make([]lab.Update, 1+r.IntN(12))
		for i := range us {
			us[i] = randUpdate()
		}

		seq := result(nil, nil)
		var latest *lab.Progress
		for _, u := range us {
			seq.Apply(copyUpdate(u))
			if u.Progress != nil {
				latest = u.Progress
			}
		}

		// Batches: merge runs of updates, then apply each merged batch.
		batched := result(nil, nil)
		var lastBatch lab.Update
		for i := 0; i < len(us); {
			j := i + 1 + r.IntN(len(us)-i)
			lastBatch = merged(us[i:j]...)
			batched.Apply(lastBatch)
			i = j
		}
		if !reflect.DeepEqual(seq, batched) {
			t.Fatalf("trial %d: one by one %+v\nbatched %+v", trial, seq, batched)
		}

		// A late joiner: the merged state so far, then the rest one by one.
		k := r.IntN(len(us) + 1)
		state := merged(us[:k]...)
		joiner := result(nil, nil)
		joiner.Apply(merged(state))
		for _, u := range us[k:] {
			joiner.Apply(u)
		}
		if !reflect.DeepEqual(seq, joiner) {
			t.Fatalf("trial %d: one by one %+v\nlate joiner at %d %+v", trial, seq, k, joiner)
		}

		if all := merged(us...); !reflect.DeepEqual(all.Progress, latest) {
			t.Fatalf("trial %d: progress %+v, want %+v", trial, all.Progress, latest)
		}
	}
}

// TestMergeNoAlias checks that a merged update shares no slices with the updates merged into
// it: changing the inputs afterwards, even within their spare capacity, leaves it alone.
func TestMergeNoAlias(t *testing.T) {
	mk := func() (lab.Update, lab.Update) {
		roomy := ser("a", false)
		roomy.X = append(make([]float64, 0, 8), 1)
		roomy.Y = append(make([]float64, 0, 8), 10)
		u := lab.Update{
			Progress: prog(1),
			Summary:  map[string]any{"k": 1},
			Series:   []lab.Series{roomy, ser("b", true, 2, 20), ser("c", false, 3, 30)},
		}
		next := lab.Update{
			Summary: map[string]any{"j": 2},
			Series:  []lab.Series{ser("a", true, 4, 40), ser("b", false, 5, 50), ser("d", true, 6, 60), ser("c", true, 7, 70)},
		}
		return u, next
	}
	scribble := func(us ...lab.Update) {
		for _, u := range us {
			for i := range u.Series {
				s := &u.Series[i]
				for j := range s.X {
					s.X[j], s.Y[j] = -1, -1
				}
				s.X = append(s.X, -2) // into spare capacity, if any
				s.Y = append(s.Y, -2)
				s.Name += "!"
			}
			if u.Summary != nil {
				u.Summary["k"] = -1
				u.Summary["new"] = -1
			}
		}
	}

	t.Run("into an empty update", func(t *testing.T) {
		u, next := mk()
		m := merged(u, next)
		want := copyUpdate(m)
		scribble(u, next)
		if !reflect.DeepEqual(m, want) {
			t.Errorf("changing the inputs changed the merge:\n got %+v\nwant %+v", m, want)
		}
		// Merging next did not write into u's spare capacity.
		if x := u.Series[0].X[:2]; x[1] != -2 {
			t.Errorf("u's spare capacity was overwritten: %v", x)
		}
	})
	t.Run("into an owned update", func(t *testing.T) {
		u, next := mk()
		u.Merge(next)
		want := copyUpdate(u)
		scribble(next)
		if !reflect.DeepEqual(u, want) {
			t.Errorf("changing next changed u:\n got %+v\nwant %+v", u, want)
		}
	})
	t.Run("hub state then pending", func(t *testing.T) {
		u, next := mk()
		var state lab.Update
		state.Merge(u)
		var pending lab.Update
		pending.Merge(state) // a late subscriber takes the state so far
		want := copyUpdate(pending)
		state.Merge(next) // the run goes on
		scribble(u)
		if !reflect.DeepEqual(pending, want) {
			t.Errorf("the run's later updates changed a subscriber's pending update:\n got %+v\nwant %+v", pending, want)
		}
	})
	t.Run("result", func(t *testing.T) {
		u, next := mk()
		r := result(nil, nil)
		r.Apply(u)
		r.Apply(next)
		want := result(r.Summary, r.Series)
		scribble(u, next)
		if !reflect.DeepEqual(r, want) {
			t.Errorf("changing the updates changed the result:\n got %+v\nwant %+v", r, want)
		}
	})
}

func TestResultApply(t *testing.T) {
	r := result(map[string]any{"keep": "k", "old": 1}, []lab.Series{ser("a", false, 1, 1), ser("b", false, 2, 2)})
	r.Apply(lab.Update{
		Progress: prog(5),
		Summary:  map[string]any{"old": 2, "new": []int{3}},
		Series:   []lab.Series{ser("b", true, 3, 3), ser("c", true, 4, 4), ser("a", false, 5, 5)},
	})
	wantSummary := map[string]any{"keep": "k", "old": 2, "new": []int{3}}
	if !reflect.DeepEqual(r.Summary, wantSummary) {
		t.Errorf("Summary = %v, want %v", r.Summary, wantSummary)
	}
	wantSeries := []lab.Series{ser("a", false, 5, 5), ser("b", false, 2, 2, 3, 3), ser("c", false, 4, 4)}
	if !reflect.DeepEqual(r.Series, wantSeries) {
		t.Errorf("Series = %+v\nwant %+v", r.Series, wantSeries)
	}
	for _, s := range r.Series {
		if s.Append {
			t.Errorf("series %s of a result is marked Append", s.Name)
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"append"`) {
		t.Errorf("result JSON mentions append: %s", b)
	}
}

// testLab is a synthetic lab: its cost is n·m, and it emits m updates appending to one series.
func testLab(name string) *lab.Lab {
	return &lab.Lab{
		Name:  name,
		Title: "Test",
		Params: param.Set{
			{Name: "n", Kind: param.Int, Default: "10", Min: 1, Max: 1e9},
			{Name: "m", Kind: param.Int, Default: "3", Min: 0, Max: 100},
			{Name: "mode", Kind: param.Enum, Default: "a", Options: []string{"a", "b c"}, OptionLabels: []string{"A", "B C"}},
		},
		Cost:       func(v param.Values) int64 { return v.Int("n") * v.Int("m") },
		CostParams: []string{"n", "m"},
		Run: func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
			m := v.Int("m")
			for i := range m {
				if err := ctx.Err(); err != nil {
					return err
				}
				emit(lab.Update{
					Progress: &lab.Progress{Done: i + 1, Total: m, Stage: "run"},
					Summary:  map[string]any{"last": i},
					Series:   []lab.Series{ser("s", i > 0, float64(i), float64(v.Int("n")*i))},
				})
			}
			if v.String("mode") == "b c" {
				return errors.New("mode b c fails")
			}
			return nil
		},
	}
}

func TestLabURL(t *testing.T) {
	bl := backoff.Lab()
	tl := testLab("test")
	tests := []struct {
		l     *lab.Lab
		query string
		want  string
	}{
		{bl, "", "/backoff"},
		{bl, "clients=100", "/backoff"},
		{bl, "clients=5", "/backoff?clients=5"},
		{bl, "sweep=off&clients=5", "/backoff?clients=5&sweep=off"},
		{bl, "strategies=full,none&cap=120s", "/backoff?strategies=none,full&cap=2m"},
		{bl, "base=500us", "/backoff?base=500%C2%B5s"},
		{tl, "", "/test"},
		{tl, "mode=b+c&n=7", "/test?n=7&mode=b+c"},
	}
	for _, tt := range tests {
		v, err := tt.l.Params.ParseQuery(tt.query)
		if err != nil {
			t.Fatalf("%s: %v", tt.query, err)
		}
		if got := tt.l.URL(v); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.query, got, tt.want)
		}
	}
}

func TestNewResult(t *testing.T) {
	l := testLab("test")
	v, err := l.Params.ParseQuery("n=4")
	if err != nil {
		t.Fatal(err)
	}
	r := lab.NewResult(l, v)
	if r.Lab != "test" || r.URL != "/test?n=4" || !reflect.DeepEqual(r.Params, v.Map()) {
		t.Errorf("NewResult = %+v", r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"lab":"test","url":"/test?n=4","params":{"m":3,"mode":"a","n":4},"summary":{},"series":[]}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
}

func TestExecute(t *testing.T) {
	l := testLab("test")
	v, err := l.Params.ParseQuery("n=2&m=4")
	if err != nil {
		t.Fatal(err)
	}
	var seen []lab.Update
	r, err := l.Execute(context.Background(), v, func(u lab.Update) { seen = append(seen, u) })
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 {
		t.Fatalf("observed %d updates, want 4", len(seen))
	}
	want := lab.NewResult(l, v)
	for _, u := range seen {
		want.Apply(u)
	}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("Execute = %+v\nfold of its updates %+v", r, want)
	}
	if got := r.Series[0].Y; !reflect.DeepEqual(got, []float64{0, 2, 4, 6}) {
		t.Errorf("series y = %v", got)
	}
	if r2, err := l.Execute(context.Background(), v, nil); err != nil || !reflect.DeepEqual(r2, r) {
		t.Errorf("Execute without an observer = %+v, %v", r2, err)
	}

	bad, _ := l.Params.ParseQuery("mode=b+c")
	if r, err := l.Execute(context.Background(), bad, nil); err == nil || r != nil {
		t.Errorf("failing run: Execute = %v, %v; want nil and the error", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := l.Execute(ctx, v, nil); !errors.Is(err, context.Canceled) || r != nil {
		t.Errorf("cancelled run: Execute = %v, %v", r, err)
	}
}

func TestCheckBudget(t *testing.T) {
	withParams := func(names ...string) *lab.Lab {
		l := testLab("test")
		l.CostParams = names
		return l
	}
	noCost := testLab("test")
	noCost.Cost = nil
	tests := []struct {
		name   string
		l      *lab.Lab
		query  string
		budget int64
		param  string // "-" for no error
		msg    string
	}{
		{"under", withParams("n", "m"), "n=10&m=3", 100, "-", ""},
		{"equal", withParams("n", "m"), "n=10&m=3", 30, "-", ""},
		{"no budget", withParams("n", "m"), "n=1000000000&m=100", 0, "-", ""},
		{"negative budget", withParams("n", "m"), "n=1000000000&m=100", -1, "-", ""},
		{"no cost", noCost, "n=1000000000&m=100", 1, "-", ""},
		{"over", withParams("n", "m"), "n=10&m=3", 29, "n",
			"this scenario needs about 30 work units, more than the 29 one run may use; lower n to 9 or less (or lower m)"},
		{"over, big", withParams("n", "m"), "n=12345678&m=100", 1000000, "n",
			"this scenario needs about 1.23e+09 work units, more than the 1e+06 one run may use; lower n to 10000 or less (or lower m)"},
		{"first cannot fit, second can", withParams("n", "m"), "n=100&m=3", 2, "m",
			"; lower m to 0 (or lower n)"},
		{"fits at the minimum", withParams("n", "m"), "n=10&m=3", 10, "n", "; lower n to 3 or less (or lower m)"},
		{"nothing fits", withParams("mode", "n"), "n=100&m=100", 50, "n", "; lower n or mode"}, // the moved parameter first
		{"no names", withParams(), "n=10", 1, "", "lower the parameters"},
		{"one name", withParams("m"), "n=10", 1, "m", "; lower m to 0"},
		{"three names", withParams("m", "n", "mode"), "n=10", 1, "m", "; lower m to 0 (or lower n or mode)"},
		{"four names, none declared", withParams("a", "b", "c", "d"), "n=10", 1, "a", "; lower a, b, c or d"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := tt.l.Params.ParseQuery(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			err = tt.l.CheckBudget(v, tt.budget)
			if tt.param == "-" {
				if err != nil {
					t.Errorf("CheckBudget = %v, want nil", err)
				}
				return
			}
			var pe *param.Error
			if !errors.As(err, &pe) {
				t.Fatalf("CheckBudget = %v (%T), want a *param.Error", err, err)
			}
			if pe.Param != tt.param {
				t.Errorf("Param = %q, want %q", pe.Param, tt.param)
			}
			if !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("Msg = %q, want it to contain %q", pe.Msg, tt.msg)
			}
		})
	}

	// The backoff lab blames trials first and names every cost parameter.
	bl := backoff.Lab()
	v, err := bl.Params.ParseQuery("clients=1000&trials=1000")
	if err != nil {
		t.Fatal(err)
	}
	var pe *param.Error
	if err := bl.CheckBudget(v, 1e8); !errors.As(err, &pe) || pe.Param != "trials" ||
		!strings.HasSuffix(pe.Msg, " or less (or lower clients, sweep or strategies)") {
		t.Errorf("backoff CheckBudget = %v", err)
	}
	if err := bl.CheckBudget(v, 1<<62); err != nil {
		t.Errorf("backoff CheckBudget with a huge budget = %v", err)
	}
}

func TestRegistry(t *testing.T) {
	a, b, c := testLab("a"), testLab("b"), backoff.Lab()
	r := lab.NewRegistry(a, b, c)
	if got := r.All(); len(got) != 3 || got[0] != a || got[1] != b || got[2] != c {
		t.Errorf("All() = %v, want a, b, backoff in order", got)
	}
	for _, name := range []string{"a", "b", "backoff"} {
		if l, ok := r.Lookup(name); !ok || l.Name != name {
			t.Errorf("Lookup(%q) = %v, %v", name, l, ok)
		}
	}
	for _, name := range []string{"", "c", "A", "backoff/", "/backoff"} {
		if l, ok := r.Lookup(name); ok || l != nil {
			t.Errorf("Lookup(%q) = %v, %v; want nil, false", name, l, ok)
		}
	}
	if got := lab.NewRegistry().All(); len(got) != 0 {
		t.Errorf("empty registry has %d labs", len(got))
	}

	badDefault := testLab("bad")
	badDefault.Params = param.Set{{Name: "n", Kind: param.Int, Default: "0", Min: 1, Max: 2}}
	longTitle := testLab("long")
	longTitle.Title = "Retry storms: budgets, breakers and metastable failures"
	badLight := testLab("light")
	badLight.Light = "nosuch=1"
	panics := []struct {
		name string
		labs []*lab.Lab
		want string
	}{
		{"duplicate", []*lab.Lab{testLab("a"), testLab("b"), testLab("a")}, `lab: "a" registered twice`},
		{"same lab twice", []*lab.Lab{a, a}, `lab: "a" registered twice`},
		{"invalid default", []*lab.Lab{a, badDefault}, "param: invalid default"},
		{"a long title without a short name", []*lab.Lab{longTitle}, `lab long: its name in the navigation, "Retry storms: budgets, breakers and metastable failures" (Short, or else Title), needs 1 to 24 bytes`},
		{"a light scenario of another lab", []*lab.Lab{badLight}, `lab light: its light scenario "nosuch=1"`},
	}
	for _, tt := range panics {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), tt.want) {
					t.Errorf("recovered %v, want a panic containing %q", p, tt.want)
				}
			}()
			lab.NewRegistry(tt.labs...)
		})
	}
}

// TestEmptyPointsStayEmpty: a series sent with no points yet (a policy with no request ended
// so far) stays an empty list through merges and results — JSON's [], never null, which the
// page cannot draw — however it is sent: whole, appended or upserted.
func TestEmptyPointsStayEmpty(t *testing.T) {
	for _, s := range []lab.Series{
		{Name: "whole", X: []float64{}, Y: []float64{}},
		{Name: "appended", X: []float64{}, Y: []float64{}, Append: true},
		{Name: "upserted", X: []float64{}, Y: []float64{}, Upsert: true},
	} {
		var u lab.Update
		u.Merge(lab.Update{Series: []lab.Series{s}})
		u.Merge(lab.Update{Series: []lab.Series{s}})
		r := &lab.Result{Summary: map[string]any{}}
		r.Apply(u)
		for what, got := range map[string][]lab.Series{"merged update": u.Series, "result": r.Series} {
			b, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "null") {
				t.Errorf("%s, %s: %s", s.Name, what, b)
			}
		}
	}
}

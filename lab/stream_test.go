package lab_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/param"
)

// TestStreamRefusesUnsendable: an update JSON cannot carry ends the run with an error naming
// the lab, the scenario and the value; the updates before it are delivered, none after.
func TestStreamRefusesUnsendable(t *testing.T) {
	for _, c := range []struct {
		name string
		bad  lab.Update
		want string
	}{
		{"series", lab.Update{Series: []lab.Series{{Name: "ceiling", X: []float64{0, 1}, Y: []float64{math.Inf(1), 2}}}}, `series "ceiling": point 0 is +Inf`},
		{"summary", lab.Update{Summary: map[string]any{"share": map[string]float64{"a": math.NaN()}}}, `summary "share"`},
		{"nil points", lab.Update{Series: []lab.Series{{Name: "latency none", X: []float64{}}}}, `series "latency none": 0 x and 0 y (nil: false, true)`},
		{"unpaired points", lab.Update{Series: []lab.Series{{Name: "s", X: []float64{1, 2}, Y: []float64{1}}}}, `series "s": 2 x and 1 y`},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got []lab.Update
			l := &lab.Lab{Name: "bad", Params: param.Set{}, Run: func(ctx context.Context, v param.Values, emit func(lab.Update)) error {
				emit(lab.Update{Summary: map[string]any{"n": 1}})
				emit(c.bad)
				if ctx.Err() == nil {
					t.Error("the run was not cancelled after the bad update")
				}
				emit(lab.Update{Summary: map[string]any{"n": 2}})
				return ctx.Err()
			}}
			err := l.Stream(context.Background(), param.Values{}, func(u lab.Update) { got = append(got, u) })
			if !errors.Is(err, lab.ErrBadUpdate) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "/bad") {
				t.Errorf("error %v, want ErrBadUpdate naming /bad and %s", err, c.want)
			}
			if len(got) != 1 {
				t.Errorf("delivered %d updates, want the one before the bad one", len(got))
			}
		})
	}
}

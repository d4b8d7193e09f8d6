package lab

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	"github.com/resilience-playground/playground/param"
)

// ErrBadUpdate is wrapped by the error of a run whose lab reported an update that cannot be
// sent: a number that JSON cannot carry (NaN, ±Inf) in a series or in the summary, or a
// series whose points are missing (nil, which JSON writes as null) or do not pair.
var ErrBadUpdate = errors.New("lab: an update cannot be sent")

// Stream runs scenario v like l.Run, checking each update before it reaches emit: the first
// one that cannot be sent (see [ErrBadUpdate]) ends the run, which returns an error naming the
// lab, the scenario and the value, instead of a page or a stream finding out when it encodes
// it. Everything that runs a lab (the hub, Execute) runs it through Stream.
func (l *Lab) Stream(ctx context.Context, v param.Values, emit func(Update)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	bad := false
	err := l.Run(ctx, v, func(u Update) {
		if bad {
			return
		}
		if err := u.check(); err != nil {
			bad = true
			cancel(fmt.Errorf("%w: %s %s: %v", ErrBadUpdate, l.Name, l.URL(v), err))
			return
		}
		emit(u)
	})
	if bad {
		return context.Cause(ctx)
	}
	return err
}

// check returns why u cannot be sent, or nil.
func (u Update) check() error {
	for _, s := range u.Series {
		if s.X == nil || s.Y == nil || len(s.X) != len(s.Y) {
			// JSON would carry a nil slice as null, which no page can draw; points must pair.
			return fmt.Errorf("series %q: %d x and %d y (nil: %v, %v)", s.Name, len(s.X), len(s.Y), s.X == nil, s.Y == nil)
		}
		for _, xs := range [2][]float64{s.X, s.Y} {
			for i, x := range xs {
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return fmt.Errorf("series %q: point %d is %v", s.Name, i, x)
				}
			}
		}
	}
	for k, x := range u.Summary {
		if _, err := json.Marshal(x); err != nil {
			return fmt.Errorf("summary %q: %v", k, err)
		}
	}
	return nil
}

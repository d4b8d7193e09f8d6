package backoff

import (
	"errors"
	"slices"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// TestCapAtLeastBase: a cap below the base, which made every sleep the cap without a word, is
// refused with an error naming both.
func TestCapAtLeastBase(t *testing.T) {
	l := Lab()
	for q, want := range map[string]string{
		"cap=1ms":           "cap must be at least base (5ms), got 1ms",
		"base=5s":           "cap must be at least base (5s), got 2s",
		"base=1m&cap=59.9s": "cap must be at least base (1m), got 59.9s",
	} {
		_, err := l.Parse(q)
		var pe *param.Error
		if !errors.As(err, &pe) || pe.Msg != want || pe.Param != "cap" || !slices.Equal(pe.Params, []string{"cap", "base"}) {
			t.Errorf("%s: %#v, want %q naming cap and base", q, err, want)
		}
	}
	for _, q := range []string{"cap=5ms", "base=1m&cap=1m", "base=2s"} {
		if _, err := l.Parse(q); err != nil {
			t.Errorf("%s: %v", q, err)
		}
	}
}

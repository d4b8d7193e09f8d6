package ratelimit

import (
	"errors"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// TestDurationBoundedByWork: how long a run may simulate is decided by its work, not by its
// simulated time: six hours at 100 requests a minute (a trivial run) and a week at 10 an hour
// are admitted, an hour at 1,000 a second (the most an old URL could ask) still is, and a week
// at 1,000 a second is refused, naming a parameter and a value that fits.
func TestDurationBoundedByWork(t *testing.T) {
	l := Lab()
	for _, q := range []string{
		"limit=100&window=1m&duration=6h",
		"limit=10&window=1h&duration=168h",
		"limit=1000&window=1s&duration=1h",
	} {
		v, err := Params.ParseQuery(q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if err := l.CheckBudget(v, 200_000_000); err != nil {
			t.Errorf("%s: refused: %v", q, err)
		}
	}
	v, err := Params.ParseQuery("limit=1000&window=1s&duration=168h")
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckBudget(v, 200_000_000)
	var pe *param.Error
	if !errors.As(err, &pe) {
		t.Fatalf("a week at 1,000 a second: CheckBudget = %v, want a refusal", err)
	}
	t.Log(pe.Msg)
	if _, err := Params.ParseQuery("duration=169h"); err == nil {
		t.Error("duration=169h parsed: the bound is a week")
	}
}

package loadbalance

import (
	"errors"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/internal/heavy"
	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
	"github.com/resilience-playground/playground/param"
)

// TestMemoryRefused: the scenario of issue 18 that peaked at ~340 MB is refused before it runs,
// naming subset and a value that fits; with that value the scenario is admitted.
func TestMemoryRefused(t *testing.T) {
	l := Lab()
	v, err := params.ParseQuery("clients=3000&backends=3000&subset=1000&rate=0.1&duration=1s&policy=round_robin,least_loaded,weighted,random,p2c&sweep=off")
	if err != nil {
		t.Fatal(err)
	}
	err = l.CheckBudget(v, 200_000_000)
	var pe *param.Error
	if !errors.As(err, &pe) || pe.Param != "subset" || !strings.Contains(pe.Msg, "of memory") {
		t.Fatalf("CheckBudget = %v, want a memory refusal naming subset", err)
	}
	_, after, _ := strings.Cut(pe.Msg, "lower subset to ")
	raw, _, _ := strings.Cut(after, " ")
	w, err := v.With("subset", raw)
	if err != nil {
		t.Fatalf("suggested subset %q: %v (%s)", raw, err, pe.Msg)
	}
	if err := l.CheckBudget(w, 200_000_000); err != nil {
		t.Errorf("with the suggested subset=%s: %v", raw, err)
	}
	if memoryOf(w) > lab.MaxRunMemory {
		t.Errorf("subset=%s: %d bytes, over %d", raw, memoryOf(w), lab.MaxRunMemory)
	}
	t.Log(pe.Msg)
}

// TestMemory compares the memory estimate with the heap runs really hold at their peak, for
// scenarios near the bound: the estimate must not be below it (with a margin, labtest.CheckMemory).
func TestMemory(t *testing.T) {
	heavy.Test(t)
	labtest.CheckMemory(t, func() *lab.Lab { return newRunner().lab() },
		"clients=3000&backends=3000&subset=100&rate=0.1&duration=1s&policy=round_robin,least_loaded,weighted,random,p2c",
		"clients=1000&backends=1000&subset=1000&rate=0.1&duration=1s&policy=round_robin",
		"clients=3000&backends=300&subset=300&rate=1&duration=2s&policy=weighted",
		"clients=300&backends=3000&subset=30&rate=100&duration=2s&policy=random",
		"rate=100&clients=3000&backends=300&duration=2s",
		"clients=300&backends=300&subset=30&duration=10s&load_sweep=50:150:10&policy=round_robin,weighted",
	)
}

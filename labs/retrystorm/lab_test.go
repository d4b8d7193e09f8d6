package retrystorm

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/resilience-playground/playground/lab"
	"github.com/resilience-playground/playground/lab/labtest"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func mustRun(tb testing.TB, query string) *lab.Result {
	tb.Helper()
	return labtest.MustRun(tb, Lab(), query)
}

func policies(tb testing.TB, r *lab.Result) map[string]PolicySummary {
	tb.Helper()
	m, ok := r.Summary["policies"].(map[string]PolicySummary)
	if !ok {
		tb.Fatalf("summary.policies is %T", r.Summary["policies"])
	}
	return m
}

func marshal(tb testing.TB, r *lab.Result) []byte {
	tb.Helper()
	b, err := json.MarshalIndent(r, "", " ")
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// allPolicies is every policy, for the scenarios that compare them all.
const allPolicies = "policies=none,retries,adaptive,grpc,aws,budget,breaker,circuit,throttle"

// TestView: the lab's runs fill its view — every chart gets series, every table its rows —
// with every policy, both service models, layers, shedding and both sweeps.
func TestView(t *testing.T) {
	labtest.CheckView(t, Lab(),
		"duration=10s&rate=100&capacity=200&trigger_start=3s&trigger_length=2s&sweep=0:100:50&client_sweep=10:100:90&"+allPolicies,
		"duration=10s&rate=100&capacity=200&trigger=capacity&service=concurrency&shed=deadline&layers=2",
		"duration=10s&rate=100&capacity=200&trigger=spike&shed=limit&queue_limit=10",
	)
}

// TestGolden: the light scenario's whole result is the one recorded in testdata (go test
// -update rewrites it): a shared link keeps giving the numbers it gave.
func TestGolden(t *testing.T) {
	l := Lab()
	got := marshal(t, labtest.MustRun(t, l, l.Light))
	path := filepath.Join("testdata", "light.golden.json")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the light scenario's result differs from %s (go test -update rewrites it if the change is meant)", path)
	}
}

// TestSlicesEqualOneShot: however a run is cut into slices of simulated time (and whatever
// its first ramps), its result is the one-shot result, byte for byte; and a run replayed from
// the memo gives it too.
func TestSlicesEqualOneShot(t *testing.T) {
	for _, q := range []string{
		"duration=20s&" + allPolicies + "&sweep=0:100:50",
		"duration=20s&trigger=spike&layers=2&policies=retries,budget,throttle&client_sweep=5:10:5",
	} {
		one := newRunner()
		one.sliceWork = 1e18
		want := marshal(t, labtest.MustRun(t, one.lab(), q))
		fine := newRunner()
		fine.sliceWork = 1000
		if got := marshal(t, labtest.MustRun(t, fine.lab(), q)); !bytes.Equal(got, want) {
			t.Errorf("%s: in fine slices the result differs from the one-shot result", q)
		}
		if got := marshal(t, labtest.MustRun(t, fine.lab(), q)); !bytes.Equal(got, want) {
			t.Errorf("%s: replayed from the memo the result differs", q)
		}
	}
}

// TestPoliciesIndependent: a policy's numbers do not depend on which others run beside it.
func TestPoliciesIndependent(t *testing.T) {
	const q = "duration=20s&trigger=capacity"
	all := policies(t, mustRun(t, q+"&"+allPolicies))
	for _, p := range Policies {
		alone := policies(t, mustRun(t, q+"&policies="+p))
		a, b := marshalAny(t, all[p]), marshalAny(t, alone[p])
		if !bytes.Equal(a, b) {
			t.Errorf("%s alone: %s\nbeside the others: %s", p, b, a)
		}
	}
}

func marshalAny(tb testing.TB, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// TestCancelled: a cancelled run returns the context's error.
func TestCancelled(t *testing.T) {
	l := Lab()
	v, err := l.Parse("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := l.Run(ctx, v, func(lab.Update) {}); err != context.Canceled {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
}

package loadtest

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/param"
)

// TestMeasureMemory: the memory report finds each lab's heaviest admitted scenario — the memory
// parameter at the top of its range, taken within the budget — runs it Runs times at once, one
// stream each, and reads the server's resident memory while they run.
func TestMeasureMemory(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	l := seeded()
	// n is the memory parameter: n×10 bytes, under a bound that admits n up to 1e6.
	l.Memory = func(v param.Values) int64 { return v.Int("n") * 10 }
	l.MemoryParams = []string{"n"}
	url := mustServe(t, 1e6, l)
	rep, err := MeasureMemory(context.Background(), MemoryConfig{Server: server(url), PID: os.Getpid(), Labs: labsOf(l), Runs: 3, Budget: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Labs) != 1 {
		t.Fatalf("%d labs reported", len(rep.Labs))
	}
	m := rep.Labs[0]
	if m.Scenario != "/free?n=1000000" || m.Estimate != 1e7 || m.OK != 3 || m.RSSPeak <= 0 {
		t.Errorf("report %+v, want 3 runs of /free?n=1000000 (the largest n the budget admits) done, and the peak RSS read", m)
	}
	var out bytes.Buffer
	rep.WriteText(&out)
	if !strings.Contains(out.String(), "| free | /free?n=1000000 | 10.0 MB |") {
		t.Errorf("report:\n%s", out.String())
	}
}

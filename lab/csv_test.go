package lab_test

import (
	"bytes"
	"encoding/csv"
	"errors"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestWriteCSV(t *testing.T) {
	third := 0.1
	third += 0.2 // 0.30000000000000004: written in full
	r := &lab.Result{
		Lab: "test",
		URL: "/test?n=3",
		Series: []lab.Series{
			{Name: "writes", Chart: "work", Label: "full jitter", XUnit: "clients", YUnit: "calls",
				X: []float64{10, 20, 30}, Y: []float64{1.5, 2.25, 1e21}},
			{Name: "empty", Chart: "work", Label: "no points"},
			{Name: "odd", Chart: "timeline", Label: "say \"hi\", then\nbye", XUnit: "ms",
				X: []float64{0, -0.001, 1e-7}, Y: []float64{math.NaN(), math.Inf(1), math.Inf(-1)}},
			{Name: "appended", Chart: "c", Label: "ünïcode", XUnit: "µs", YUnit: "%", Append: true,
				X: []float64{1}, Y: []float64{third}},
		},
	}
	var b bytes.Buffer
	if err := lab.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "result.csv")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("WriteCSV output differs from %s (run with -update to accept):\n%s\nwant:\n%s", golden, b.Bytes(), want)
	}

	// The output is valid CSV with one row per point after the header.
	rows, err := csv.NewReader(bytes.NewReader(b.Bytes())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1+3+3+1 {
		t.Errorf("%d rows, want 8", len(rows))
	}
	if rows[5][2] != "say \"hi\", then\nbye" {
		t.Errorf("label read back as %q", rows[5][2])
	}
}

func TestWriteCSVEmpty(t *testing.T) {
	var b bytes.Buffer
	if err := lab.WriteCSV(&b, &lab.Result{}); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "series,chart,label,x,y,x_unit,y_unit,scenario\n"; got != want {
		t.Errorf("WriteCSV(empty) = %q, want %q", got, want)
	}
}

type failWriter struct{}

var errWrite = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errWrite }

func TestWriteCSVError(t *testing.T) {
	r := &lab.Result{Series: []lab.Series{{Name: "s", X: []float64{1}, Y: []float64{2}}}}
	if err := lab.WriteCSV(failWriter{}, r); !errors.Is(err, errWrite) {
		t.Errorf("WriteCSV to a failing writer = %v, want %v", err, errWrite)
	}
}

// TestFileName: downloads are named after the scenario, in characters any file system takes.
func TestFileName(t *testing.T) {
	for _, c := range []struct{ url, ext, want string }{
		{"/ratelimit", "csv", "ratelimit_default.csv"},
		{"/ratelimit?limit=50&algorithms=gcra,fixed_window", "csv", "ratelimit_limit-50_algorithms-gcra+fixed_window.csv"},
		{"/backoff?sweep=10:50:20&base=2.5ms", "json", "backoff_sweep-10+50+20_base-2.5ms.json"},
		{"/x?a=%2F..%2Fetc", "png", "x_a-+2F..+2Fetc.png"},
	} {
		if got := lab.FileName(c.url, c.ext); got != c.want {
			t.Errorf("FileName(%q, %q) = %q, want %q", c.url, c.ext, got, c.want)
		}
	}
	long := lab.FileName("/backoff?strategies="+strings.Repeat("full,", 100), "csv")
	if len(long) != 150+len(".csv") {
		t.Errorf("a long scenario's name is %d characters, want 150 and the extension", len(long))
	}
}

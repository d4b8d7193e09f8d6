package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestReport: only a failed test's output is written, with each package's verdict; packages
// are listed by time, and the slowest tests are leaves (a test with subtests counts through
// its subtests); a failure makes the status 1.
func TestReport(t *testing.T) {
	in := strings.Join([]string{
		`{"Action":"start","Package":"a"}`,
		`{"Action":"output","Package":"a","Test":"TestX","Output":"=== RUN   TestX\n"}`,
		`{"Action":"pass","Package":"a","Test":"TestX/one","Elapsed":3}`,
		`{"Action":"pass","Package":"a","Test":"TestX/two","Elapsed":1}`,
		`{"Action":"pass","Package":"a","Test":"TestX","Elapsed":4}`,
		`{"Action":"pass","Package":"a","Test":"TestY","Elapsed":2}`,
		`{"Action":"output","Package":"a","Output":"PASS\n"}`,
		`{"Action":"output","Package":"a","Output":"ok  \ta\t6.5s\n"}`,
		`{"Action":"pass","Package":"a","Elapsed":6.5}`,
		`{"Action":"pass","Package":"b","Test":"TestZ","Elapsed":9}`,
		`{"Action":"pass","Package":"b","Elapsed":9.2}`,
	}, "\n")
	var out, report bytes.Buffer
	if code := run(strings.NewReader(in), &out, &report, 2); code != 0 {
		t.Errorf("status %d, want 0", code)
	}
	if out.String() != "ok  \ta\t6.5s\n" {
		t.Errorf("output %q", out.String())
	}
	want := "\n== time per package (s)\n     9.2  b\n     6.5  a\n    15.7  all packages (summed; they run in parallel)\n" +
		"\n== the 2 slowest tests (s)\n     9.0  b TestZ\n     3.0  a TestX/one\n"
	if report.String() != want {
		t.Errorf("report:\n%s\nwant:\n%s", report.String(), want)
	}
	out.Reset()
	failing := `{"Action":"output","Package":"c","Test":"TestW","Output":"    w_test.go:3: broken\n"}` + "\n" +
		`{"Action":"fail","Package":"c","Test":"TestW","Elapsed":1}`
	if code := run(strings.NewReader(failing), &out, &report, 2); code != 1 {
		t.Errorf("a failure: status %d, want 1", code)
	}
	if out.String() != "    w_test.go:3: broken\n" {
		t.Errorf("a failed test's output: %q", out.String())
	}
	if code := run(strings.NewReader("# a build error\n"), &out, &report, 2); code != 1 {
		t.Errorf("a build error: status %d, want 1", code)
	}
}

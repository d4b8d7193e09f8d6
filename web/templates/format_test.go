package templates

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/resilience-playground/playground/lab"
)

// node runs script, an ES module, with Node beside a copy of the page's modules
// (web/static/js, importable as "./js/…"), with input on its standard input, and decodes its
// standard output as JSON into out. Without node the test is skipped loudly, unless CI is set
// (.ci/run installs Debian's nodejs), when it fails.
func node(tb testing.TB, script string, input, out any) {
	tb.Helper()
	bin, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") != "" {
			tb.Fatalf("the page's modules run under node in CI: %v (apt-get install nodejs)", err)
		}
		tb.Skipf("SKIPPING — node not found (apt-get install nodejs): %v", err)
	}
	dir := tb.TempDir()
	if err := os.CopyFS(filepath.Join(dir, "js"), os.DirFS("../static/js")); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"type": "module"}`), 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.js"), []byte(script), 0o644); err != nil {
		tb.Fatal(err)
	}
	in, err := json.Marshal(input)
	if err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "main.js")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(string(in))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		tb.Fatalf("node: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		tb.Fatalf("node's output: %v\n%s", err, b)
	}
}

// readStdin is the scripts' start: their input, parsed.
const readStdin = `
import { readFileSync } from "node:fs";
const input = JSON.parse(readFileSync(0, "utf8"));
`

// TestFormatsMatchPage holds the server's formatting of numbers and durations (lab.FormatSig,
// lab.FormatDuration) to
// the page's (js/format.js), character for character, on values around every unit's and
// rounding's edge: a slider's value the server renders and the one the page's script writes
// when it moves must not differ in form.
func TestFormatsMatchPage(t *testing.T) {
	var values []float64
	for _, edge := range []float64{1e-6, 1e-3, 1, 1000, 60000, 3600000, 2 * 86400000, 1e21 / 1e6} {
		for _, f := range []float64{0.5, 0.9994, 0.9995, 0.99951, 1, 1.0004, 1.0005, 1.5, 9.995, 10, 99.95, 123.456} {
			values = append(values, edge*f, -edge*f)
		}
	}
	values = append(values, 0, 5, 2000, 1e7, 1.234e22, 1.5e-7, 86400000*365)
	var got struct{ Sig, Duration []string }
	node(t, readStdin+`
import { sig, duration } from "./js/format.js";
console.log(JSON.stringify({ Sig: input.map((x) => sig(x, 3)), Duration: input.map((x) => duration(x)) }));
`, values, &got)
	if len(got.Sig) != len(values) || len(got.Duration) != len(values) {
		t.Fatalf("node wrote %d and %d values of %d", len(got.Sig), len(got.Duration), len(values))
	}
	for i, x := range values {
		if s := lab.FormatSig(x, 3); s != got.Sig[i] {
			t.Errorf("sig(%v, 3): the server writes %q, the page %q", x, s, got.Sig[i])
		}
		if s := lab.FormatDuration(x); s != got.Duration[i] {
			t.Errorf("duration of %v ms: the server writes %q, the page %q", x, s, got.Duration[i])
		}
	}
}

// TestParamsMatchPage runs the conformance vectors of package param
// (param/testdata/conformance.json, which param.TestConformance checks against the server's
// parser) through the page's parameter rules (js/params.js) under Node: every raw value has the
// same canonical form or the same error message on both sides, and every value of a
// logarithmic slider the same position. e2e.TestParamsConformance runs them in Chromium too,
// and checks a control's message.
func TestParamsMatchPage(t *testing.T) {
	b, err := os.ReadFile("../../param/testdata/conformance.json")
	if err != nil {
		t.Fatal(err)
	}
	var c json.RawMessage = b
	var got struct {
		N   int
		Out []struct{ Param, Raw, Got, Want string }
	}
	node(t, readStdin+`
import * as P from "./js/params.js";
const c = input, ps = new Map(c.params.map((p) => [p.name, p])), out = [];
for (const v of c.vectors) {
	const r = P.parse(ps.get(v.param), v.raw);
	const got = r.error !== undefined ? "error " + r.error : "canonical " + r.canonical;
	const want = v.error ? "error " + v.error : "canonical " + v.canonical;
	if (got !== want) out.push({ Param: v.param, Raw: v.raw, Got: got, Want: want });
}
for (const v of c.sliders) {
	const got = P.toSlider({ log_steps: c.log_steps }, ps.get(v.param), v.raw);
	if (got !== v.pos) out.push({ Param: v.param, Raw: v.raw, Got: "slider position " + got, Want: "slider position " + v.pos });
}
console.log(JSON.stringify({ N: c.vectors.length, Out: out }));
`, c, &got)
	for _, m := range got.Out {
		t.Errorf("%s=%q: the page says %s, the server %s", m.Param, m.Raw, m.Got, m.Want)
	}
	if got.N < 100 {
		t.Errorf("%d vectors ran, want the whole file", got.N)
	}
}

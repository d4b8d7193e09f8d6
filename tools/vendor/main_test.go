package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha512"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoVendorDir is web/static/vendor seen from this package's directory.
var repoVendorDir = filepath.Join("..", "..", filepath.FromSlash(vendorPath))

func loadTestManifest(t *testing.T) []Entry {
	t.Helper()
	entries, err := LoadManifest("manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// copyVendorDir copies SHA256SUMS and every manifest file into a temp dir.
func copyVendorDir(t *testing.T, entries []Entry) string {
	t.Helper()
	dir := t.TempDir()
	names := []string{sumsName}
	for _, e := range entries {
		for _, dst := range e.Files {
			names = append(names, dst)
		}
	}
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(repoVendorDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCheckRepoVendorDir(t *testing.T) {
	if err := Check(repoVendorDir, loadTestManifest(t)); err != nil {
		t.Fatalf("Check(%s): %v", repoVendorDir, err)
	}
}

func TestVendoredESMBuild(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoVendorDir, "uPlot.esm.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte("export { uPlot as default }")) {
		t.Error("uPlot.esm.js does not look like the ES module build (no default export)")
	}
}

func TestCheckDetectsModifiedByte(t *testing.T) {
	entries := loadTestManifest(t)
	dir := copyVendorDir(t, entries)
	if err := Check(dir, entries); err != nil {
		t.Fatalf("unmodified copy: %v", err)
	}

	name := filepath.Join(dir, "uPlot.esm.js")
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x01
	if err := os.WriteFile(name, data, 0o644); err != nil {
		t.Fatal(err)
	}
	err = Check(dir, entries)
	if err == nil {
		t.Fatal("Check passed after a byte was changed")
	}
	if !strings.Contains(err.Error(), "uPlot.esm.js: sha256 mismatch") {
		t.Errorf("error does not name the modified file: %v", err)
	}
}

func TestCheckDetectsUnlistedAndMissing(t *testing.T) {
	entries := loadTestManifest(t)

	// Manifest file dropped from SHA256SUMS.
	dir := copyVendorDir(t, entries)
	sums, err := os.ReadFile(filepath.Join(dir, sumsName))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, line := range strings.SplitAfter(string(sums), "\n") {
		if !strings.HasSuffix(line, " uPlot.min.css\n") {
			kept = append(kept, line)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, sumsName), []byte(strings.Join(kept, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, entries); err == nil || !strings.Contains(err.Error(), "uPlot.min.css (from uplot@1.6.32): not listed") {
		t.Errorf("unlisted manifest file: got %v", err)
	}

	// Listed file deleted from disk.
	dir = copyVendorDir(t, entries)
	if err := os.Remove(filepath.Join(dir, "uPlot.LICENSE")); err != nil {
		t.Fatal(err)
	}
	if err := Check(dir, entries); err == nil || !strings.Contains(err.Error(), "uPlot.LICENSE") {
		t.Errorf("missing file: got %v", err)
	}
}

func TestVerifyIntegrity(t *testing.T) {
	data := []byte("tarball bytes")
	sum := sha512.Sum512(data)
	good := "sha512-" + base64.StdEncoding.EncodeToString(sum[:])
	if err := VerifyIntegrity(data, good); err != nil {
		t.Errorf("good integrity: %v", err)
	}
	if err := VerifyIntegrity(append(data, '!'), good); err == nil || !strings.Contains(err.Error(), "INTEGRITY MISMATCH") {
		t.Errorf("bad data: got %v", err)
	}
	if err := VerifyIntegrity(data, "md5-AAAA"); err == nil {
		t.Error("unsupported algorithm accepted")
	}
}

func TestExtract(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range map[string]string{
		"package/dist/a.js":    "export default 1;\n",
		"package/LICENSE":      "MIT\n",
		"package/package.json": "{}",
	} {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}

	got, err := Extract(bytes.NewReader(buf.Bytes()), map[string]string{"dist/a.js": "a.js", "LICENSE": "a.LICENSE"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got["a.js"]) != "export default 1;\n" || string(got["a.LICENSE"]) != "MIT\n" {
		t.Errorf("Extract = %q", got)
	}

	_, err = Extract(bytes.NewReader(buf.Bytes()), map[string]string{"dist/missing.js": "m.js"})
	if err == nil || !strings.Contains(err.Error(), "dist/missing.js") {
		t.Errorf("missing file: got %v", err)
	}
}

func TestFormatParseSumsRoundTrip(t *testing.T) {
	files := map[string][]byte{"b.js": []byte("b"), "a.css": []byte("a")}
	out := FormatSums(files)
	if !strings.HasSuffix(strings.SplitN(string(out), "\n", 2)[0], "  a.css") {
		t.Errorf("not sorted by name:\n%s", out)
	}
	sums, err := ParseSums(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) != 2 {
		t.Errorf("ParseSums = %v", sums)
	}
}

// Command vendor copies pinned front-end assets from npm packages into
// web/static/vendor so that the application needs neither a CDN at run time
// nor npm at build time.
//
// The packages, their exact versions, their npm integrity hashes (SRI
// format) and the files to take from each are listed in
// tools/vendor/manifest.json:
//
//	[{"package": "uplot", "version": "1.6.32",
//	  "integrity": "sha512-...",
//	  "files": {"dist/uPlot.esm.js": "uPlot.esm.js"}}]
//
// Keys of "files" are paths inside the package tarball (without the
// leading "package/"); values are plain file names in web/static/vendor.
//
// Refreshing the vendored files (needs npm and access to the npm registry):
//
//	go generate ./tools/vendor
//	go run ./tools/vendor            # equivalent, from the repository root
//
// For every manifest entry this runs
// "npm pack <package>@<version> --pack-destination <tmpdir>", checks the
// tarball against the manifest's integrity hash (aborting on mismatch),
// extracts the listed files, and finally rewrites
// web/static/vendor/SHA256SUMS (sha256sum format, sorted by file name).
//
// Verifying the vendored files without touching the network (used by CI):
//
//	go run ./tools/vendor -check
//
// -check recomputes the SHA-256 of every file listed in SHA256SUMS,
// requires that every file named in the manifest is listed there (and
// nothing else), and exits with status 1 describing each mismatch.
//
// Flags:
//
//	-dir string   repository root (default ".")
//	-check        verify web/static/vendor against SHA256SUMS; no network
package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

const (
	// manifestPath is the manifest location relative to the repository root.
	manifestPath = "tools/vendor/manifest.json"
	// vendorPath is the output directory relative to the repository root.
	vendorPath = "web/static/vendor"
	// sumsName is the checksum file inside the output directory.
	sumsName = "SHA256SUMS"
	// maxFileSize bounds how much is read for any single extracted file.
	maxFileSize = 64 << 20
)

// Entry is one npm package in the manifest.
type Entry struct {
	Package   string            `json:"package"`
	Version   string            `json:"version"`
	Integrity string            `json:"integrity"`
	Files     map[string]string `json:"files"` // path in package -> vendored name
}

// Spec returns the npm package spec, e.g. "uplot@1.6.32".
func (e Entry) Spec() string { return e.Package + "@" + e.Version }

func main() {
	dir := flag.String("dir", ".", "repository root")
	check := flag.Bool("check", false, "verify "+vendorPath+" against "+sumsName+" (no network)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: vendor [-dir root] [-check]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}

	entries, err := LoadManifest(filepath.Join(*dir, filepath.FromSlash(manifestPath)))
	if err != nil {
		fatal(err)
	}
	out := filepath.Join(*dir, filepath.FromSlash(vendorPath))

	if *check {
		if err := Check(out, entries); err != nil {
			fmt.Fprintf(os.Stderr, "vendor: %s is out of date or modified:\n%v\n", vendorPath, err)
			fmt.Fprintln(os.Stderr, "vendor: run \"go generate ./tools/vendor\" to refresh it")
			os.Exit(1)
		}
		fmt.Printf("vendor: %s matches %s\n", vendorPath, sumsName)
		return
	}

	if err := Update(out, entries); err != nil {
		fatal(err)
	}
	if err := Check(out, entries); err != nil {
		fatal(fmt.Errorf("self-check after update failed:\n%w", err))
	}
	fmt.Printf("vendor: updated %s\n", vendorPath)
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "vendor: %v\n", err)
	os.Exit(1)
}

// LoadManifest reads and validates the manifest file.
func LoadManifest(name string) ([]Entry, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var entries []Entry
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("%s: no entries", name)
	}
	seen := map[string]string{}
	for i, e := range entries {
		if e.Package == "" || e.Version == "" || e.Integrity == "" {
			return nil, fmt.Errorf("%s: entry %d: package, version and integrity are required", name, i)
		}
		if len(e.Files) == 0 {
			return nil, fmt.Errorf("%s: %s: no files", name, e.Spec())
		}
		for src, dst := range e.Files {
			if src == "" || path.IsAbs(src) || path.Clean(src) != src || strings.HasPrefix(src, "../") {
				return nil, fmt.Errorf("%s: %s: bad source path %q", name, e.Spec(), src)
			}
			if !validName(dst) {
				return nil, fmt.Errorf("%s: %s: bad destination name %q (must be a plain file name)", name, e.Spec(), dst)
			}
			if prev, dup := seen[dst]; dup {
				return nil, fmt.Errorf("%s: destination %q used by both %s and %s", name, dst, prev, e.Spec())
			}
			seen[dst] = e.Spec()
		}
	}
	return entries, nil
}

// validName reports whether dst is usable as a vendored file name.
func validName(dst string) bool {
	return dst != "" && dst != "." && dst != ".." && dst != sumsName &&
		!strings.ContainsAny(dst, `/\`) && !strings.HasSuffix(dst, ".go") &&
		!strings.ContainsAny(dst, "\n\r")
}

// Update fetches every manifest package with npm, verifies it, extracts the
// listed files into out and rewrites out/SHA256SUMS.
func Update(out string, entries []Entry) error {
	tmp, err := os.MkdirTemp("", "vendor-npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	// Fetch and verify everything before writing anything.
	contents := map[string][]byte{}
	for i, e := range entries {
		dest := filepath.Join(tmp, fmt.Sprint(i))
		if err := os.Mkdir(dest, 0o755); err != nil {
			return err
		}
		tgz, err := npmPack(e.Spec(), dest)
		if err != nil {
			return err
		}
		if err := VerifyIntegrity(tgz, e.Integrity); err != nil {
			return fmt.Errorf("%s: %w", e.Spec(), err)
		}
		files, err := Extract(bytes.NewReader(tgz), e.Files)
		if err != nil {
			return fmt.Errorf("%s: %w", e.Spec(), err)
		}
		for name, data := range files {
			contents[name] = data
		}
	}

	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for name, data := range contents {
		if err := writeFileAtomic(filepath.Join(out, name), data); err != nil {
			return err
		}
	}
	return writeFileAtomic(filepath.Join(out, sumsName), FormatSums(contents))
}

// npmPack downloads spec into dir with "npm pack" and returns the tarball.
func npmPack(spec, dir string) ([]byte, error) {
	cmd := exec.Command("npm", "pack", spec, "--pack-destination", dir, "--ignore-scripts")
	cmd.Dir = dir
	cmd.Stdout = io.Discard
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	fmt.Fprintf(os.Stderr, "vendor: npm pack %s\n", spec)
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("npm pack %s: %w\n%s", spec, err, stderr.Bytes())
	}
	matches, err := filepath.Glob(filepath.Join(dir, "*.tgz"))
	if err != nil {
		return nil, err
	}
	if len(matches) != 1 {
		return nil, fmt.Errorf("npm pack %s: expected one .tgz in %s, found %d", spec, dir, len(matches))
	}
	return os.ReadFile(matches[0])
}

// VerifyIntegrity checks data against an SRI string such as
// "sha512-<base64>". Several space-separated hashes may be given; the
// strongest supported algorithm present is used, and it must match.
func VerifyIntegrity(data []byte, integrity string) error {
	algos := []struct {
		name string
		new  func() hash.Hash
	}{
		{"sha512", sha512.New},
		{"sha384", sha512.New384},
		{"sha256", sha256.New},
	}
	fields := strings.Fields(integrity)
	for _, a := range algos {
		for _, f := range fields {
			alg, b64, ok := strings.Cut(f, "-")
			if !ok || alg != a.name {
				continue
			}
			b64, _, _ = strings.Cut(b64, "?") // SRI options are ignored
			want, err := base64.StdEncoding.DecodeString(b64)
			if err != nil {
				return fmt.Errorf("malformed integrity %q: %w", f, err)
			}
			h := a.new()
			h.Write(data)
			got := h.Sum(nil)
			if !bytes.Equal(got, want) {
				return fmt.Errorf("INTEGRITY MISMATCH: manifest has %s-%s, downloaded tarball is %s-%s",
					a.name, base64.StdEncoding.EncodeToString(want),
					a.name, base64.StdEncoding.EncodeToString(got))
			}
			return nil
		}
	}
	return fmt.Errorf("integrity %q has no supported hash (sha512, sha384, sha256)", integrity)
}

// Extract reads an npm tarball (gzip-compressed tar whose entries are
// prefixed with "package/") and returns the files named by the keys of
// files, keyed by their destination names.
func Extract(tgz io.Reader, files map[string]string) (map[string][]byte, error) {
	zr, err := gzip.NewReader(tgz)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	tr := tar.NewReader(zr)
	got := map[string][]byte{}
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		name, ok := strings.CutPrefix(hdr.Name, "package/")
		if !ok {
			continue
		}
		dst, ok := files[name]
		if !ok {
			continue
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fmt.Errorf("%s: not a regular file in tarball", hdr.Name)
		}
		if _, dup := got[dst]; dup {
			return nil, fmt.Errorf("%s: appears twice in tarball", hdr.Name)
		}
		data, err := io.ReadAll(io.LimitReader(tr, maxFileSize+1))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", hdr.Name, err)
		}
		if len(data) > maxFileSize {
			return nil, fmt.Errorf("%s: larger than %d bytes", hdr.Name, maxFileSize)
		}
		got[dst] = data
	}
	var missing []string
	for src, dst := range files {
		if _, ok := got[dst]; !ok {
			missing = append(missing, src)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, fmt.Errorf("not found in tarball: %s", strings.Join(missing, ", "))
	}
	return got, nil
}

// FormatSums renders files in sha256sum format, sorted by name.
func FormatSums(files map[string][]byte) []byte {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	var b bytes.Buffer
	for _, name := range names {
		sum := sha256.Sum256(files[name])
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	return b.Bytes()
}

// ParseSums parses sha256sum output into a map from file name to hex digest.
func ParseSums(data []byte) (map[string]string, error) {
	sums := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" {
			continue
		}
		digest, name, ok := strings.Cut(line, " ")
		if !ok || len(name) < 2 || (name[0] != ' ' && name[0] != '*') {
			return nil, fmt.Errorf("%s line %d: malformed: %q", sumsName, n, line)
		}
		name = name[1:]
		if len(digest) != 2*sha256.Size {
			return nil, fmt.Errorf("%s line %d: bad digest %q", sumsName, n, digest)
		}
		if _, err := hex.DecodeString(digest); err != nil {
			return nil, fmt.Errorf("%s line %d: bad digest %q", sumsName, n, digest)
		}
		if !validName(name) {
			return nil, fmt.Errorf("%s line %d: bad file name %q", sumsName, n, name)
		}
		if _, dup := sums[name]; dup {
			return nil, fmt.Errorf("%s line %d: %s listed twice", sumsName, n, name)
		}
		sums[name] = strings.ToLower(digest)
	}
	return sums, sc.Err()
}

// Check verifies the vendored files in dir against dir/SHA256SUMS without
// using the network. It reports every file whose digest differs or that is
// missing, every manifest file not listed in SHA256SUMS, and every listed
// file that the manifest does not name.
func Check(dir string, entries []Entry) error {
	data, err := os.ReadFile(filepath.Join(dir, sumsName))
	if err != nil {
		return err
	}
	sums, err := ParseSums(data)
	if err != nil {
		return err
	}

	want := map[string]string{} // vendored name -> package spec
	for _, e := range entries {
		for _, dst := range e.Files {
			want[dst] = e.Spec()
		}
	}

	var problems []error
	for _, name := range sortedKeys(want) {
		if _, ok := sums[name]; !ok {
			problems = append(problems, fmt.Errorf("  %s (from %s): not listed in %s", name, want[name], sumsName))
		}
	}
	for _, name := range sortedKeys(sums) {
		if _, ok := want[name]; !ok {
			problems = append(problems, fmt.Errorf("  %s: listed in %s but not in %s", name, sumsName, manifestPath))
		}
		content, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			problems = append(problems, fmt.Errorf("  %s: %w", name, err))
			continue
		}
		sum := sha256.Sum256(content)
		if got := hex.EncodeToString(sum[:]); got != sums[name] {
			problems = append(problems, fmt.Errorf("  %s: sha256 mismatch: %s says %s, file has %s", name, sumsName, sums[name], got))
		}
	}
	return errors.Join(problems...)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// writeFileAtomic writes data to name via a temporary file and rename.
func writeFileAtomic(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
